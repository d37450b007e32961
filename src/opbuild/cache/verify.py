"""``opbuild cache verify``: check every file of a kernel_meta directory; with ``repair``, fix what is broken.

Checks, per committed entry: the ``.info`` hashes to the entry's name and parses as a descriptor of the
op the name says, the ``.json`` parses and names the entry's binary, the binary's size and sha256 match
the ``.json``, and the binary is a loadable shared object exporting the kernel's symbol (cache/elf.py): the
same verification a build does before loading, :meth:`KernelStore.lookup`. Besides
entries: uncommitted entries nobody is building, temporaries of dead processes, files and folders that do
not belong (orphans) and an unreadable statistics file.

Repairs: a broken or uncommitted entry is moved to ``quarantine/`` (holding its lock, so never while another
process builds or loads it), an orphan is moved there too (it may be someone's file), a dead process's
temporary is deleted, an unreadable statistics file is reset.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import filelock

from . import elf, fsio, stats
from .entries import NAME_RE, Entry, scan
from .key import HASH_CHARS, kernel_symbol
from .local import BINARY_SUFFIX, QUARANTINE_DIR, KernelStore
from .pin import try_exclusive


@dataclass
class Problem:
    """One thing wrong: ``kind`` is entry, uncommitted, temporary, orphan or stats; ``action`` says what
    ``--repair`` did about it (empty without repair)."""

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

    @property
    def unrepaired(self) -> list[Problem]:
        """Problems that are still there."""
        return [p for p in self.problems if not p.repaired]

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"directory": str(self.directory), "exists": self.exists, "checked": self.checked,
                "problems": [asdict(p) for p in self.problems], "in_progress": self.in_progress}


def check_entry_bytes(name: str, info: bytes, meta_raw: bytes, binary: bytes) -> str | None:
    """Why the three files of entry ``name`` (given as bytes) do not form a sound entry, or None.

    The same rules as a build's lookup (:meth:`KernelStore.lookup`), without a requested descriptor to
    compare with; used on disk (``verify``) and on archive members (``cache import``/``export``).
    """
    m = NAME_RE.match(name)
    if m is None:
        return f"{name!r} is not a kernel name (<op>_<{HASH_CHARS} hex digits>)"
    if hashlib.sha256(info).hexdigest()[:HASH_CHARS] != m.group(2):
        return ".info does not hash to the entry's name"
    try:
        desc = json.loads(info)
    except ValueError as e:
        return f".info is not valid JSON ({e})"
    if not isinstance(desc, dict) or str(desc.get("op", "")).lower() != m.group(1):
        op = desc.get("op") if isinstance(desc, dict) else None
        return f".info describes op {op!r}, but the entry's name says {m.group(1)!r}"
    try:
        meta = json.loads(meta_raw)
        if not isinstance(meta, dict):
            raise ValueError("not an object")
        size, sha = int(meta["size"]), str(meta["sha256"])
    except (ValueError, KeyError, TypeError) as e:
        return f"unparsable .json ({e})"
    if meta.get("binary") != name + BINARY_SUFFIX:
        return f".json names binary {meta.get('binary')!r}, expected {name}{BINARY_SUFFIX}"
    if meta.get("kernel") not in (None, name):
        return f".json names kernel {meta.get('kernel')!r}"
    if meta.get("op") not in (None, desc.get("op")):
        return f".json names op {meta.get('op')!r}, .info says {desc.get('op')!r}"
    if len(binary) != size:
        return f"binary size {len(binary)} != {size} recorded in .json"
    if hashlib.sha256(binary).hexdigest() != sha:
        return "binary sha256 does not match .json"
    try:  # what a build checks before loading it: a checksum alone proves nothing about a broken compiler's output
        elf.check(binary, [kernel_symbol(name)])
    except elf.ElfError as e:
        return f"binary is not a loadable shared object: {e}"
    return None


def check_entry(store: KernelStore, entry: Entry) -> str | None:
    """Why committed entry ``entry`` of ``store`` is broken, or None if it is sound."""
    parts = []
    for suffix, what in ((".info", ".info"), (".json", ".json"), (BINARY_SUFFIX, "binary")):
        try:
            parts.append(entry.path(suffix).read_bytes())
        except FileNotFoundError:
            return f"entry has no {what}" if what != "binary" else "binary is missing"
        except OSError as e:
            return f"cannot read {what}: {e.strerror or e}"
    return check_entry_bytes(entry.name, *parts)


def _quarantine_orphan(directory: Path, path: Path) -> str:
    qdir = directory / QUARANTINE_DIR
    try:
        qdir.mkdir(exist_ok=True)
        os.replace(path, qdir / f"{path.name}.orphan.{time.strftime('%Y%m%dT%H%M%S')}.{os.getpid()}")
    except OSError as e:
        return f"failed: {e.strerror or e}"
    return "quarantined"


def verify(directory: Path, repair: bool = False) -> Report:
    """Check every file of one kernel_meta directory; with ``repair``, fix what is broken (see module doc)."""
    directory = Path(directory)
    listing = scan(directory)
    report = Report(directory, listing.exists)
    if not listing.exists:
        return report
    store = KernelStore(directory, create=False)
    now = time.time()
    for entry in listing.entries:
        report.checked += 1
        if entry.committed:
            reason = check_entry(store, entry)
            if reason is None:
                continue
            problem = Problem("entry", entry.name, reason)
        else:
            present = " and ".join(s for s in (".info", BINARY_SUFFIX) if s in entry.sizes)
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
            if entry.path(".json").exists():
                if check_entry(store, entry) is None:
                    continue
            elif not any(entry.path(s).exists() for s in (".info", ".so")):
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
            problem.action = _quarantine_orphan(directory, orphan)
        report.problems.append(problem)

    try:
        stats.read(directory)
    except ValueError as e:
        problem = Problem("stats", stats.stats_path(directory).name, str(e))
        if repair:
            try:
                stats.zero(directory)
                problem.action = "reset"
            except (OSError, filelock.Timeout) as e2:
                problem.action = f"failed: {e2}"
        report.problems.append(problem)
    return report
