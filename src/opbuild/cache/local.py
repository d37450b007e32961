"""The local kernel store: one ``kernel_meta`` directory holding ``<name>.info``, ``<name>.json``, ``<name>.so``.

Contract (see docs/cache.md):
  * ``.json`` is written last and commits an entry; every file is written atomically.
  * :meth:`KernelStore.lookup` verifies an entry completely with the one verifier (cache/entry.py: ``.info``
    bytes equal the request, ``.json`` parses and names the expected binary, the binary's size and sha256
    match) before it is reported as a hit; :meth:`KernelStore.check` does the same against a graph manifest.
    The binary's path is derived from the kernel name, never taken from ``.json``.
  * The binary must also be a shared object this process can load, exporting the kernel's symbol
    (cache/elf.py): checked on the bytes already read for the sha256, so a truncated object (SIGBUS when
    mapped), garbage or an object without the symbol is never ``dlopen``ed.
  * Anything wrong is reported as ``corrupt`` with a reason; callers quarantine it while holding the kernel's
    lock, since an entry without its ``.json`` may simply be in the middle of being published.
  * Under ``OPBUILD_CACHE_SECRET`` every entry is published signed (cache/signing.py) and every read refuses an
    entry whose MAC is missing, of another secret or wrong: a reason like any other corruption.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..core import config
from . import binaries, elf, entry, fsio, hashio, quarantine, signing
from .layout import (
    CPU_BINARY_SUFFIX,
    INFO_SUFFIX,
    JSON_SUFFIX,
    LOCK_DIR,
    LOCK_SUFFIX,
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


class _Row(NamedTuple):
    """A graph manifest's record of an entry (:class:`.entry.Recorded`)."""

    info_sha256: str
    json_sha256: str
    binary_sha256: str
    size: int


class StoredBinary(entry.Binary):
    """An entry's binary in a store, as :func:`.entry.verify` reads it: ``lstat`` first (a regular file only,
    never a symbolic link, which could point out of the cache and is what dlopen would load), then its sha256
    and exported symbols once per inode (:meth:`KernelStore.contents_of`). ``ident`` is the verified file's
    (device, inode, size, mtime_ns)."""

    __slots__ = ("store", "path", "ident")

    def __init__(self, store: KernelStore, path: str):
        self.store, self.path = store, path
        self.ident: tuple[int, int, int, int] | None = None

    def size(self) -> int:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            raise entry.Unsound("binary is missing") from None
        except OSError as e:
            raise entry.Unsound(f"cannot stat binary: {e}") from None
        if not stat.S_ISREG(st.st_mode):
            raise entry.Unsound("binary is not a regular file in the cache")
        self.ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        return st.st_size

    def contents(self) -> tuple[str, frozenset[str] | str]:
        assert self.ident is not None, "size() first: verification stats before it reads"
        try:
            return self.store.contents_of(self.path, self.ident)
        except OSError as e:
            raise entry.Unsound(f"cannot read binary: {e}") from None


#: ``KernelStore(secret=FROM_ENV)``: the secret is ``OPBUILD_CACHE_SECRET`` (validated: a ConfigError if bad).
FROM_ENV = "env"


class KernelStore:
    """One kernel_meta directory. Creating it may raise OSError (caller degrades to a private store).

    ``binary_suffix`` is the suffix of the target's binaries (the target owns it, cache/layout.py); ``secret``
    signs every entry published and is required of every entry read (None: entries are unsigned and read by
    checksum alone; default: ``OPBUILD_CACHE_SECRET``)."""

    def __init__(self, path: Path, create: bool = True, binary_suffix: str = CPU_BINARY_SUFFIX,
                 secret: bytes | None | str = FROM_ENV):
        self.path = Path(path)
        self.binary_suffix = binary_suffix
        key = config.cache_secret() if secret == FROM_ENV else secret
        assert key is None or isinstance(key, bytes)
        self.signer = signing.signer(key)
        self.key_id = signing.key_id(key)  # names the secret entries are signed with here ("unsigned": none)
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
        """Verify the entry ``name`` against the requested canonical descriptor bytes ``info``
        (:func:`.entry.verify`, the one verifier).

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
            on_disk = fsio.read_small(base + INFO_SUFFIX)
        except FileNotFoundError:
            return Lookup("corrupt", "entry has no .info")
        except OSError as e:
            return Lookup("corrupt", f"cannot read .info: {e}")
        binary = StoredBinary(self, base + self.binary_suffix)
        verdict = entry.verify(name, on_disk, raw, binary, binary_suffix=self.binary_suffix, requested=info,
                               signer=self.signer)
        if verdict.reason is not None:
            return Lookup("corrupt", verdict.reason)
        return Lookup("hit", binary=binary.path, result=verdict.result, ident=binary.ident)

    def check(self, name: str, info_sha256: str, json_sha256: str, binary_sha256: str, size: int,
              describes: Callable[[bytes], str | None] | None = None) -> Lookup:
        """Verify entry ``name`` against what a graph manifest recorded (cache/manifest.py): the ``.info``
        bytes hash to ``info_sha256`` (whose prefix is the name's hash), the ``.json`` bytes to
        ``json_sha256``, the binary is a regular file of ``size`` bytes hashing to ``binary_sha256``: the one
        verifier (:func:`.entry.verify`) against the recorded row, parsing nothing (the recorded ``.json`` was
        parsed and checked when the manifest was written), then ``describes`` (cache/rows.py), given the ``.info``
        bytes, finds no reason why the entry is not the kernel of the manifest's row."""
        why = entry.name_problem(name)  # manifests are hostile input too: never a path out of kernel_meta
        if why is not None:
            return Lookup("corrupt", why)
        base = self._prefix + name
        try:
            raw = fsio.read_small(base + JSON_SUFFIX)
            on_disk = fsio.read_small(base + INFO_SUFFIX)
        except OSError as e:
            return Lookup("corrupt", f"cannot read the entry: {e}")
        binary = StoredBinary(self, base + self.binary_suffix)
        verdict = entry.verify(name, on_disk, raw, binary, binary_suffix=self.binary_suffix,
                               recorded=_Row(info_sha256, json_sha256, binary_sha256, size), signer=self.signer)
        if verdict.reason is not None:
            return Lookup("corrupt", verdict.reason)
        if describes is not None and (why := describes(on_disk)):
            return Lookup("corrupt", why)
        return Lookup("hit", binary=binary.path, ident=binary.ident)

    def digest_of(self, binary: str, ident: tuple[int, int, int, int]) -> str:
        """sha256 of a binary (never following a symbolic link), once per process and inode (see
        :meth:`contents_of`)."""
        return self.contents_of(binary, ident)[0]

    def contents_of(self, binary: str, ident: tuple[int, int, int, int]) -> tuple[str, frozenset[str] | str]:
        """``(sha256, exported symbols or why the object is not loadable)`` of a binary (never following a
        symbolic link), once per process and inode: the entries of one batched compile share an inode, and any
        rewrite changes the inode, size or mtime in ``ident``. The ELF check (cache/elf.py) runs on the bytes
        read for the sha256."""
        known = self._digests.get(ident)
        if known is None:
            # Streamed and bounded (cache/hashio.py): the size from fstat must still be the caller's and within
            # MAX_BINARY_BYTES before a byte is read; a FIFO swapped in after the lstat never blocks.
            data, digest = hashio.read_hashed(binary, ident[2])
            try:
                exported: frozenset[str] | str = binaries.symbols_for(data, self.binary_suffix)
            except elf.ElfError as e:
                exported = str(e)
            del data
            known = self._digests[ident] = (digest, exported)
        return known

    # ---- writes -----------------------------------------------------------------------------------
    def publish(self, name: str, info: bytes, binary: bytes, result: dict, link_from: Path | None = None) -> Path:
        """Write a complete entry: binary, then .info, then .json (the commit marker). Returns the binary path.

        ``result`` gets ``binary``, ``suffix``, ``sha256`` and ``size`` filled in, and the ``.json`` is signed
        when the store has a secret (whatever MAC ``result`` carried is dropped: an entry copied from the shared
        tier or an archive is re-signed here, after its own signature was checked). With ``link_from`` (a file
        in this directory holding exactly ``binary``), the binary is hard-linked instead of copied, so the
        entries of one batched compile share one inode: one copy on disk, one ``dlopen`` for all of them.
        Raises OSError (e.g. ENOSPC) with nothing half-written left behind: each file is atomic, and the parts
        this call already wrote are removed again unless the entry got committed anyway (by another process
        publishing it too). Only a SIGKILL can leave an uncommitted entry, which lookup reports as corrupt.
        """
        result = entry.result_record(name, self.binary_suffix, result, hashlib.sha256(binary).hexdigest(),
                                     len(binary))
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
            fsio.atomic_write(self.info_path(name), info, fsync=sync, tmp_dir=self.tmp_dir)
            written.append(self.info_path(name))
            fsio.atomic_write(self.json_path(name), entry.encode_result(result, self.signer, name, info), fsync=sync,
                              tmp_dir=self.tmp_dir)
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
        for tmp in entries:
            if not tmp.name.startswith(fsio.TMP_PREFIX) or not fsio.is_stale_tmp(tmp, now):
                continue
            parsed = fsio.parse_tmp(tmp.name)
            final = parsed[2] if parsed else tmp.name
            if quarantine.move(self.path, tmp.path, f"temporary of {final} left by a process that is gone") is None:
                continue
            names.append(final.rsplit(".", 1)[0])
        return names
