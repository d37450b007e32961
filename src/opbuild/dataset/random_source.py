"""``RandomDataset``: rows of random values in the columns of a :class:`Schema` (MindSpore's source for
testing pipelines without data). Row ``i`` is a function of the dataset seed and ``i``, so the dataset can be
shuffled, sharded and sampled like the file readers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import config
from .core import Row, _check_int, _column_list
from .schema import Schema
from .sources import _RandomAccessSource

_MAX_ROWS = 1024
_RANDOM_TYPES = ("uint8", "int32", "float32")


def _schema_columns(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, str):
        schema = Schema(schema)
    if not isinstance(schema, Schema):
        raise TypeError(f"RandomDataset: schema must be a Schema or the path of a schema JSON file, got "
                        f"{type(schema).__name__}")
    if not schema.columns:
        raise ValueError("RandomDataset: the schema has no columns; add_column first")
    return [dict(c) for c in schema.columns]


class RandomDataset(_RandomAccessSource):
    """``RandomDataset(total_rows=None, schema=None, columns_list=None, num_samples=None,
    num_parallel_workers=None, cache=None, shuffle=None, num_shards=None, shard_id=None)``: ``total_rows``
    rows (None: a random count up to 1024, or the schema's ``numRows``) of the ``schema``'s columns (None: one
    to four random columns), restricted to ``columns_list``. Integers are uniform over their type's range
    capped to [0, 255], floats uniform in [0, 1); a column without a shape gets a random 1-D length."""

    def __init__(self, total_rows: int | None = None, schema: Any = None, columns_list: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, cache: Any = None,
                 shuffle: bool | None = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples)
        if cache is not None:
            raise NotImplementedError("RandomDataset: cache (a dataset cache server) is not supported")
        self._seed = config.get_seed()
        rng = np.random.default_rng([self._seed, 0x5EED])
        if schema is None:
            cols = [{"name": f"c{k}", "type": str(rng.choice(_RANDOM_TYPES)),
                     "shape": rng.integers(1, 8, rng.integers(1, 4)).tolist()} for k in range(rng.integers(1, 5))]
            rows_hint = None
        else:
            cols = _schema_columns(schema)
            rows_hint = schema.num_rows if isinstance(schema, Schema) else None
        wanted = _column_list("columns_list", columns_list)
        if wanted:
            missing = [c for c in wanted if c not in [col["name"] for col in cols]]
            if missing:
                raise ValueError(f"RandomDataset: columns_list names {missing}, which the schema does not have")
            cols = [next(col for col in cols if col["name"] == n) for n in wanted]
        for col in cols:
            if col["type"] in ("string", "bytes"):
                raise NotImplementedError(f"RandomDataset: column {col['name']!r} is of type {col['type']}; only "
                                          "numeric columns are generated")
            if not col.get("shape"):
                col["shape"] = [int(rng.integers(1, 33))]
        if total_rows is None:
            total_rows = rows_hint if rows_hint else int(rng.integers(1, _MAX_ROWS + 1))
        self._total = _check_int("total_rows", total_rows, 0)
        self._cols = cols

    def _column_names(self) -> list[str]:
        return [c["name"] for c in self._cols]

    def _num_rows(self) -> int:
        return self._total

    def _row(self, index: int) -> Row:
        rng = np.random.default_rng([self._seed, index])
        out = []
        for col in self._cols:
            dtype = np.dtype(col["type"])
            shape = tuple(col["shape"])
            if dtype.kind == "f":
                out.append(rng.random(shape).astype(dtype))
            elif dtype.kind == "b":
                out.append(rng.integers(0, 2, shape).astype(bool))
            else:
                high = min(int(np.iinfo(dtype).max), 255) + 1
                out.append(rng.integers(0, high, shape).astype(dtype))
        return tuple(out)

    def __repr__(self) -> str:
        return f"RandomDataset(total_rows={self._total}, columns={json.dumps(self._cols)})"


__all__ = ["RandomDataset"]
