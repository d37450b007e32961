"""Python dicts as column values, as MindSpore's datasets carry them: a source or a map may give a column a
dict (nested dicts too); it travels through the pipeline as a dict whose leaves are NumPy arrays, and the
iterators return it as a dict of arrays (``output_numpy=True``) or of Tensors."""

from __future__ import annotations

from typing import Any

import numpy as np


def column_value(value: Any, dtype: Any = None) -> Any:
    """``value`` as a column value: a dict stays a dict of column values (its lists of arrays stay lists, as
    MindSpore keeps a batch's rows handed to a dict); anything else becomes a NumPy array (of ``dtype``)."""
    if isinstance(value, dict):
        return {k: _item(v) for k, v in value.items()}
    return np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)


def _item(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _item(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, np.ndarray) for v in value):
        return [np.asarray(v) for v in value]
    return np.asarray(value)


def map_leaves(value: Any, fn: Any) -> Any:
    """``value`` (an array, or a dict/list of them) with ``fn`` applied to each array."""
    if isinstance(value, dict):
        return {k: map_leaves(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [map_leaves(v, fn) for v in value]
    return fn(value)
