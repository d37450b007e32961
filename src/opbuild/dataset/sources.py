"""Source datasets: ``NumpySlicesDataset`` (arrays sliced along their first axis) and ``GeneratorDataset``
(rows from Python code), with MindSpore's sampling rules (shuffle default, sharding, ``num_samples``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .core import Dataset, Row, _check_int, _column_list
from .py_objects import column_value
from .samplers import IndexSampler, Sampler, sample_indices


def _check_shard_options(shuffle: bool | None, num_shards: int | None, shard_id: int | None,
                         num_samples: int | None) -> None:
    """MindSpore's argument checks: shard_id needs num_shards and the reverse (RuntimeError, as MindSpore),
    shard_id in [0, num_shards - 1] (ValueError)."""
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"shuffle must be a bool or None, got {shuffle!r}")
    if num_samples is not None:
        _check_int("num_samples", num_samples, 0)
    if num_shards is not None:
        _check_int("num_shards", num_shards, 1)
        if shard_id is None:
            raise RuntimeError("num_shards is given but shard_id is not: pass both (shard_id in [0, num_shards-1])")
        _check_int("shard_id", shard_id, 0, num_shards - 1)
    elif shard_id is not None:
        raise RuntimeError("shard_id is given but num_shards is not: pass both")


def _sampled_size(num_rows: int, num_shards: int | None, num_samples: int | None) -> int:
    n = -(-num_rows // num_shards) if num_shards is not None else num_rows
    return min(n, num_samples) if num_samples else n


class _RandomAccessSource(Dataset):
    """A source whose rows are read by index, so it can be shuffled and sharded, or read through a sampler
    (dataset/samplers.py; exclusive with ``shuffle`` and sharding, as in MindSpore)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> _RandomAccessSource:
        obj = super().__new__(cls)
        obj._ctor_args = (args, kwargs)  # what serialize() writes, to rebuild the source
        return obj

    def __init__(self, shuffle: bool | None, num_shards: int | None, shard_id: int | None,
                 num_samples: int | None, sampler: Any = None) -> None:
        super().__init__()
        _check_shard_options(shuffle, num_shards, shard_id, num_samples)
        if sampler is not None:
            if not isinstance(sampler, Sampler) and hasattr(sampler, "__len__") and hasattr(sampler, "__getitem__"):
                sampler = IndexSampler(sampler)  # a list of indices, or an object that indexes like one
            if not isinstance(sampler, Sampler):
                raise TypeError(f"sampler must be a dataset sampler (SequentialSampler, RandomSampler, ...) or a "
                                f"sequence of row indices, got {type(sampler).__name__}")
            if shuffle is not None:
                raise RuntimeError("sampler and shuffle cannot be specified at the same time")
            if num_shards is not None:
                raise RuntimeError("sampler and sharding (num_shards/shard_id) cannot be specified at the same "
                                   "time; use a DistributedSampler")
            if num_samples is not None:
                raise RuntimeError("sampler and num_samples cannot be specified at the same time; give the "
                                   "sampler num_samples")
        self._sampler = sampler
        bind = getattr(sampler, "_bind_source", None)
        if bind is not None:  # PKSampler reads the rows' classes
            bind(self)
        # MindSpore's table: shuffle=None on a random-accessible source means shuffled.
        self._shuffle = True if shuffle is None else shuffle
        self._num_shards = num_shards
        self._shard_id = shard_id
        self._num_samples = num_samples

    def _num_rows(self) -> int:
        raise NotImplementedError

    def _row(self, index: int) -> Row:
        raise NotImplementedError

    def _size(self) -> int:
        if self._sampler is not None:
            return self._sampler.size(self._num_rows())
        return _sampled_size(self._num_rows(), self._num_shards, self._num_samples)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        if self._sampler is not None:
            indices = self._sampler.indices(self._num_rows(), self._rng(epoch, seed))
        else:
            indices = sample_indices(self._num_rows(), self._shuffle, self._num_shards, self._shard_id,
                                     self._num_samples, self._rng(epoch, seed))
        for i in indices:
            yield self._row(int(i))


class NumpySlicesDataset(_RandomAccessSource):
    """Rows sliced from in-memory data along the first axis (``mindspore.dataset.NumpySlicesDataset``).

    ``data``: a list (converted to one array: one column), a tuple (one column per element), a dict (one
    column per key, named by the key), or one array. Columns are named ``column_0, column_1, ...`` unless
    ``column_names`` is given (it overrides dict keys too). Every column must have the same length.

    ``shuffle`` defaults to True, as in MindSpore (None means shuffled for this source); the order follows the
    dataset seed (:mod:`opbuild.dataset.config`) and changes every epoch. ``num_shards``/``shard_id`` select
    one shard (see :func:`sample_indices`); ``num_samples`` caps the rows per epoch; ``sampler`` (a
    dataset sampler) replaces those three; ``num_parallel_workers`` is accepted and ignored.
    """

    def __init__(self, data: Any, column_names: str | Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        names, columns = self._columns_of(data)
        given = _column_list("column_names", column_names)
        if given is not None:
            if len(given) != len(columns):
                raise ValueError(f"column_names has {len(given)} names {given} but the data has {len(columns)} "
                                 "columns")
            names = given
        lengths = [len(c) for c in columns]
        if len(set(lengths)) > 1:
            detail = ", ".join(f"{n}: {k}" for n, k in zip(names, lengths))
            raise ValueError(f"NumpySlicesDataset: the columns have different lengths ({detail}); every column "
                             "must have one entry per row")
        self._names = names
        self._columns = columns

    @staticmethod
    def _columns_of(data: Any) -> tuple[list[str], list[np.ndarray]]:
        """Column names (defaults) and arrays of ``data``, following MindSpore's conversion rules."""
        if isinstance(data, Mapping):
            names = [str(k) for k in data]
            columns = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            columns = [np.asarray(v) for v in data]
            names = [f"column_{i}" for i in range(len(columns))]
        else:
            columns = [np.asarray(data)]
            names = ["column_0"]
        if not columns:
            raise ValueError("NumpySlicesDataset: data has no columns")
        for n, c in zip(names, columns):
            if c.ndim == 0:
                raise ValueError(f"NumpySlicesDataset: column {n!r} is a scalar; data is sliced along its first "
                                 "axis, so every column needs one")
            if c.dtype == object:
                raise TypeError(f"NumpySlicesDataset: column {n!r} does not convert to a regular array (ragged "
                                "or mixed data); use GeneratorDataset for rows of different shapes")
        return names, columns

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._columns[0])

    def _row(self, index: int) -> Row:
        return tuple(c[index, ...] for c in self._columns)


def _as_row(item: Any, names: list[str], types: list[np.dtype] | None) -> Row:
    """One item of a user source as a row: a tuple is one value per column, anything else one column."""
    values = item if isinstance(item, tuple) else (item,)
    if len(values) != len(names):
        raise RuntimeError(f"GeneratorDataset: the source gave a row of {len(values)} values but column_names "
                           f"names {len(names)} columns {names}")
    if types is None:
        return tuple(column_value(v) for v in values)
    return tuple(column_value(v, t) for v, t in zip(values, types))


class GeneratorDataset(_RandomAccessSource):
    """Rows from Python code (``mindspore.dataset.GeneratorDataset``).

    ``source`` is one of: a random-accessible object (``__getitem__`` and ``__len__``: rows read by index, so
    it can be shuffled and sharded, and ``shuffle=None`` means shuffled, as in MindSpore); a callable returning
    an iterator (a generator function, called once per epoch); or an iterable (``iter(source)`` per epoch).
    The last two are read in order: ``shuffle=True``, ``num_shards`` or ``sampler`` on them is an error, as in
    MindSpore. Each row is a tuple with one value per column (a single non-tuple value is one column).

    ``column_names`` is required (MindSpore requires it or a schema); ``column_types`` casts each column.
    ``sampler`` (random-accessible sources) is a dataset sampler; ``schema`` is not supported; workers and
    multiprocessing are accepted and ignored.
    """

    def __init__(self, source: Any, column_names: str | Sequence[str] | None = None,
                 column_types: Sequence[Any] | None = None, schema: Any = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, python_multiprocessing: bool = True,
                 max_rowsize: int | None = None) -> None:
        if schema is not None:
            raise NotImplementedError("GeneratorDataset: schema is not supported; pass column_names (and "
                                      "column_types)")
        names = _column_list("column_names", column_names)
        if not names:
            raise ValueError("GeneratorDataset: column_names is required (one name per value of a row)")
        self._random_access = hasattr(source, "__getitem__") and not isinstance(source, (str, bytes))
        if not self._random_access:
            if not callable(source) and not isinstance(source, Iterable):
                raise TypeError(f"GeneratorDataset: source must be random-accessible (__getitem__ and __len__), "
                                f"a callable returning an iterator, or an iterable; got {type(source).__name__}")
            for arg, val in (("shuffle", shuffle), ("num_shards", num_shards), ("sampler", sampler)):
                if val:
                    raise ValueError(f"GeneratorDataset: {arg} needs a random-accessible source (with __getitem__ "
                                     f"and __len__); {type(source).__name__} is read in order")
        elif not hasattr(source, "__len__"):
            raise TypeError(f"GeneratorDataset: the random-accessible source {type(source).__name__} needs "
                            "__len__ too")
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if not self._random_access:
            self._shuffle = False
        self._types = None
        if column_types is not None:
            if len(column_types) != len(names):
                raise ValueError(f"column_types has {len(column_types)} entries for {len(names)} columns")
            self._types = [np.dtype(getattr(t, "np_dtype", t)) for t in column_types]
        self._source = source
        self._names = names

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._source)

    def _row(self, index: int) -> Row:
        return _as_row(self._source[index], self._names, self._types)

    def _size(self) -> int | None:
        return super()._size() if self._random_access else None

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        if self._random_access:
            yield from super()._rows(epoch, seed)
            return
        it: Iterable = self._source() if callable(self._source) else self._source
        for n, item in enumerate(it):
            if self._num_samples and n >= self._num_samples:
                return
            yield _as_row(item, self._names, self._types)

