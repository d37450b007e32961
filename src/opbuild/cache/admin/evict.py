"""Eviction: ``opbuild cache prune``, ``opbuild cache clear`` and the ``OPBUILD_CACHE_MAX_SIZE`` bound.

Least recently used entries go first ("last used" is the ``.json`` mtime, see :mod:`.scan`), after the
garbage that no build will ever load (quarantined files, temporaries of dead processes, uncommitted entries
nobody is building). Each entry is removed while holding its lock exclusively, taken without waiting, so an
entry that another process is building or loading is skipped (see :mod:`..locks`). The ``.json`` commit marker
is deleted first: from that instant a reader sees the entry as absent or uncommitted, never as a committed
entry with a missing binary. If a prune is killed half-way through an entry, what is left is an uncommitted
entry that lookups treat as a miss and the next prune or ``verify --repair`` removes. Graph manifests that
name an entry no longer there (or, with an age, older than it) go last: indexes nothing can use.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from .. import fsio, manifest, stats
from ..layout import CPU_BINARY_SUFFIX, JSON_SUFFIX, entry_suffixes
from ..local import KernelStore
from ..locks import try_exclusive
from .scan import Entry, Listing, scan

log = logging.getLogger("opbuild.cache")

#: An uncommitted entry younger than this may still be being published by a process that could not get its
#: lock; it is left alone.
UNCOMMITTED_GRACE = 600.0


@dataclass
class Removal:
    """What one prune/clear did (or, with ``dry_run``, would do)."""

    directory: Path
    removed: list[tuple[str, int]] = field(default_factory=list)  # (entry name or file, bytes freed)
    in_use: list[str] = field(default_factory=list)  # entries skipped because another process holds them
    errors: list[str] = field(default_factory=list)
    bytes_before: int = 0
    dry_run: bool = False
    entries_removed: int = 0  # kernels among ``removed`` (the rest are loose files)

    @property
    def freed(self) -> int:
        """Bytes freed (or that would be)."""
        return sum(n for _, n in self.removed)

    @property
    def bytes_after(self) -> int:
        """Bytes left (disk usage: a hard-linked binary counts once, and is freed with its last link)."""
        return self.bytes_before - self.freed

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"directory": str(self.directory), "dry_run": self.dry_run, "bytes_before": self.bytes_before,
                "entries_removed": self.entries_removed,
                "bytes_after": self.bytes_after, "freed": self.freed,
                "removed": [{"name": n, "bytes": b} for n, b in self.removed], "in_use": self.in_use,
                "errors": self.errors}


def remove_entry(store: KernelStore, entry: Entry, unused_since: float | None = None) -> str:
    """Delete one entry's files, ``.json`` first, holding its lock. Returns "removed", "in use" (another
    process holds the lock), "used" (loaded again since ``unused_since``) or "error: ..."."""
    with try_exclusive(store, entry.name) as held:
        if not held:
            return "in use"
        json_path = entry.path(JSON_SUFFIX)
        if unused_since is not None:
            try:
                if json_path.stat().st_mtime > unused_since:
                    return "used"
            except FileNotFoundError:
                pass  # uncommitted (or already removed): nothing can load it, go on
            except OSError as e:
                return f"error: {e}"
        for suffix in (JSON_SUFFIX, *[s for s in entry_suffixes(entry.binary_suffix) if s != JSON_SUFFIX]):
            try:
                os.unlink(entry.path(suffix))
            except FileNotFoundError:
                continue
            except OSError as e:
                return f"error: cannot remove {entry.path(suffix)}: {e.strerror or e}"
    fsio.fsync_dir(store.path)
    return "removed"


def _remove_file(path: Path) -> str | None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot remove {path}: {e.strerror or e}"
    return None


class _Ledger:
    """Bytes freed by unlinking files, predicted from one scan's link counts: the binaries of a batched
    compile are hard links of one file, whose bytes are freed only with its last link."""

    def __init__(self, listing: Listing):
        self.files = listing.files
        self.links = {f.inode: f.links for f in listing.files.values()}
        self.total = listing.total_bytes

    def unlink(self, paths: list[Path]) -> int:
        """Account for unlinking ``paths``; return the bytes that frees."""
        freed = 0
        for p in paths:
            f = self.files.get(p)
            if f is None:
                continue
            self.links[f.inode] -= 1
            if self.links[f.inode] == 0:  # links outside the scan keep the count above 0: nothing freed
                freed += f.size
        self.total -= freed
        return freed


def _garbage(listing: Listing, now: float, older_than: float | None) -> list[tuple[Path | Entry, float]]:
    """(item, mtime) of everything no build will load, oldest first."""
    items: list[tuple[Path | Entry, float]] = []
    for p in listing.quarantine + [t for t in listing.temporaries if fsio.is_stale_tmp(t, now)]:
        try:
            items.append((p, p.lstat().st_mtime))
        except OSError:
            continue
    for e in listing.entries:
        newest = max(e.mtimes.values(), default=0.0)
        if not e.committed and now - newest > UNCOMMITTED_GRACE:
            items.append((e, newest))
    if older_than is not None:
        items = [i for i in items if i[1] < now - older_than]
    return sorted(items, key=lambda i: i[1])


def _remove(store: KernelStore, listing: Listing, ledger: _Ledger, item: Path | Entry, result: Removal,
            unused_since: float | None = None) -> None:
    """Remove one entry or loose file (or, with ``result.dry_run``, pretend to) and record the outcome."""
    if isinstance(item, Entry):
        label, paths = item.name, listing.entry_files([item])
        status = "removed" if result.dry_run else remove_entry(store, item, unused_since)
    else:
        label, paths = str(item.relative_to(listing.path)), [item]
        err = None if result.dry_run else _remove_file(item)
        status = f"error: {err}" if err else "removed"
    if status == "removed":
        result.removed.append((label, ledger.unlink(paths)))
        result.entries_removed += isinstance(item, Entry)
    elif status == "in use":
        result.in_use.append(label)
    elif status.startswith("error"):
        result.errors.append(status[len("error: "):])


def prune(directory: Path, max_size: int | None = None, older_than: float | None = None, *,
          protect: Collection[str] = (), dry_run: bool = False, now: float | None = None,
          binary_suffix: str = CPU_BINARY_SUFFIX) -> Removal:
    """Evict from one kernel_meta directory until it holds at most ``max_size`` bytes and/or nothing unused
    for longer than ``older_than`` seconds. Entries named in ``protect`` (the current run's kernels) stay.

    Garbage goes first, then committed entries from least to most recently used. Evictions are added to the
    directory's statistics. ``binary_suffix`` is the target's (cache/layout.py).
    """
    if max_size is None and older_than is None:
        raise ValueError("prune needs a size bound or an age")
    now = time.time() if now is None else now
    listing = scan(directory, binary_suffix)
    result = Removal(Path(directory), bytes_before=listing.total_bytes, dry_run=dry_run)
    if not listing.exists:
        return result
    store = KernelStore(Path(directory), create=False, binary_suffix=binary_suffix, secret=None)  # reads no entry
    ledger = _Ledger(listing)

    def over() -> bool:
        return max_size is not None and ledger.total > max_size

    # Garbage: all of it when an age is given (it has its own age), else only as much as the bound needs.
    for item, _mtime in _garbage(listing, now, older_than):
        if older_than is None and not over():
            break
        _remove(store, listing, ledger, item, result)

    live = sorted((e for e in listing.entries if e.committed and e.name not in protect),
                  key=lambda e: (e.last_used, e.built_at, e.name))
    for entry in live:
        too_old = older_than is not None and entry.last_used < now - older_than
        if not too_old and not over():
            if older_than is None:
                break  # LRU order: nothing after this one is needed to meet the bound
            continue
        _remove(store, listing, ledger, entry, result, unused_since=entry.last_used)
    _prune_manifests(store, listing, ledger, result, now, older_than)
    if result.removed and not dry_run:
        stats.add(Path(directory), evictions=result.entries_removed, evicted_bytes=result.freed)
    return result


def _prune_manifests(store: KernelStore, listing: Listing, ledger: _Ledger, result: Removal, now: float,
                     older_than: float | None) -> None:
    """Remove the graph manifests no warm start can use any more: those naming an entry that is gone (now
    or by this prune), those :func:`manifest.read` rejects (damaged, an older format, a name that is not
    its key), and with an age, those written longer ago than it. A manifest is
    only an index (a few KB): each graph or toolchain change leaves the old one behind, and deleting one
    costs at most one ordinary warm start of its graph, which writes it again."""
    gone = {label for label, _ in result.removed}
    present = {e.name for e in listing.entries if e.committed and e.name not in gone}
    for path in listing.manifests:
        found = manifest.read(listing.path, path.stem) if path.suffix == JSON_SUFFIX else None
        stale = found is None or any(item.name not in present for item in found.items)
        if not stale and older_than is not None:
            try:
                stale = path.lstat().st_mtime < now - older_than
            except OSError:
                continue  # removed meanwhile
        if stale:
            _remove(store, listing, ledger, path, result)


def clear(directory: Path, dry_run: bool = False, binary_suffix: str = CPU_BINARY_SUFFIX) -> Removal:
    """Remove every entry, graph manifest, quarantined file and stale temporary of one kernel_meta directory.

    Statistics, the memo of file-derived values (.memo.json) and lock files stay (as ``ccache -C`` keeps its
    statistics); entries in use are skipped and reported in ``in_use``. ``binary_suffix`` is the target's.
    """
    listing = scan(directory, binary_suffix)
    result = Removal(Path(directory), bytes_before=listing.total_bytes, dry_run=dry_run)
    if not listing.exists:
        return result
    store = KernelStore(Path(directory), create=False, binary_suffix=binary_suffix, secret=None)  # reads no entry
    ledger = _Ledger(listing)
    now = time.time()
    for item in [*listing.entries, *listing.quarantine, *listing.manifests,
                 *[p for p in listing.temporaries if fsio.is_stale_tmp(p, now)]]:
        _remove(store, listing, ledger, item, result)
    return result
