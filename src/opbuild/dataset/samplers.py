"""Samplers (``mindspore.dataset``'s ``SequentialSampler``, ``RandomSampler``, ``DistributedSampler``,
``SubsetRandomSampler``, ``SubsetSampler``): which rows of a random-access source one epoch reads, in which
order. A source given a sampler takes neither ``shuffle`` nor ``num_shards``/``shard_id`` (MindSpore's rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import _check_int


def sample_indices(num_rows: int, shuffle: bool, num_shards: int | None, shard_id: int | None,
                   num_samples: int | None, rng: np.random.Generator) -> np.ndarray:
    """The row indices one epoch reads, as MindSpore's RandomSampler / SequentialSampler /
    DistributedSampler choose them.

    With shards, every shard takes ``ceil(num_rows / num_shards)`` rows, shard ``i`` reading positions
    ``i, i + n, i + 2n, ...`` of the (permuted, if ``shuffle``) order, wrapping around to its start when
    ``num_rows`` does not divide evenly: a few rows are read twice per epoch so that every rank runs the same
    number of steps (MindSpore's even distribution). The permutation depends only on ``rng``, so shards built
    from the same seed are disjoint up to that wrap-around. ``num_samples`` caps the rows of one epoch (of
    one shard).
    """
    order = rng.permutation(num_rows) if shuffle else np.arange(num_rows)
    if num_shards is not None:
        if num_rows == 0:
            raise ValueError("cannot shard an empty dataset")
        per_shard = -(-num_rows // num_shards)
        order = order[(np.arange(per_shard) * num_shards + shard_id) % num_rows]
    if num_samples:  # MindSpore: 0 or None means every row
        order = order[:num_samples]
    return order


class Sampler:
    """Base class: ``indices(num_rows, rng)`` gives one epoch's row indices, ``size(num_rows)`` their count."""

    def __new__(cls, *args: object, **kwargs: object) -> Sampler:
        obj = super().__new__(cls)
        obj._ctor_args = (args, kwargs)  # what serialize() writes, to rebuild the sampler
        return obj

    def __init__(self, num_samples: int | None = None) -> None:
        self.num_samples = None if num_samples is None else _check_int("num_samples", num_samples, 0)

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        if type(self).__iter__ is not Sampler.__iter__:
            # A user's sampler (MindSpore's way: subclass Sampler, define __iter__ yielding row indices; it
            # may read self.dataset_size, which MindSpore sets before iterating).
            self.dataset_size = num_rows
            return np.fromiter((int(i) for i in self.__iter__()), np.int64)
        raise NotImplementedError(f"{type(self).__name__}: a user-defined sampler must define __iter__, "
                                  "yielding the row indices of an epoch")

    def __iter__(self) -> Any:
        raise TypeError(f"{type(self).__name__} is not iterable: its indices depend on the dataset's size")

    def indices(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        """The row indices of one epoch (with a child sampler: this sampler picks among the child's)."""
        child = getattr(self, "_child_sampler", None)
        if child is not None:
            pool = child.indices(num_rows, rng)
            order = pool[self._all(len(pool), rng)]
        else:
            order = self._all(num_rows, rng)
        limit = getattr(self, "num_samples", None)  # a user's subclass may not call Sampler.__init__
        return order[:limit] if limit else order

    def size(self, num_rows: int) -> int:
        """The number of rows one epoch reads."""
        n = len(self.indices(num_rows, np.random.default_rng(0)))
        limit = getattr(self, "num_samples", None)
        return min(n, limit) if limit else n

    def add_child(self, sampler: Sampler) -> None:
        """Chain ``sampler`` below this one: this sampler then samples from the indices the child gives."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"add_child: expected a dataset sampler, got {type(sampler).__name__}")
        if getattr(self, "_child_sampler", None) is not None:
            raise RuntimeError("add_child: this sampler already has a child sampler")
        self._child_sampler: Sampler | None = sampler

    def get_child(self) -> Sampler | None:
        """The child sampler added by :meth:`add_child` (None when there is none)."""
        return getattr(self, "_child_sampler", None)

    def get_num_samples(self) -> int | None:
        """``num_samples`` as given (None: every row)."""
        return self.num_samples


class SequentialSampler(Sampler):
    """``SequentialSampler(start_index=None, num_samples=None)``: rows in order from ``start_index``."""

    def __init__(self, start_index: int | None = None, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        self.start_index = 0 if start_index is None else _check_int("start_index", start_index, 0)

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        if num_rows and self.start_index >= num_rows:
            raise ValueError(f"SequentialSampler: start_index {self.start_index} is not below the number of rows "
                             f"{num_rows}")
        return np.arange(self.start_index, num_rows)


class RandomSampler(Sampler):
    """``RandomSampler(replacement=False, num_samples=None)``: a new permutation every epoch (with
    ``replacement``, ``num_samples`` (default: the number of rows) independent draws)."""

    def __init__(self, replacement: bool = False, num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        self.replacement = replacement

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        if self.replacement:
            return rng.integers(0, num_rows, self.num_samples or num_rows)
        return rng.permutation(num_rows)


class DistributedSampler(Sampler):
    """``DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=None, offset=-1)``: shard
    ``shard_id`` of ``num_shards`` (each takes ``ceil(rows / num_shards)`` rows, wrapping around), from a
    permutation shared by every shard when ``shuffle``. ``offset`` other than -1 is not supported."""

    def __init__(self, num_shards: int, shard_id: int, shuffle: bool = True, num_samples: int | None = None,
                 offset: int = -1) -> None:
        super().__init__(num_samples)
        self.num_shards = _check_int("num_shards", num_shards, 1)
        self.shard_id = _check_int("shard_id", shard_id, 0, self.num_shards - 1)
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedSampler: shuffle must be a bool, got {shuffle!r}")
        if offset != -1:
            raise NotImplementedError("DistributedSampler: offset is not supported; leave it at -1")
        self.shuffle = shuffle

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        return sample_indices(num_rows, self.shuffle, self.num_shards, self.shard_id, None, rng)


class IndexSampler(Sampler):
    """A plain object of row indices given as a sampler (a list, or any object with ``__len__`` and
    ``__getitem__``, as MindSpore takes): the rows at those indices, in that order, every epoch."""

    def __init__(self, source: Any) -> None:
        super().__init__()
        self.source = source

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        ids = np.array([int(self.source[i]) for i in range(len(self.source))], np.int64)
        bad = ids[(ids < 0) | (ids >= num_rows)]
        if bad.size:
            raise ValueError(f"sampler: index {int(bad[0])} is out of range for a dataset of {num_rows} rows")
        return ids


class SubsetSampler(Sampler):
    """``SubsetSampler(indices, num_samples=None)``: the rows at ``indices``, in that order."""

    def __init__(self, indices: Sequence[int], num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        arr = np.asarray(list(indices) if not isinstance(indices, np.ndarray) else indices)
        if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"{type(self).__name__}: indices must be a list of ints, got {indices!r}")
        self.subset = arr.astype(np.int64)

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        bad = self.subset[(self.subset < 0) | (self.subset >= num_rows)]
        if bad.size:
            raise ValueError(f"{type(self).__name__}: indices {bad.tolist()} are out of range for {num_rows} rows")
        return self.subset


class SubsetRandomSampler(SubsetSampler):
    """``SubsetRandomSampler(indices, num_samples=None)``: the rows at ``indices``, in a new random order
    every epoch."""

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        return rng.permutation(super()._all(num_rows, rng))


__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler", "SubsetSampler",
           "SubsetRandomSampler"]
