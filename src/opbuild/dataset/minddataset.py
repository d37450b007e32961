"""``MindDataset``: rows of MindRecord files (written by MindSpore or by :mod:`opbuild.mindrecord`) as a
dataset source, with MindSpore's columns, dtypes, order and sampling arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..mindrecord.filereader import open_shards
from .core import Row, _check_int
from .sources import _RandomAccessSource

_DTYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}


def _column_value(value: Any, spec: dict[str, Any]) -> np.ndarray:
    """A field as MindDataset yields it: scalars as 0-d arrays of the schema's dtype, strings as 0-d str
    arrays, bytes as a 1-element bytes array, ndarrays as stored."""
    kind = spec["type"]
    if "shape" in spec:
        return np.asarray(value, dtype=_DTYPES[kind])
    if kind == "bytes":
        return np.array([bytes(value)])
    if kind == "string":
        return np.array(str(value))
    return np.array(value, dtype=_DTYPES[kind])


class MindDataset(_RandomAccessSource):
    """``MindDataset(dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
    num_shards=None, shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None,
    cache=None)``: the rows of MindRecord files.

    ``dataset_files``: one file (every shard of its set is read, as MindSpore does) or a list of files (those
    only). Columns are the schema's fields by name, or ``columns_list`` in its order. ``shuffle`` defaults to
    True (MindSpore's ``Shuffle.GLOBAL``; its other ``Shuffle`` modes shuffle globally here too).
    ``padded_sample`` (a dict of the columns) is appended ``num_padded`` times, so that the rows split
    evenly over ``num_shards``. ``num_parallel_workers`` and ``cache`` are accepted and ignored. The row
    locations are read from the ``.db`` indexes when the dataset is created; rows are read when iterated.
    """

    def __init__(self, dataset_files: str | Sequence[str], columns_list: Sequence[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, sampler: Any = None, padded_sample: dict[str, Any] | None = None,
                 num_padded: int | None = None, num_samples: int | None = None, cache: Any = None) -> None:
        if shuffle is not None and not isinstance(shuffle, bool):
            shuffle = True  # a mindspore.dataset.Shuffle mode
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        self._shards = open_shards(list(dataset_files) if isinstance(dataset_files, tuple) else dataset_files)
        schema = self._shards[0].schema
        if columns_list is None:
            names = list(schema)
        else:
            if not isinstance(columns_list, (list, tuple)) or not columns_list:
                raise TypeError("columns_list must be a non-empty list of column names")
            unknown = [c for c in columns_list if c not in schema]
            if unknown:
                raise ValueError(f"MindDataset: columns_list names {unknown}, which are not fields of the files "
                                 f"(fields: {list(schema)})")
            names = list(columns_list)
        self._names = names
        self._specs = [schema[n] for n in names]
        self._index = [(s, k) for s, shard in enumerate(self._shards) for k in range(len(shard.rows))]
        self._padded = self._padding(padded_sample, num_padded, num_shards)
        self._files: dict[int, Any] = {}

    def _padding(self, padded_sample: dict[str, Any] | None, num_padded: int | None,
                 num_shards: int | None) -> list[Row]:
        if padded_sample is None and not num_padded:
            return []
        if padded_sample is None or num_padded is None:
            raise RuntimeError("padded_sample and num_padded go together: pass both")
        if num_shards is None:
            raise RuntimeError("padded_sample needs num_shards and shard_id (padding evens out the shards)")
        _check_int("num_padded", num_padded, 0)
        missing = [n for n in self._names if n not in padded_sample]
        if missing:
            raise ValueError(f"padded_sample lacks the columns {missing}")
        if (len(self._index) + num_padded) % num_shards:
            raise ValueError(f"the rows ({len(self._index)}) plus num_padded ({num_padded}) must divide by "
                             f"num_shards ({num_shards})")
        row = tuple(_column_value(padded_sample[n], s) for n, s in zip(self._names, self._specs))
        return [row] * num_padded

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._index) + len(self._padded)

    def _row(self, index: int) -> Row:
        if index >= len(self._index):
            return self._padded[index - len(self._index)]
        s, k = self._index[index]
        f = self._files.get(s)
        if f is None:
            f = self._files[s] = open(self._shards[s].path, "rb")  # noqa: SIM115  (kept open for the reads)
        row = self._shards[s].read_row(f, k, as_file_reader=False)
        return tuple(_column_value(row[n], spec) for n, spec in zip(self._names, self._specs))

    def __del__(self) -> None:
        for f in getattr(self, "_files", {}).values():
            f.close()
