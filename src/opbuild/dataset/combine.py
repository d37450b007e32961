"""Pipeline operations that reshape a dataset's rows or combine datasets (MindSpore's ``repeat``, ``take``,
``skip``, ``zip``, ``concat``, ``filter``, ``split``, ``rename``, ``project``); ``Dataset`` (core.py) exposes
them as methods."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import config
from .core import Dataset, Row, _check_int, _column_list

# Repetition r of epoch e reads the child's epoch e * _REPEAT_STRIDE + r: every repetition is reshuffled.
_REPEAT_STRIDE = 1 << 20


class RepeatDataset(Dataset):
    """The child's rows ``count`` times per epoch (-1: without end), each repetition reshuffled."""

    def __init__(self, child: Dataset, count: int | None) -> None:
        super().__init__(child)
        self.count = -1 if count is None else _check_int("repeat count", count, -1)
        if self.count == 0:
            raise ValueError("repeat count must be -1 (repeat without end) or a positive int, got 0")

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int | None:
        size = self._child._size()
        if self.count == -1:
            raise RuntimeError("the size of a dataset repeated without end is infinite; give repeat a count")
        return None if size is None else size * self.count

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        r = 0
        while self.count == -1 or r < self.count:
            yield from self._child._rows(epoch * _REPEAT_STRIDE + r, seed)
            r += 1


class _SliceDataset(Dataset):
    """The rows of the child from ``start`` to ``stop`` (None: to the end)."""

    def __init__(self, child: Dataset, start: int, stop: int | None) -> None:
        super().__init__(child)
        self.start, self.stop = start, stop

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int | None:
        size = self._child._size()
        if size is None:
            return None
        end = size if self.stop is None else min(size, self.stop)
        return max(0, end - self.start)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for k, row in enumerate(self._child._rows(epoch, seed)):
            if self.stop is not None and k >= self.stop:
                return
            if k >= self.start:
                yield row


def take(child: Dataset, count: int) -> Dataset:
    """The first ``count`` rows (-1: all)."""
    count = _check_int("take count", count, -1)
    if count == 0:
        raise ValueError("take count must be -1 (all rows) or a positive int, got 0")
    return _SliceDataset(child, 0, None if count == -1 else count)


def skip(child: Dataset, count: int) -> Dataset:
    """Every row after the first ``count``."""
    return _SliceDataset(child, _check_int("skip count", count, 0), None)


class ZipDataset(Dataset):
    """Rows of several datasets side by side (their columns must have distinct names); as many rows as the
    shortest."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        if len(datasets) < 2 or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("zip needs at least two datasets")
        super().__init__(datasets[0])
        self._depth = max(d._depth for d in datasets) + 1
        self.children = list(datasets)
        names = [n for d in datasets for n in d._column_names()]
        if len(set(names)) != len(names):
            raise ValueError(f"zip: the datasets have columns of the same name {names}; rename them first")
        self._names = names

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _size(self) -> int | None:
        sizes = [d._size() for d in self.children]
        return None if None in sizes else min(sizes)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for rows in zip(*(d._rows(epoch, seed) for d in self.children)):
            yield tuple(v for row in rows for v in row)


class ConcatDataset(Dataset):
    """The rows of several datasets one after another (same column names, in the same order)."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        if len(datasets) < 2 or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("concat needs datasets")
        super().__init__(datasets[0])
        self._depth = max(d._depth for d in datasets) + 1
        names = datasets[0]._column_names()
        for d in datasets[1:]:
            if d._column_names() != names:
                raise ValueError(f"concat: every dataset must have the columns {names}, got {d._column_names()}")
        self.children = list(datasets)

    def _column_names(self) -> list[str]:
        return self.children[0]._column_names()

    def _size(self) -> int | None:
        sizes = [d._size() for d in self.children]
        return None if None in sizes else sum(sizes)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for d in self.children:
            yield from d._rows(epoch, seed)


class FilterDataset(Dataset):
    """The rows for which ``predicate(*input_columns)`` is true."""

    def __init__(self, child: Dataset, predicate: Callable[..., Any], input_columns: Any) -> None:
        super().__init__(child)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {type(predicate).__name__}")
        names = child._column_names()
        cols = _column_list("input_columns", input_columns) or names
        missing = [c for c in cols if c not in names]
        if missing:
            raise ValueError(f"filter: input_columns {missing} are not columns of the dataset {names}")
        self.predicate, self._idx = predicate, [names.index(c) for c in cols]

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> None:
        return None  # known only by running the predicate over the data (get_dataset_size does)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for row in self._child._rows(epoch, seed):
            keep = self.predicate(*(row[i] for i in self._idx))
            if bool(np.asarray(keep)):
                yield row


class RenameDataset(Dataset):
    """Columns renamed (``input_columns[i]`` becomes ``output_columns[i]``)."""

    def __init__(self, child: Dataset, input_columns: Any, output_columns: Any) -> None:
        super().__init__(child)
        old, new = _column_list("input_columns", input_columns), _column_list("output_columns", output_columns)
        if not old or not new or len(old) != len(new):
            raise ValueError(f"rename: input_columns {old} and output_columns {new} must have the same length")
        names = child._column_names()
        missing = [c for c in old if c not in names]
        if missing:
            raise ValueError(f"rename: input_columns {missing} are not columns of the dataset {names}")
        mapping = dict(zip(old, new))
        self._names = [mapping.get(n, n) for n in names]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"rename: the result has duplicate column names {self._names}")

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _size(self) -> int | None:
        return self._child._size()

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        return self._child._rows(epoch, seed)


class ProjectDataset(Dataset):
    """Only ``columns``, in that order."""

    def __init__(self, child: Dataset, columns: Any) -> None:
        super().__init__(child)
        names = child._column_names()
        cols = _column_list("columns", columns)
        if not cols:
            raise ValueError("project: columns must name at least one column")
        missing = [c for c in cols if c not in names]
        if missing:
            raise ValueError(f"project: columns {missing} are not columns of the dataset {names}")
        self._names, self._idx = cols, [names.index(c) for c in cols]

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _size(self) -> int | None:
        return self._child._size()

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for row in self._child._rows(epoch, seed):
            yield tuple(row[i] for i in self._idx)


class _RowsDataset(Dataset):
    """A fixed list of the child's rows (one split of :func:`split`), read from the child's first epoch."""

    def __init__(self, child: Dataset, positions: np.ndarray, cache: dict) -> None:
        super().__init__(child)
        self.positions, self._cache = positions, cache

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int:
        return len(self.positions)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        rows = self._cache.get("rows")
        if rows is None:
            rows = self._cache["rows"] = list(self._child._rows(0, seed))
        for p in self.positions:
            yield rows[int(p)]


def split_sizes(sizes: Sequence[Any], total: int) -> list[int]:
    """MindSpore's split sizes: ints summing to ``total``, or fractions in (0, 1] summing to 1, rounded, the
    rounding difference going to the first split (or taken from the first split large enough)."""
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"split: sizes must be a non-empty list of ints or of floats, got {sizes!r}")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes) or sum(sizes) != total:
            raise ValueError(f"split: int sizes must be positive and sum to the dataset size {total}, got {sizes}")
        return list(sizes)
    if not all(isinstance(s, float) for s in sizes):
        raise TypeError(f"split: sizes must be all ints or all floats, got {sizes!r}")
    if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0, abs_tol=1e-6):
        raise ValueError(f"split: float sizes must be in (0, 1] and sum to 1, got {sizes}")
    out = [round(s * total) for s in sizes]
    if any(n == 0 for n in out):
        raise RuntimeError(f"split: a split of {sizes} of {total} rows would be empty")
    diff = sum(out) - total
    if diff < 0:
        out[0] -= diff
    elif diff > 0:
        for i, n in enumerate(out):
            if n - diff >= 1:
                out[i] -= diff
                break
    return out


def split(child: Dataset, sizes: Sequence[Any], randomize: bool = True) -> list[Dataset]:
    """Split ``child`` into datasets of ``sizes`` rows (see :func:`split_sizes`); with ``randomize`` the rows
    are assigned by a permutation drawn from the dataset seed, else in order."""
    if not isinstance(randomize, bool):
        raise TypeError(f"split: randomize must be a bool, got {randomize!r}")
    total = child.get_dataset_size()
    counts = split_sizes(sizes, total)
    order = (np.random.default_rng([config.get_seed(), child._depth, 7]).permutation(total) if randomize
             else np.arange(total))
    cache: dict = {}
    out, start = [], 0
    for n in counts:
        out.append(_RowsDataset(child, order[start:start + n], cache))
        start += n
    return out
