"""Readers of text files, one row per line (``TextFileDataset``) or per CSV record (``CSVDataset``), with
MindSpore's columns, dtypes and sampling rules for datasets read from a list of files: ``shuffle`` a bool or
a :class:`Shuffle` mode (default ``Shuffle.GLOBAL``), no ``sampler``, and shards of contiguous rows.

Files are read when the dataset is created; the rows live in memory (the formats opbuild's training jobs
read are small)."""

from __future__ import annotations

import csv
import glob
import os
from collections.abc import Iterator, Sequence
from enum import Enum
from typing import Any

import numpy as np

from .core import Row, _check_int
from .sources import _RandomAccessSource


class Shuffle(str, Enum):
    """MindSpore's shuffle modes of file datasets. opbuild shuffles rows globally for every mode but
    ``FALSE`` (the files are read into memory, so a global shuffle costs nothing more)."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def shuffle_flag(who: str, shuffle: Any) -> bool:
    """``shuffle`` (a bool, None or a :class:`Shuffle` mode) as whether to shuffle."""
    if shuffle is None:
        return True
    if isinstance(shuffle, bool):
        return shuffle
    if isinstance(shuffle, Shuffle) or type(shuffle).__name__ == "Shuffle":
        return getattr(shuffle, "value", shuffle) != "false"
    raise TypeError(f"{who}: shuffle must be a bool or a Shuffle mode (ds.Shuffle.GLOBAL, ...), got {shuffle!r}")


def find_files(who: str, dataset_files: Any) -> list[str]:
    """``dataset_files`` (a path, a glob pattern or a list of paths) as the sorted list of existing files,
    as MindSpore lists them."""
    if isinstance(dataset_files, (str, os.PathLike)):
        pattern = os.fspath(dataset_files)
        files = sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
        if not files:
            raise ValueError(f"{who}: no file matches {pattern!r}; give an existing file, a glob pattern or a "
                             "list of files")
        return files
    if not isinstance(dataset_files, (list, tuple)) or not dataset_files:
        raise TypeError(f"{who}: dataset_files must be a file path, a glob pattern or a non-empty list of paths, "
                        f"got {dataset_files!r}")
    files = []
    for f in dataset_files:
        if not isinstance(f, (str, os.PathLike)):
            raise TypeError(f"{who}: dataset_files must hold paths, got {f!r}")
        if not os.path.isfile(f):
            raise ValueError(f"{who}: the file {os.fspath(f)} does not exist")
        files.append(os.fspath(f))
    return sorted(files)


# MindSpore's default num_parallel_workers: 8, capped to the machine's CPUs. It decides how the files'
# rows interleave, so an unshuffled read gives the order MindSpore gives on the same machine.
_DEFAULT_WORKERS = min(8, os.cpu_count() or 1)


class _FileRowsSource(_RandomAccessSource):
    """Rows read from files into memory, sampled as MindSpore samples its non-mappable file datasets: no
    sampler; with ``num_shards``, shard ``i`` reads the ``ceil(rows / num_shards)`` rows from position
    ``i * ceil(rows / num_shards)`` of the files' rows in order, wrapping around to the first rows.

    Unshuffled, the rows come in MindSpore's order: each file's part of the shard is a block handed to the
    next of ``num_parallel_workers`` readers (block ``k`` to reader ``k % workers``), and the readers' rows
    are taken in turn, one row from each reader that has rows left. Subclasses append each file's rows to
    ``_data`` and its row count to ``_file_rows``."""

    _names: list[str]

    def __init__(self, who: str, shuffle: Any, num_shards: int | None, shard_id: int | None,
                 num_samples: int | None, cache: Any, num_parallel_workers: int | None) -> None:
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        super().__init__(None, num_shards, shard_id, num_samples)
        self._shuffle = shuffle_flag(who, shuffle)
        if num_parallel_workers is not None:
            _check_int("num_parallel_workers", num_parallel_workers, 1)
        self._workers = num_parallel_workers or _DEFAULT_WORKERS
        self._data: list[Row] = []
        self._file_rows: list[int] = []

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._data)

    def _row(self, index: int) -> Row:
        return self._data[index]

    def _blocks(self) -> list[np.ndarray]:
        """The row positions of this shard, one array per (file, range) block, in MindSpore's order."""
        n = len(self._data)
        starts = np.cumsum([0, *self._file_rows])
        if self._num_shards is None:
            return [np.arange(a, b) for a, b in zip(starts[:-1], starts[1:]) if b > a]
        per = -(-n // self._num_shards)
        lo, hi = self._shard_id * per, (self._shard_id + 1) * per
        blocks = []
        while hi > lo:  # each pass over the files covers [lo, hi) clipped to one round of n rows
            base = (lo // n) * n
            for a, b in zip(starts[:-1] + base, starts[1:] + base):
                s, e = max(a, lo), min(b, hi)
                if e > s:
                    blocks.append(np.arange(s, e) % n)
            lo = base + n
        return blocks

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        n = len(self._data)
        if self._shuffle:
            order = self._rng(epoch, seed).permutation(n)
            if self._num_shards is not None and n:
                per = -(-n // self._num_shards)
                order = order[(np.arange(per) + self._shard_id * per) % n]
        elif n:
            readers: list[list[int]] = [[] for _ in range(self._workers)]
            for k, block in enumerate(self._blocks()):
                readers[k % self._workers].extend(block.tolist())
            order = np.asarray([r[i] for i in range(max(map(len, readers))) for r in readers if i < len(r)],
                               np.int64)
        else:
            order = np.zeros(0, np.int64)
        if self._num_samples:
            order = order[:self._num_samples]
        for i in order:
            yield self._data[int(i)]


class TextFileDataset(_FileRowsSource):
    """``TextFileDataset(dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None)``: one row per line of the files (sorted by name), column
    ``text`` (a string scalar, without the ``\\n``). Files are read as UTF-8; empty lines are skipped, as
    MindSpore skips them. Unshuffled, the files' rows are interleaved as MindSpore's parallel readers give
    them (see ``_FileRowsSource``)."""

    def __init__(self, dataset_files: str | Sequence[str], num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__("TextFileDataset", shuffle, num_shards, shard_id, num_samples, cache,
                         num_parallel_workers)
        self._names = ["text"]
        for path in find_files("TextFileDataset", dataset_files):
            with open(path, encoding="utf-8", newline="") as f:
                # Lines end at '\n' only: a '\r' before it stays in the row, as MindSpore reads them.
                lines = [(np.array(line),) for line in f.read().split("\n") if line]
            self._data += lines
            self._file_rows.append(len(lines))


def _default_kind(who: str, value: Any) -> type:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"{who}: column_defaults must hold ints, floats or strs (giving each column's type), "
                        f"got {value!r}")
    return type(value)


_CSV_DTYPES = {int: np.int32, float: np.float32}


class CSVDataset(_FileRowsSource):
    """``CSVDataset(dataset_files, field_delim=',', column_defaults=None, column_names=None, num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: one row
    per record, one scalar column per field. ``column_defaults`` (one int, float or str per column) sets each
    column's type (int32, float32 or string; strings when not given). As in MindSpore, an empty field is
    the empty string in a string column and an error in a numeric one.
    ``column_names`` names the columns; when it is None the first line of the first file is the header (and
    the first line of every file is skipped). Fields may be quoted (``"a,b"``, with ``""`` for a quote)."""

    def __init__(self, dataset_files: str | Sequence[str], field_delim: str = ",",
                 column_defaults: Sequence[Any] | None = None, column_names: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "CSVDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"{who}: field_delim must be one character other than a quote or a line break, got "
                             f"{field_delim!r}")
        kinds = None if column_defaults is None else [_default_kind(who, v) for v in column_defaults]
        names = None if column_names is None else list(column_names)
        if names is not None and (not all(isinstance(n, str) and n for n in names) or len(set(names)) < len(names)):
            raise ValueError(f"{who}: column_names must be distinct non-empty strings, got {column_names!r}")
        records: list[tuple[str, int, list[str]]] = []
        counts = []
        for path in find_files(who, dataset_files):
            with open(path, encoding="utf-8", newline="") as f:
                lines = [r for r in csv.reader(f, delimiter=field_delim) if r]
            if names is None:
                if not lines:
                    raise ValueError(f"{who}: {path} is empty, so it has no header line; pass column_names")
                names = list(lines[0])
            if column_names is None:
                lines = lines[1:]
            records += [(path, k, r) for k, r in enumerate(lines)]
            counts.append(len(lines))
        assert names is not None
        if kinds is not None and len(kinds) != len(names):
            raise ValueError(f"{who}: column_defaults has {len(kinds)} entries but there are {len(names)} columns "
                             f"{names}")
        self._names = names
        self._data = [self._convert(who, path, k, r, column_defaults) for path, k, r in records]
        self._file_rows = counts

    def _convert(self, who: str, path: str, line: int, fields: list[str], defaults: Sequence[Any] | None) -> Row:
        if len(fields) != len(self._names):
            raise ValueError(f"{who}: record {line} of {path} has {len(fields)} fields but there are "
                             f"{len(self._names)} columns {self._names}")
        if defaults is None:
            return tuple(np.array(v) for v in fields)
        row = []
        for name, text, default in zip(self._names, fields, defaults):
            kind = type(default)
            if kind is str:
                row.append(np.array(text))
                continue
            try:
                row.append(np.array(kind(text), _CSV_DTYPES[kind]))
            except ValueError:
                raise ValueError(f"{who}: field {name!r} of record {line} in {path} is {text!r}, not a "
                                 f"{kind.__name__} as column_defaults says") from None
        return tuple(row)


__all__ = ["Shuffle", "TextFileDataset", "CSVDataset", "shuffle_flag", "find_files"]
