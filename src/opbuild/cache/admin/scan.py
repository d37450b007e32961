"""Read-only view of one kernel_meta directory: its entries, temporaries, quarantine and anything else.

An entry is the files ``<name>.info``, ``<name>.json`` and ``<name>.so`` sharing one kernel name
``<op lower>_<32 hex>``; it is *committed* once its ``.json`` exists. "Last used" is the ``.json``'s
modification time, which a process that loaded the entry refreshes (at most once per
:data:`..usage.USE_RESOLUTION`), so listing and eviction need one ``stat`` per file and no index
that could drift.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fsio
from ..layout import (
    BINARY_SUFFIXES,
    CPU_BINARY_SUFFIX,
    INFO_SUFFIX,
    JSON_SUFFIX,
    LOCK_DIR,
    MANIFEST_DIR,
    NAME_RE,
    QUARANTINE_DIR,
    SIDE_FILES,
    TMP_DIR,
    split_entry_file,
)


def _read_json(path: Path) -> dict | None:
    """The JSON object in ``path``, or None (absent, not a regular file, damaged: listing shows what it can)."""
    try:
        return fsio.read_json(str(path))
    except OSError:  # FileNotFoundError, CorruptFile, EACCES
        return None


@dataclass
class Entry:
    """One kernel's files in a kernel_meta directory (sizes and mtimes from a single scan)."""

    name: str
    directory: Path
    sizes: dict[str, int] = field(default_factory=dict)
    mtimes: dict[str, float] = field(default_factory=dict)
    binary_suffix: str = CPU_BINARY_SUFFIX  # the target's (cache/layout.py)
    _meta: Any = field(default=None, repr=False)
    _info: Any = field(default=None, repr=False)

    def path(self, suffix: str) -> Path:
        """The path of this entry's file with ``suffix`` (``.info``, ``.json``, ``.so``)."""
        return self.directory / (self.name + suffix)

    def binary_path(self) -> Path:
        """The path of this entry's binary."""
        return self.path(self.binary_suffix)

    @property
    def committed(self) -> bool:
        """Whether the ``.json`` commit marker exists (the entry is complete unless it is broken)."""
        return JSON_SUFFIX in self.sizes

    @property
    def size(self) -> int:
        """Bytes of this entry's files (a binary shared with other entries counted in full)."""
        return sum(self.sizes.values())

    @property
    def last_used(self) -> float:
        """When a build last loaded (or published) this entry: the ``.json`` mtime."""
        return self.mtimes.get(JSON_SUFFIX, max(self.mtimes.values(), default=0.0))

    def meta(self) -> dict:
        """The parsed ``.json`` ({} if missing or unparsable); read once."""
        if self._meta is None:
            data = _read_json(self.path(JSON_SUFFIX)) if self.committed else None
            self._meta = data if isinstance(data, dict) else {}
        return self._meta

    def info(self) -> dict:
        """The parsed ``.info`` descriptor ({} if missing or unparsable); read once."""
        if self._info is None:
            data = _read_json(self.path(INFO_SUFFIX)) if INFO_SUFFIX in self.sizes else None
            self._info = data if isinstance(data, dict) else {}
        return self._info

    @property
    def op(self) -> str:
        """The op, from ``.json``, else ``.info``, else the name (a value that is not a string is damage)."""
        for op in (self.meta().get("op"), self.info().get("op")):
            if isinstance(op, str) and op:
                return op
        return NAME_RE.match(self.name).group(1)

    @property
    def built_at(self) -> float:
        """Epoch seconds of the build (``.json`` ``built_at``, else its mtime)."""
        value = self.meta().get("built_at")
        return float(value) if isinstance(value, (int, float)) else self.mtimes.get(JSON_SUFFIX, 0.0)

    @property
    def build_seconds(self) -> float:
        """Compiler seconds recorded for this kernel (0.0 if unknown)."""
        value = self.meta().get("build_seconds")
        return float(value) if isinstance(value, (int, float)) else 0.0


@dataclass(frozen=True)
class FileStat:
    """What one ``stat`` says about a file: size, identity (device, inode) and hard-link count."""

    size: int
    inode: tuple[int, int]
    links: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileStat:
        """From an ``os.stat_result``."""
        return cls(st.st_size, (st.st_dev, st.st_ino), st.st_nlink)


@dataclass
class Listing:
    """Everything found in one kernel_meta directory.

    Byte counts are disk usage: the binaries of one batched compile are hard links of one file, so a file
    is counted once however many entries link it (``Entry.size`` is an entry's logical size).
    """

    path: Path
    exists: bool
    entries: list[Entry] = field(default_factory=list)
    temporaries: list[Path] = field(default_factory=list)
    quarantine: list[Path] = field(default_factory=list)
    manifests: list[Path] = field(default_factory=list)  # .graphs/*.json (graph manifests)
    orphans: list[Path] = field(default_factory=list)
    files: dict[Path, FileStat] = field(default_factory=dict)  # entries, graph manifests, quarantine, temporaries
    binary_suffix: str = CPU_BINARY_SUFFIX  # the target's (cache/layout.py)

    @property
    def committed(self) -> list[Entry]:
        """Entries whose ``.json`` exists."""
        return [e for e in self.entries if e.committed]

    def disk_bytes(self, paths) -> int:
        """Bytes on disk of ``paths`` (each inode once)."""
        seen: dict[tuple[int, int], int] = {}
        for p in paths:
            f = self.files.get(p)
            if f is not None:
                seen[f.inode] = f.size
        return sum(seen.values())

    def entry_files(self, entries=None) -> list[Path]:
        """Paths of the files of ``entries`` (default: all entries)."""
        return [e.path(s) for e in (self.entries if entries is None else entries) for s in e.sizes]

    @property
    def entry_bytes(self) -> int:
        """Disk usage of all entries."""
        return self.disk_bytes(self.entry_files())

    @property
    def quarantine_bytes(self) -> int:
        """Disk usage of the quarantine folder."""
        return self.disk_bytes(self.quarantine)

    @property
    def total_bytes(self) -> int:
        """Bytes that count against a size bound: entries, graph manifests, quarantine and temporaries."""
        return self.disk_bytes(self.files)


def scan(path: Path, binary_suffix: str = CPU_BINARY_SUFFIX) -> Listing:
    """List a kernel_meta directory (one ``stat`` per file; no file is opened). ``binary_suffix`` is the
    target's binary suffix (cache/layout.py)."""
    path = Path(path)
    try:
        dirents = list(os.scandir(path))
    except (FileNotFoundError, NotADirectoryError):
        return Listing(path, exists=False, binary_suffix=binary_suffix)
    listing = Listing(path, exists=True, binary_suffix=binary_suffix)
    by_name: dict[str, Entry] = {}
    foreign: set[str] = set()
    for d in dirents:
        try:
            st = d.stat(follow_symlinks=False)
        except OSError:
            continue  # removed while we looked
        if d.name in SIDE_FILES:
            continue  # whatever is in their place (even a directory) is checked by ``verify``, not an orphan
        if d.is_dir(follow_symlinks=False):
            if d.name == QUARANTINE_DIR:
                for q, qst in _files_under(Path(d.path)):
                    listing.quarantine.append(q)
                    listing.files[q] = FileStat.of(qst)
            elif d.name == TMP_DIR:
                for t, tst in _files_under(Path(d.path)):
                    listing.temporaries.append(t)
                    listing.files[t] = FileStat.of(tst)
            elif d.name == MANIFEST_DIR:  # graph manifests: an index of entries (cache/manifest.py)
                for g, gst in _files_under(Path(d.path)):
                    listing.manifests.append(g)
                    listing.files[g] = FileStat.of(gst)
            elif d.name != LOCK_DIR:
                listing.orphans.append(Path(d.path))
            continue
        if d.name.startswith(fsio.TMP_PREFIX):
            listing.temporaries.append(Path(d.path))
            listing.files[Path(d.path)] = FileStat.of(st)
            continue
        parts = split_entry_file(d.name, binary_suffix) if d.is_file(follow_symlinks=False) else None
        if parts is None:
            other = _other_target_binary(d.name, binary_suffix) if d.is_file(follow_symlinks=False) else None
            if other is not None:
                foreign.add(other)  # another target's binary: its entry is that target's to list
            else:
                listing.orphans.append(Path(d.path))
            continue
        name, suffix = parts
        entry = by_name.setdefault(name, Entry(name, path, binary_suffix=binary_suffix))
        entry.sizes[suffix] = st.st_size
        entry.mtimes[suffix] = st.st_mtime
        listing.files[Path(d.path)] = FileStat.of(st)
    for name in foreign:  # an entry of another target (its binary is there, this target's is not): not ours
        entry = by_name.get(name)
        if entry is not None and binary_suffix not in entry.sizes:
            del by_name[name]
            for suffix in entry.sizes:
                listing.files.pop(path / (name + suffix), None)
    listing.entries = sorted(by_name.values(), key=lambda e: e.name)
    return listing


def _other_target_binary(file_name: str, binary_suffix: str) -> str | None:
    """The entry name of ``file_name`` when it is the binary of another target's entry (layout.BINARY_SUFFIXES),
    else None."""
    for suffix in BINARY_SUFFIXES:
        if suffix != binary_suffix and file_name.endswith(suffix) and NAME_RE.match(file_name[:-len(suffix)]):
            return file_name[:-len(suffix)]
    return None


def _files_under(root: Path) -> list[tuple[Path, os.stat_result]]:
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            try:
                out.append((p, p.lstat()))
            except OSError:
                continue
    return out


def _tensor(t: Any) -> str:
    if not isinstance(t, dict):
        return "?"
    shape = t.get("shape")
    dims = ",".join(str(d) for d in shape) if isinstance(shape, list) else "?"
    return f"{t.get('dtype', '?')}[{dims}]"


def signature(info: dict) -> str:
    """A one-line shapes/dtypes summary of a descriptor: ``float32[2,3], float32[3] -> float32[2,3]``,
    followed by the attributes when there are any."""
    if not info:
        return "?"
    try:
        return _signature(info)
    except (RecursionError, ValueError, TypeError):  # a damaged .info nested deeply enough to parse but not print
        return "?"


def _signature(info: dict) -> str:
    ins = ", ".join(_tensor(t) for t in info.get("inputs") or [])
    outs = ", ".join(_tensor(t) for t in info.get("outputs") or [])
    text = f"{ins} -> {outs}"
    attrs = info.get("attrs")
    if isinstance(attrs, dict) and attrs:
        text += " " + " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}"
                               for k, v in sorted(attrs.items()))
    return text
