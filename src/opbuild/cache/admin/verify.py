"""``opbuild cache verify``: check every file of a kernel_meta directory; with ``repair``, fix what is broken.

Checks, per committed entry, with the one verifier (cache/entry.py ``verify``, which a build's lookup uses
too): under ``OPBUILD_CACHE_SECRET``, the entry's MAC (cache/signing.py: an unsigned entry, one of another
secret or one with a bad MAC is a problem, quarantined by repair as a build would), the ``.info`` hashes to
the entry's name and parses as a descriptor of the op the name says, the ``.json`` parses and names the
entry's binary, the binary's size and sha256 match the ``.json``, and the binary is a loadable shared object
exporting the kernel's symbol (cache/elf.py). Besides entries: uncommitted entries nobody is building,
temporaries of dead processes, files and folders that do not belong (orphans) and an unreadable statistics
file.

Repairs: a broken or uncommitted entry is moved to ``quarantine/`` (holding its lock, so never while another
process builds or loads it), an orphan is moved there too (it may be someone's file), a dead process's
temporary is deleted, an unreadable statistics file is reset.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

import filelock

from .. import entry as entry_format
from .. import fsio, hashio, manifest, quarantine, statmemo, stats
from ..layout import (
    CPU_BINARY_SUFFIX,
    INFO_SUFFIX,
    JSON_SUFFIX,
    LOCK_DIR,
    MEMO_FILE,
    QUARANTINE_DIR,
)
from ..local import FROM_ENV, KernelStore, StoredBinary
from ..locks import bad_lock_file, try_exclusive
from .scan import Entry, scan


@dataclass
class Problem:
    """One thing wrong: ``kind`` is entry, uncommitted, temporary, orphan, stats, memo, manifest or lock;
    ``action`` says what ``--repair`` did about it (empty without repair)."""

    kind: str
    path: str
    detail: str
    action: str = ""

    @property
    def repaired(self) -> bool:
        """Whether ``--repair`` fixed it."""
        return self.action in ("quarantined", "removed", "reset")


@dataclass
class Report:
    """Result of a verification of one kernel_meta directory."""

    directory: Path
    exists: bool
    checked: int = 0
    problems: list[Problem] = field(default_factory=list)
    in_progress: list[str] = field(default_factory=list)  # entries being built right now (not problems)
    key_id: str = "unsigned"  # of the secret entries were required to be signed with ("unsigned": none)

    @property
    def unrepaired(self) -> list[Problem]:
        """Problems that are still there."""
        return [p for p in self.problems if not p.repaired]

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"directory": str(self.directory), "exists": self.exists, "checked": self.checked,
                "key_id": self.key_id,
                "problems": [asdict(p) for p in self.problems], "in_progress": self.in_progress}


#: No kernel binary comes near this; a larger file in an entry's place is not read into memory (its size is
#: compared from fstat first): the one bound on binaries, cache/hashio.py.
MAX_BINARY_BYTES = hashio.MAX_BINARY_BYTES


def check_entry(store: KernelStore, entry: Entry) -> str | None:
    """Why committed entry ``entry`` of ``store`` is broken, or None if it is sound: the one verifier
    (:func:`..entry.verify`), the entry checked against itself, its binary read as a build reads it
    (:class:`..local.StoredBinary`). ``.info`` and ``.json`` are read with :func:`..fsio.read_small`: a FIFO,
    directory or symbolic link in a part's place is damage, never followed and never waited on."""
    parts = []
    for suffix in (INFO_SUFFIX, JSON_SUFFIX):
        try:
            parts.append(fsio.read_small(str(entry.path(suffix)), fsio.MAX_METADATA_BYTES))
        except FileNotFoundError:
            return f"entry has no {suffix}"
        except fsio.CorruptFile as e:
            return f"{suffix} is {e.strerror}"
        except OSError as e:
            return f"cannot read {suffix}: {e.strerror or e}"
    binary = StoredBinary(store, str(entry.path(entry.binary_suffix)))
    return entry_format.verify(entry.name, *parts, binary, binary_suffix=entry.binary_suffix,
                               signer=store.signer).reason


def verify(directory: Path, repair: bool = False, binary_suffix: str = CPU_BINARY_SUFFIX,
           known_blas: Collection[str] = (), secret: bytes | None | str = FROM_ENV) -> Report:
    """Check every file of one kernel_meta directory; with ``repair``, fix what is broken (see module doc).
    ``binary_suffix`` is the target's (cache/layout.py); ``known_blas`` the libraries a graph manifest may name
    as its BLAS (the target's ``known_linked_libraries``: the cache imports no target); ``secret`` the key every
    entry must be signed with (default ``OPBUILD_CACHE_SECRET``; None: checksums only)."""
    directory = Path(directory)
    listing = scan(directory, binary_suffix)
    report = Report(directory, listing.exists)
    if not listing.exists:
        return report
    store = KernelStore(directory, create=False, binary_suffix=binary_suffix, secret=secret)
    report.key_id = store.key_id
    now = time.time()
    for entry in listing.entries:
        report.checked += 1
        if entry.committed:
            reason = check_entry(store, entry)
            if reason is None:
                continue
            problem = Problem("entry", entry.name, reason)
        else:
            present = " and ".join(s for s in (INFO_SUFFIX, binary_suffix) if s in entry.sizes)
            problem = Problem("uncommitted", entry.name, f"entry has no .json (only {present}): an "
                              "interrupted build or a deleted file")
        with try_exclusive(store, entry.name) as held:
            if not held:
                if entry.committed:  # broken, and someone is rebuilding or loading it right now
                    problem.action = "skipped: in use" if repair else ""
                    report.problems.append(problem)
                else:
                    report.in_progress.append(entry.name)
                continue
            # Re-check under the lock: it may have been completed or repaired since we looked.
            if entry.path(JSON_SUFFIX).exists():
                if check_entry(store, entry) is None:
                    continue
            elif not any(entry.path(s).exists() for s in (INFO_SUFFIX, binary_suffix)):
                continue
            if repair:
                moved = store.quarantine(entry.name, problem.detail)
                problem.action = "quarantined" if moved else "failed: nothing to move"
        report.problems.append(problem)

    for tmp in listing.temporaries:
        if not fsio.is_stale_tmp(tmp, now):
            continue  # a live process is writing it
        problem = Problem("temporary", tmp.name, "temporary file of a process that is gone")
        if repair:
            try:
                tmp.unlink()
                problem.action = "removed"
            except FileNotFoundError:
                problem.action = "removed"
            except OSError as e:
                problem.action = f"failed: {e.strerror or e}"
        report.problems.append(problem)

    for orphan in listing.orphans:
        kind = "folder" if orphan.is_dir() and not orphan.is_symlink() else (
            "symlink" if orphan.is_symlink() else "file")
        problem = Problem("orphan", orphan.name, f"{kind} that is not part of any cache entry")
        if repair:
            problem.action = _aside(directory, orphan, problem.detail)
        report.problems.append(problem)

    _check_side_files(directory, repair, report)
    _check_manifests(store, repair, report, known_blas)
    _check_locks(store, repair, report)
    return report


def _aside(directory: Path, path: Path, why: str) -> str:
    """Move ``path`` into quarantine (cache/quarantine.py); the action a Problem reports. A foreign file that
    stood in the quarantine folder's place was moved into the new folder by the first move of this repair."""
    if path == directory / QUARANTINE_DIR and path.is_dir() and not path.is_symlink():
        return "quarantined"
    return "quarantined" if quarantine.move(directory, path, why) else "failed: cannot move it"


def _check_side_files(directory: Path, repair: bool, report: Report) -> None:
    """The statistics (reset by repair: the counts are lost anyway) and the memo (moved to quarantine: it only
    saves derivations). Whatever is in their place, a directory or FIFO included, is reported, never read
    beyond :func:`..fsio.read_small`."""
    try:
        stats.read(directory)
    except ValueError as e:
        problem = Problem("stats", stats.stats_path(directory).name, str(e))
        if repair:
            try:
                stats.zero(directory)  # moves a directory or symlink in its place to quarantine first
                problem.action = "reset"
            except (OSError, filelock.Timeout) as e2:
                problem.action = f"failed: {e2}"
        report.problems.append(problem)
    why = statmemo.problem(directory)
    if why is not None:
        problem = Problem("memo", MEMO_FILE, why)
        if repair:
            problem.action = _aside(directory, directory / MEMO_FILE, why)
        report.problems.append(problem)


def _check_manifests(store: KernelStore, repair: bool, report: Report, known_blas: Collection[str]) -> None:
    """Every graph manifest must load and name only present entries matching its recorded sha256 values
    (:func:`..manifest.problems`); repair removes a bad one (an index: the next warm start of its graph
    writes it again) or moves anything that is not a regular file to quarantine."""
    gdir = store.path / manifest.MANIFEST_DIR
    if gdir.is_symlink() or not gdir.is_dir():
        return  # absent, or not a directory: then ``scan`` reports it as an orphan
    try:
        found = sorted(os.scandir(gdir), key=lambda d: d.name)
    except OSError as e:
        report.problems.append(Problem("manifest", manifest.MANIFEST_DIR, f"cannot list: {e.strerror or e}"))
        return
    for d in found:
        where = f"{manifest.MANIFEST_DIR}/{d.name}"
        why = manifest.problems(store, d.path, known_blas)
        if why is None:
            continue
        problem = Problem("manifest", where, why)
        if repair:
            if quarantine.is_regular(d.path):
                try:
                    os.unlink(d.path)
                    problem.action = "removed"
                except FileNotFoundError:
                    problem.action = "removed"
                except OSError as e:
                    problem.action = f"failed: {e.strerror or e}"
            else:
                problem.action = _aside(store.path, Path(d.path), why)
        report.problems.append(problem)


def _check_locks(store: KernelStore, repair: bool, report: Report) -> None:
    """Lock files are never deleted (see :mod:`..locks`), but a directory or symbolic link in a lock file's place
    cannot be locked at all: reported, and moved to quarantine by repair."""
    ldir = store.path / LOCK_DIR
    if ldir.is_symlink() or not ldir.is_dir():
        return
    try:
        found = sorted(os.scandir(ldir), key=lambda d: d.name)
    except OSError:
        return
    for d in found:
        why = bad_lock_file(d.path)
        if why is None:
            continue
        problem = Problem("lock", f"{LOCK_DIR}/{d.name}", why)
        if repair:
            problem.action = _aside(store.path, Path(d.path), why)
        report.problems.append(problem)
