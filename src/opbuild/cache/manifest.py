"""Graph manifests: the warm start of a whole graph from one small file.

Naming a kernel means building its complete descriptor, which needs the toolchain's identity (finding the
compiler, its version, the BLAS, ``/proc/cpuinfo``) and the digests of the code generators, then encoding
and hashing it: more than reading and loading the binaries (docs/benchmarks.md).
After a build whose kernels all live in the persistent store, ``kernel_meta/.graphs/<key>.json`` records,
for each distinct kernel of the graph in order, its entry name, the sha256 of its descriptor (``.info``) and
of its ``.json``, and its binary's size and sha256, plus the files of the toolchain with their stat.

The key hashes the graph's kernels (op, attributes, input and output types) with a *fingerprint* of the
settings a descriptor is derived from (cache/identity.py: ``manifest_fingerprint`` and ``manifest_key``),
observed without touching a file of the graph: opbuild's version and
source directory, ``CC``, ``OPBUILD_CFLAGS``, ``OPBUILD_BLAS``, ``OPBUILD_OPENMP``, ``PATH`` and every
directory on it (a compiler installed earlier on the PATH changes a directory's mtime), ``sys.path`` (where
NumPy and the BLAS packages are found; its entries are not stat-ed: the script's own directory is among them
and may change all the time) and the boot id (the CPU's feature flags cannot change without a reboot).

The files are checked after the manifest is read, like a ccache manifest's include files: the manifest records
the toolchain's files (the compiler as found on PATH, followed through its symlinks, and the BLAS) and the
sources the graph's descriptors are derived from (which the builder lists and passes in, builder/manifests.py:
the target's ``codegen_files`` of the graph's ops, the definition the per-kernel key uses, and the modules
deciding the rest of a descriptor; the cache imports none of them), each with its inode,
size and mtime, and every one must still match. Deriving the source list walks every emitter's code
(targets/cpu/sources.py); the ordinary path, which writes the manifest, does that walk anyway to name the kernels,
while the warm start only stats the list it reads. An edit to a source changes its stat and sends the build
down the ordinary path, which rewrites the manifest under the same key; a new module that starts shaping the
C can only do so through an edit to a listed one (the emitter that now calls it).

A warm build with a matching manifest verifies every entry against it as strictly as a lookup does (the
``.info`` and ``.json`` bytes hash to the recorded sha256s, the binary is a regular file of the recorded size
and sha256), and every row against the graph's kernel at its position (cache/rows.py: the row's number, op
and kernel digest, and the kernel the entry's ``.info`` describes), and loads it; anything that does not
match sends the whole build down the ordinary path, which writes a fresh manifest. A manifest is only ever an
index of verified entries: a damaged one is ignored, and deleting ``.graphs/`` costs one ordinary warm start per graph.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from . import fsio, identity, quarantine, rows
from .fsio import CorruptFile
from .layout import HASH_CHARS, JSON_SUFFIX, MANIFEST_DIR, NAME_RE, TMP_DIR
from .local import KernelStore

FORMAT = 4  # 4: rows numbered and bound to their kernel (cache/rows.py); 3: source files recorded with stats


class Item(NamedTuple):
    """One distinct kernel of a manifest (a named tuple: a manifest of a ResNet-50 builds 56 of them on every
    warm start, and a frozen dataclass's ``__init__`` costs ~4x a tuple's)."""

    name: str
    info_sha256: str
    json_sha256: str
    binary_sha256: str
    size: int
    kernel: str  # the kernel digest of the row's kernel (cache/rows.py)


@dataclass(frozen=True)
class Manifest:
    """A graph's kernels, in the order of their first node, and the toolchain files they were built with."""

    items: tuple[Item, ...]
    toolchain: tuple[tuple[str, tuple[int, int, int, int] | None], ...]  # (path, stat signature)
    sources: tuple[tuple[str, tuple[int, int, int, int] | None], ...]  # (path, stat signature)
    blas: str | None  # the BLAS library the kernels link, to preload before opening them


_sig = identity._sig  # a file's stat signature, as the fingerprint observes files


def fingerprint(version: str, abi: int) -> str:
    """The fingerprint of this manifest format (:func:`.identity.manifest_fingerprint`: the settings the
    descriptors of a graph are derived from, observed cheaply); the files are checked against the manifest."""
    return identity.manifest_fingerprint(version, abi, FORMAT)


def path_of(store_dir: Path | str, key: str) -> str:
    return os.path.join(str(store_dir), MANIFEST_DIR, key + JSON_SUFFIX)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _item(row: object, position: int) -> Item:
    """The ``kernels`` row at ``position``, checked as strictly as a lookup checks a name: a manifest is
    hostile input."""
    if not isinstance(row, list) or len(row) != 7:
        raise CorruptFile(errno.EINVAL, "a kernels row is not [position, name, info_sha256, json_sha256, "
                          "binary_sha256, size, kernel digest]")
    pos, name, info_sha, json_sha, bin_sha, size, kernel = row
    if not isinstance(name, str) or NAME_RE.match(name) is None:
        # Every path is derived from the name: ``../../x/conv2d_<hash>`` would load a binary from anywhere.
        raise CorruptFile(errno.EINVAL, f"names {str(name)[:80]!r}, which is not a kernel name (<op>_<hex>)")
    # Spelled out rather than all(<generator>): this runs for every kernel of every warm start.
    if not (type(info_sha) is str and type(json_sha) is str and type(bin_sha) is str
            and len(info_sha) == len(json_sha) == len(bin_sha) == 64):
        raise CorruptFile(errno.EINVAL, f"the sha256 values of {name} are not 64-character strings")
    if info_sha[:HASH_CHARS] != name[-HASH_CHARS:]:
        raise CorruptFile(errno.EINVAL, f"the .info sha256 of {name} does not match its name")
    if not _is_int(size) or size < 0:
        raise CorruptFile(errno.EINVAL, f"the binary size of {name} is not a non-negative integer")
    if why := rows.row_problem(pos, position, name, kernel):
        raise rows.corrupt(why)
    return Item(name, info_sha, json_sha, bin_sha, size, kernel)


def _file_row(row: object) -> tuple[str, tuple[int, int, int, int] | None]:
    if not isinstance(row, list) or len(row) != 2 or not isinstance(row[0], str):
        raise CorruptFile(errno.EINVAL, "a toolchain or sources row is not [path, stat signature]")
    sig = row[1]
    if sig is not None and not (isinstance(sig, list) and len(sig) == 4 and all(map(_is_int, sig))):
        raise CorruptFile(errno.EINVAL, f"the stat signature of {row[0]} is not four integers")
    return row[0], tuple(sig) if sig is not None else None


def load(path: str, key: str) -> Manifest:
    """The manifest at ``path`` (named ``key``), checked: ``FileNotFoundError`` if absent, else
    :class:`~.fsio.CorruptFile` saying what is wrong (not a regular file, not JSON, another format, a key
    that is not its name, a kernel name that is not one, malformed fields). Checks no entry: see
    :func:`problems` and ``KernelStore.check``."""
    data = fsio.read_json(path)
    if data.get("format") != FORMAT:
        raise CorruptFile(errno.EINVAL, f"format {str(data.get('format'))[:20]}, not {FORMAT} (written by another "
                          "opbuild: no warm start can use it)", path)
    if data.get("key") != key:
        raise CorruptFile(errno.EINVAL, "its key is not its file name", path)
    kernels, toolchain, blas = data.get("kernels"), data.get("toolchain"), data.get("blas")
    sources = data.get("sources")
    if not isinstance(kernels, list) or not isinstance(toolchain, list) or not (blas is None or isinstance(blas, str)):
        raise CorruptFile(errno.EINVAL, "kernels, toolchain or blas missing or of the wrong type", path)
    if not isinstance(sources, list) or not sources:
        # Never empty: every graph has code generators, and an empty list would check nothing.
        raise CorruptFile(errno.EINVAL, "sources missing, empty or of the wrong type", path)
    try:
        return Manifest(tuple(_item(row, i) for i, row in enumerate(kernels)),
                        tuple(_file_row(row) for row in toolchain), tuple(_file_row(row) for row in sources),
                        blas or None)
    except CorruptFile as e:
        raise CorruptFile(e.errno, e.strerror, path) from None


def read(store_dir: Path | str, key: str) -> Manifest | None:
    """The manifest ``key`` of a store, or None (absent, unreadable or damaged: never an error)."""
    try:
        return load(path_of(store_dir, key), key)
    except OSError:  # FileNotFoundError, CorruptFile, EACCES, ...
        return None


def blas_problem(blas: str, known: Collection[str]) -> str | None:
    """Why a manifest's ``blas`` path is unacceptable (not in ``known``, the libraries of the BLAS providers
    found here, which the target lists: the cache imports no target), or None. A build never loads it anyway:
    it preloads only the BLAS the toolchain resolves (builder/manifests.py)."""
    if blas in known:
        return None
    return f"names {blas[:200]!r} as its BLAS, which is no BLAS provider's library here"


def problems(store: KernelStore, path: str, known_blas: Collection[str] = ()) -> str | None:
    """Why the manifest file at ``path`` in ``store``'s ``.graphs/`` is no sound index, or None: it must load
    (:func:`load`: rows numbered in order) and every entry it names must be present, match the recorded sha256
    values and size and describe the kernel its row records (``opbuild cache verify``), and its BLAS, if it
    names one, must be in ``known_blas``."""
    key = os.path.basename(path)
    if not key.endswith(JSON_SUFFIX):
        return "not a manifest (<key>.json)"
    try:
        found = load(path, key[: -len(JSON_SUFFIX)])
    except OSError as e:
        return e.strerror or str(e)
    if found.blas is not None and (why := blas_problem(found.blas, known_blas)):
        return why
    for item in found.items:
        hit = store.check(item.name, item.info_sha256, item.json_sha256, item.binary_sha256, item.size,
                          functools.partial(rows.describes, digest=item.kernel))
        if hit.status != "hit":
            return f"entry {item.name}: {hit.reason}"
    return None


def drop_naming(store_dir: Path | str, names: set[str]) -> int:
    """Remove the manifests that name any of ``names`` (entries a build just quarantined and rebuilt: their
    ``.json`` changed, so those manifests can serve no warm start and ``verify`` would report them); returns
    how many. Runs only when something was repaired: it reads every manifest of the store."""
    gdir = os.path.join(str(store_dir), MANIFEST_DIR)
    try:
        found = [d for d in os.scandir(gdir) if d.name.endswith(JSON_SUFFIX)]
    except OSError:
        return 0
    dropped = 0
    for d in found:
        try:
            stale = any(item.name in names for item in load(d.path, d.name[: -len(JSON_SUFFIX)]).items)
        except OSError:
            continue  # damaged: verify reports it, prune removes it
        if stale:
            with contextlib.suppress(OSError):
                os.unlink(d.path)
                dropped += 1
    return dropped


def files_unchanged(manifest: Manifest) -> bool:
    """Whether every toolchain and source file of a manifest still has its recorded inode, size and mtime."""
    return all(_sig(path) == sig for path, sig in manifest.toolchain) and \
        all(_sig(path) == sig for path, sig in manifest.sources)


def write(store_dir: Path | str, key: str, items: Sequence[Item], toolchain_files: Sequence[str],
          blas: str | None, sources: Sequence[str]) -> None:
    """Write manifest ``key`` atomically, recording ``sources`` (the files the graph's descriptors derive from,
    which the builder lists: builder/manifests.py ``source_files``) with
    their stats; a failure (read-only or full disk) only costs the fast path."""
    payload = {
        "format": FORMAT, "key": key,
        "toolchain": [[p, _sig(p)] for p in toolchain_files if p], "blas": blas,
        "sources": [[p, _sig(p)] for p in sources],
        "kernels": [[n, i.name, i.info_sha256, i.json_sha256, i.binary_sha256, i.size, i.kernel]
                    for n, i in enumerate(items)],
    }
    store_dir = Path(store_dir)
    path = Path(path_of(store_dir, key))
    data = json.dumps(payload, separators=(",", ":")).encode()
    try:
        (store_dir / MANIFEST_DIR).mkdir(exist_ok=True)
        fsio.atomic_write(path, data, fsync=False, tmp_dir=store_dir / TMP_DIR)
    except OSError:
        # A rename cannot replace a directory planted in the manifest's place: move it aside and try again
        # once, or this graph would never get its fast path back. Otherwise (read-only or full disk) give up.
        if quarantine.is_regular(path) is False and quarantine.move(store_dir, path, "not a regular file"):
            with contextlib.suppress(OSError):
                fsio.atomic_write(path, data, fsync=False, tmp_dir=store_dir / TMP_DIR)


__all__ = ["MANIFEST_DIR", "Item", "Manifest", "blas_problem", "drop_naming", "files_unchanged", "fingerprint",
           "load", "problems", "read", "write"]
