"""The local kernel store: one ``kernel_meta`` directory holding ``<name>.info``, ``<name>.json``, ``<name>.so``.

Contract (see docs/cache.md):
  * ``.json`` is written last and commits an entry; every file is written atomically.
  * :meth:`KernelStore.lookup` verifies an entry completely (``.info`` bytes equal the request and hash to the
    name, ``.json`` parses and names the expected binary, the binary's size and sha256 match) before it is
    reported as a hit. The binary's path is derived from the kernel name, never taken from ``.json``.
  * The binary must also be a shared object this process can load, exporting the kernel's symbol
    (cache/elf.py): checked on the bytes already read for the sha256, so a truncated object (SIGBUS when
    mapped), garbage or an object without the symbol is never ``dlopen``ed.
  * Anything wrong is reported as ``corrupt`` with a reason; callers quarantine it while holding the kernel's
    lock, since an entry without its ``.json`` may simply be in the middle of being published.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ..core import config
from . import elf, fsio, quarantine
from .identity import kernel_symbol
from .layout import (
    CPU_BINARY_SUFFIX,
    HASH_CHARS,
    INFO_SUFFIX,
    JSON_SUFFIX,
    LOCK_DIR,
    LOCK_SUFFIX,
    NAME_RE,
    TMP_DIR,
)

log = logging.getLogger("opbuild.cache")


@dataclass
class Lookup:
    """Result of a lookup: ``status`` is "hit", "absent" or "corrupt"; on a hit ``binary`` is the verified
    binary's path and ``result`` the parsed ``.json``."""

    status: str
    reason: str = ""
    binary: str | None = None
    result: dict | None = None
    ident: tuple | None = None  # (device, inode, size, mtime_ns) of the verified binary


def _commit_hook(stage: str, name: str) -> None:
    """Test hook OPBUILD_TEST_COMMIT_HOOK (config.testing_commit_hook): announce that this process is inside
    the commit window of ``name`` (after writing its ``stage``) and pause there, so a test can kill it."""
    hook = config.testing_commit_hook()
    if hook is None:
        return
    pause, path = hook
    with open(path, "a") as f:
        f.write(f"{os.getpid()} {stage} {name}\n")
    time.sleep(pause)


class KernelStore:
    """One kernel_meta directory. Creating it may raise OSError (caller degrades to a private store).

    ``binary_suffix`` is the suffix of the target's binaries (the target owns it, cache/layout.py)."""

    def __init__(self, path: Path, create: bool = True, binary_suffix: str = CPU_BINARY_SUFFIX):
        self.path = Path(path)
        self.binary_suffix = binary_suffix
        if create and not os.path.isdir(self.path):  # a stat, not a mkdir: EEXIST is slow on overlayfs
            self.path.mkdir(parents=True, exist_ok=True)
        self._prefix = os.path.join(str(self.path), "")
        self.tmp_dir = self.path / TMP_DIR
        self._swept = False
        # (device, inode, size, mtime_ns) -> (sha256, exported symbols or why the object is not loadable)
        self._digests: dict[tuple[int, int, int, int], tuple[str, frozenset[str] | str]] = {}

    # ---- layout -----------------------------------------------------------------------------------
    def info_path(self, name: str) -> Path:
        return self.path / (name + INFO_SUFFIX)

    def json_path(self, name: str) -> Path:
        return self.path / (name + JSON_SUFFIX)

    def binary_path(self, name: str) -> Path:
        return self.path / (name + self.binary_suffix)

    def lock_path(self, name: str) -> Path:
        return self.path / LOCK_DIR / (name + LOCK_SUFFIX)

    def writable(self) -> bool:
        """Whether new entries can be created here (existence and permission; ENOSPC shows up on write)."""
        return os.access(self.path, os.W_OK | os.X_OK)

    # ---- reads ------------------------------------------------------------------------------------
    def lookup(self, name: str, info: bytes) -> Lookup:
        """Verify the entry ``name`` against the requested canonical descriptor bytes ``info``.

        This is the warm-start hot path (once per kernel per process), hence plain string paths and
        ``open`` rather than pathlib.
        """
        base = self._prefix + name
        try:
            raw = fsio.read_small(base + JSON_SUFFIX)
        except FileNotFoundError:
            if os.path.exists(base + INFO_SUFFIX) or os.path.exists(base + self.binary_suffix):
                return Lookup("corrupt", "entry has no .json (interrupted build or deleted file)")
            return Lookup("absent")
        except OSError as e:
            return Lookup("corrupt", f"cannot read .json: {e}")
        try:
            result = fsio.parse_json(raw, JSON_SUFFIX)  # CorruptFile (an OSError), never RecursionError
            expected_size = int(result["size"])
            expected_sha = str(result["sha256"])
            if result.get("binary") != name + self.binary_suffix:
                return Lookup("corrupt", f".json names binary {result.get('binary')!r}, "
                                         f"expected {name}{self.binary_suffix}")
        except (OSError, ValueError, KeyError, TypeError, OverflowError) as e:
            return Lookup("corrupt", f"unparsable .json ({e})")
        try:
            on_disk = fsio.read_small(base + INFO_SUFFIX)
        except FileNotFoundError:
            return Lookup("corrupt", "entry has no .info")
        except OSError as e:
            return Lookup("corrupt", f"cannot read .info: {e}")
        if on_disk != info:
            if hashlib.sha256(on_disk).hexdigest()[:HASH_CHARS] != name.rsplit("_", 1)[-1]:
                return Lookup("corrupt", ".info does not hash to the entry's name")
            return Lookup("corrupt", ".info differs from the requested descriptor")
        # on_disk == info, and the caller derived ``name`` from sha256(info): the .info matches its name.
        found = self._verify_binary(base + self.binary_suffix, expected_size, expected_sha, JSON_SUFFIX,
                                    kernel_symbol(name))
        if found.status == "hit":
            found.result = result
        return found

    def _verify_binary(self, binary: str, size: int, sha256: str, source: str, symbol: str) -> Lookup:
        """A hit if ``binary`` is a regular file (never a symbolic link) of ``size`` bytes hashing to
        ``sha256``, as recorded in ``source`` (.json or the graph manifest), and a loadable shared object
        exporting ``symbol``."""
        try:
            st = os.lstat(binary)
        except FileNotFoundError:
            return Lookup("corrupt", "binary is missing")
        except OSError as e:
            return Lookup("corrupt", f"cannot stat binary: {e}")
        if not stat.S_ISREG(st.st_mode):
            # A symbolic link could point out of the cache (and is what dlopen would load): never follow one.
            return Lookup("corrupt", "binary is not a regular file in the cache")
        if st.st_size != size:
            return Lookup("corrupt", f"binary size {st.st_size} != {size} recorded in {source}")
        ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        try:
            digest = self.digest_of(binary, ident)
        except OSError as e:
            return Lookup("corrupt", f"cannot read binary: {e}")
        if digest != sha256:
            return Lookup("corrupt", f"binary sha256 does not match {source}")
        exported = self._digests[ident][1]
        if isinstance(exported, str):
            return Lookup("corrupt", f"binary is not a loadable shared object: {exported}")
        if symbol not in exported:
            return Lookup("corrupt", f"binary does not export the kernel symbol {symbol}")
        return Lookup("hit", binary=binary, ident=ident)

    def check(self, name: str, info_sha256: str, json_sha256: str, binary_sha256: str, size: int) -> Lookup:
        """Verify entry ``name`` against what a graph manifest recorded (cache/manifest.py): the ``.info``
        bytes hash to ``info_sha256`` (whose prefix is the name's hash), the ``.json`` bytes to
        ``json_sha256``, the binary is a regular file of ``size`` bytes hashing to ``binary_sha256``. As
        strict as :meth:`lookup` (the recorded ``.json`` was parsed and checked when the manifest was
        written) without parsing anything."""
        if NAME_RE.match(name) is None:  # manifests are hostile input too: never a path out of kernel_meta
            return Lookup("corrupt", f"{name!r} is not a kernel name")
        base = self._prefix + name
        try:
            raw = fsio.read_small(base + JSON_SUFFIX)
            on_disk = fsio.read_small(base + INFO_SUFFIX)
        except OSError as e:
            return Lookup("corrupt", f"cannot read the entry: {e}")
        if info_sha256[:HASH_CHARS] != name.rsplit("_", 1)[-1] or hashlib.sha256(on_disk).hexdigest() != info_sha256:
            return Lookup("corrupt", ".info differs from the manifest")
        if hashlib.sha256(raw).hexdigest() != json_sha256:
            return Lookup("corrupt", ".json differs from the manifest")
        return self._verify_binary(base + self.binary_suffix, size, binary_sha256, "the graph manifest",
                                   kernel_symbol(name))

    def digest_of(self, binary: str, ident: tuple[int, int, int, int]) -> str:
        """sha256 of a binary (never following a symbolic link), once per process and inode: the entries of
        one batched compile share an inode, and any rewrite changes the inode, size or mtime in ``ident``.
        The ELF check (cache/elf.py) runs on the same bytes, also once per inode: the symbols it exports, or
        why it cannot be loaded, are remembered for :meth:`_verify_binary`."""
        known = self._digests.get(ident)
        if known is None:
            # O_NONBLOCK: a FIFO swapped in after the caller's lstat must not block us (it reads as empty).
            with open(os.open(binary, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as f:
                data = f.read()
            try:
                exported: frozenset[str] | str = elf.exported_symbols(data)
            except elf.ElfError as e:
                exported = str(e)
            known = self._digests[ident] = (hashlib.sha256(data).hexdigest(), exported)
        return known[0]

    # ---- writes -----------------------------------------------------------------------------------
    def publish(self, name: str, info: bytes, binary: bytes, result: dict, link_from: Path | None = None) -> Path:
        """Write a complete entry: binary, then .info, then .json (the commit marker). Returns the binary path.

        ``result`` gets ``binary``, ``suffix``, ``sha256`` and ``size`` filled in. With ``link_from`` (a file
        in this directory holding exactly ``binary``), the binary is hard-linked instead of copied, so the
        entries of one batched compile share one inode: one copy on disk, one ``dlopen`` for all of them.
        Raises OSError (e.g. ENOSPC) with nothing half-written left behind: each file is atomic, and the parts
        this call already wrote are removed again unless the entry got committed anyway (by another process
        publishing it too). Only a SIGKILL can leave an uncommitted entry, which lookup reports as corrupt.
        """
        result = dict(result, binary=name + self.binary_suffix, suffix=self.binary_suffix,
                      sha256=hashlib.sha256(binary).hexdigest(), size=len(binary))
        target = self.binary_path(name)
        written: list[Path] = []
        # No fsync by default: atomic renames already make every entry complete-or-absent for any process
        # crash, and after a power cut a file whose data did not reach the disk fails verification at its
        # next lookup (size/sha256 vs .json, exact .info bytes, parsable .json) and is repaired. Three fsyncs
        # per kernel cost more than compiling it on a slow disk; OPBUILD_CACHE_FSYNC=1 buys durability across
        # power cuts.
        sync = config.cache_fsync()
        try:
            if link_from is None or not self._link(link_from, target):
                fsio.atomic_write(target, binary, fsync=sync, tmp_dir=self.tmp_dir)
            written.append(target)
            _commit_hook("binary", name)
            fsio.atomic_write(self.info_path(name), info, fsync=sync, tmp_dir=self.tmp_dir)
            written.append(self.info_path(name))
            _commit_hook("info", name)
            fsio.atomic_write(self.json_path(name), (json.dumps(result, indent=1, sort_keys=True) + "\n").encode(),
                              fsync=sync, tmp_dir=self.tmp_dir)
        except OSError:
            if not self.json_path(name).exists():
                for path in written:
                    with contextlib.suppress(OSError):
                        path.unlink()
            raise
        if sync:
            fsio.fsync_dir(self.path)
        return target

    def _link(self, source: Path, target: Path) -> bool:
        """Atomically make ``target`` a hard link of ``source``; False where links are not possible."""
        tmp = fsio.tmp_path(target, self.tmp_dir)
        try:
            try:
                os.link(source, tmp)
            except FileNotFoundError:
                if not os.path.exists(source):
                    raise
                self.tmp_dir.mkdir(exist_ok=True)
                os.link(source, tmp)
        except OSError:
            return False
        try:
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return True

    def stage_binary(self, binary: bytes, label: str) -> Path:
        """Write a batch's shared binary as a temporary of this store (for :meth:`publish` ``link_from``).
        The caller removes it once the entries are linked; if the process dies first, the sweep does."""
        path = self.tmp_dir / fsio.tmp_name(label + self.binary_suffix)
        fsio.atomic_write(path, binary, fsync=config.cache_fsync(), tmp_dir=self.tmp_dir)
        return path

    def quarantine(self, name: str, reason: str) -> list[Path]:
        """Move every file of entry ``name`` into ``quarantine/`` (cache/quarantine.py: same filesystem, so each
        move is atomic). The ``.json`` goes first so that the entry stops being committed before its other files
        move. Never raises; a part that cannot be moved stays where it is and the rebuild replaces it atomically.
        """
        return quarantine.move_all(self.path, [self.json_path(name), self.info_path(name), self.binary_path(name)],
                                   reason, label=name)

    def sweep_temporaries(self) -> list[str]:
        """Move stale temporaries (of dead processes) into quarantine; return the kernel names they belonged
        to. Runs at most once per store object, on every build: so it lists only the ``.tmp/`` folder (empty
        unless a process is writing or died writing), never the whole cache, whose size it must not pay for.
        (Temporaries that earlier versions left beside the entries are cleared by ``cache verify --repair``.)"""
        if self._swept:
            return []
        self._swept = True
        names: list[str] = []
        try:
            entries = list(os.scandir(self.tmp_dir))
        except OSError:  # no .tmp folder yet: nothing was ever interrupted here
            return names
        now = time.time()
        for entry in entries:
            if not entry.name.startswith(fsio.TMP_PREFIX) or not fsio.is_stale_tmp(entry, now):
                continue
            parsed = fsio.parse_tmp(entry.name)
            final = parsed[2] if parsed else entry.name
            if quarantine.move(self.path, entry.path, f"temporary of {final} left by a process that is gone") is None:
                continue
            names.append(final.rsplit(".", 1)[0])
        return names
