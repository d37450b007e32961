"""Every file and folder name of a ``kernel_meta`` directory, in one place.

A kernel_meta directory (``<root>/rank_<RANK_ID>/kernel_meta``, see :func:`opbuild.core.config.kernel_meta`) holds:

  * entries: ``<name>.info`` (the canonical descriptor, the whole key), ``<name>.json`` (the build result,
    written last: the commit marker) and ``<name><binary suffix>`` (the kernel, ``.so`` for the CPU target),
    where ``<name>`` matches :data:`NAME_RE` (``<op lower>_<HASH_CHARS hex>``);
  * :data:`TMP_DIR`: every temporary written into kernel_meta, renamed into place or swept;
  * :data:`LOCK_DIR`: ``<name>.lock`` per kernel (single-flight builds) and the load lock (cache/locks.py);
  * :data:`MANIFEST_DIR`: graph manifests ``<key>.json`` (cache/manifest.py);
  * :data:`QUARANTINE_DIR`: damaged files moved aside (cache/quarantine.py), never loaded again;
  * side files: :data:`STATS_FILE` (counters, cache/stats.py) and :data:`MEMO_FILE` (file-derived values,
    cache/statmemo.py).

Invariant: every path of kernel_meta that opbuild reads or writes is built from these names; a path of an
entry is built from a name that matched :data:`NAME_RE`, so it can never escape the directory.

The binary's suffix belongs to the target that builds the kernels, not to the cache: modules take it as a
parameter (``KernelStore(binary_suffix=...)``, ``scan(binary_suffix=...)``) and only default to
:data:`CPU_BINARY_SUFFIX`, the single definition until the target provides it.
"""

from __future__ import annotations

import re

#: Hex characters of sha256(.info) in an entry name.
HASH_CHARS = 32
#: The only acceptable entry name, ``<op lower>_<HASH_CHARS hex>``: no ``/``, ``.`` or ``..`` can occur in it, so
#: a path built from it stays inside kernel_meta. ``\Z``, not ``$``: ``$`` also matches before a final newline.
NAME_RE = re.compile(rf"([a-z0-9_]+)_([0-9a-f]{{{HASH_CHARS}}})\Z")

INFO_SUFFIX = ".info"  # the canonical descriptor
JSON_SUFFIX = ".json"  # the build result; written last, it commits the entry (also: a manifest's suffix)
LOCK_SUFFIX = ".lock"
LOADING_LOCK = "loading"  # .locks/loading.lock (cache/locks.py): not a kernel name, those are <op>_<hash>
STATS_LOCK = "stats"  # .locks/stats.lock (cache/stats.py)
#: The CPU target's binary suffix (a shared object). The target owns it; this is its one definition for now.
CPU_BINARY_SUFFIX = ".so"
#: The binary suffixes of every target (CPU shared objects, GPU cubins): one kernel_meta holds the entries of
#: both, and a scan for one target leaves the other's entries alone (admin/scan.py), never calling them orphans.
BINARY_SUFFIXES = (CPU_BINARY_SUFFIX, ".cubin")

TMP_DIR = ".tmp"
LOCK_DIR = ".locks"
MANIFEST_DIR = ".graphs"
QUARANTINE_DIR = "quarantine"
STATS_FILE = ".stats.json"
MEMO_FILE = ".memo.json"
#: Files of kernel_meta that are not entries: the statistics and the memo of file-derived values.
SIDE_FILES = frozenset({STATS_FILE, MEMO_FILE})


def entry_suffixes(binary_suffix: str = CPU_BINARY_SUFFIX) -> tuple[str, str, str]:
    """The suffixes of one entry's files, in publishing order except that ``.json`` (the commit) comes last
    when written: ``(.info, .json, binary)``."""
    return (INFO_SUFFIX, JSON_SUFFIX, binary_suffix)


def split_entry_file(file_name: str, binary_suffix: str = CPU_BINARY_SUFFIX) -> tuple[str, str] | None:
    """``"square_<hash>.so"`` -> ``("square_<hash>", ".so")``; None if it is not an entry file name."""
    for suffix in entry_suffixes(binary_suffix):
        if file_name.endswith(suffix):
            stem = file_name[: -len(suffix)]
            if NAME_RE.match(stem):
                return stem, suffix
    return None


__all__ = ["BINARY_SUFFIXES", "CPU_BINARY_SUFFIX", "HASH_CHARS", "INFO_SUFFIX", "JSON_SUFFIX", "LOADING_LOCK",
           "LOCK_DIR", "LOCK_SUFFIX",
           "MANIFEST_DIR", "MEMO_FILE", "NAME_RE", "QUARANTINE_DIR", "SIDE_FILES", "STATS_FILE", "STATS_LOCK",
           "TMP_DIR", "entry_suffixes", "split_entry_file"]
