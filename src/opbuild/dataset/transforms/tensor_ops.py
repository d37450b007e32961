"""Tensor-level data transforms of ``mindspore.dataset.transforms``: ``Mask`` with ``Relational``,
``Fill``, ``Slice``, ``PadEnd``, ``Concatenate``, ``Duplicate`` and ``Unique``."""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.dtypes import dtype_of


class Relational(enum.IntEnum):
    """Comparisons of ``Mask``."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_OPS = {Relational.EQ: operator.eq, Relational.NE: operator.ne, Relational.GT: operator.gt,
        Relational.GE: operator.ge, Relational.LT: operator.lt, Relational.LE: operator.le}


def _np_dtype(data_type: Any) -> np.dtype:
    try:
        return dtype_of(data_type).np_dtype
    except (TypeError, ValueError, KeyError):
        return np.dtype(data_type)


class Mask:
    """``Mask(operator, constant, dtype=mstype.bool_)``: ``data <op> constant`` elementwise, cast to
    ``dtype``."""

    def __init__(self, operator: Relational, constant: Any, dtype: Any = None) -> None:  # noqa: A002
        self.op, self.constant = _OPS[Relational(operator)], constant
        self.dtype = np.dtype(np.bool_) if dtype is None else _np_dtype(dtype)

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if (arr.dtype.kind == "U") != isinstance(self.constant, str):
            raise TypeError(f"Mask: cannot compare {arr.dtype} data with the constant {self.constant!r}")
        return np.asarray(self.op(arr, self.constant)).astype(self.dtype)


class Fill:
    """``Fill(fill_value)``: an array of the input's shape and dtype filled with ``fill_value``."""

    def __init__(self, fill_value: Any) -> None:
        self.fill_value = fill_value

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.dtype.kind == "U":
            return np.full(arr.shape, str(self.fill_value))
        return np.full(arr.shape, self.fill_value, dtype=arr.dtype)


class Slice:
    """``Slice(*slices)``: index the input with ``slices`` (ints, slices, lists of indices, ``None`` or
    ``Ellipsis``), one per leading axis."""

    def __init__(self, *slices: Any) -> None:
        # An int selects that index but keeps the axis (as a one-element list), as MindSpore does.
        self.index = tuple(slice(None) if s is None else (list(s) if isinstance(s, (list, tuple))
                                                          else [s] if isinstance(s, int) else s) for s in slices)

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        try:
            out = arr[self.index]
        except IndexError as e:
            raise IndexError(f"Slice: {self.index} does not index an array of shape {arr.shape} ({e})") from None
        return np.asarray(out).copy()


class PadEnd:
    """``PadEnd(pad_shape, pad_value=None)``: pad at the end of each axis (or truncate) to ``pad_shape``
    (None keeps that axis), with ``pad_value`` (0 or '' by default)."""

    def __init__(self, pad_shape: Sequence[int | None], pad_value: Any = None) -> None:
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if len(self.pad_shape) != arr.ndim:
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} axes, the input "
                             f"{arr.ndim}")
        shape = tuple(n if p is None else int(p) for n, p in zip(arr.shape, self.pad_shape, strict=True))
        value = self.pad_value if self.pad_value is not None else ("" if arr.dtype.kind == "U" else 0)
        width = max(arr.dtype.itemsize // 4, len(str(value)), 1)
        dtype = arr.dtype if arr.dtype.kind != "U" else np.dtype(f"<U{width}")
        out = np.full(shape, value, dtype=dtype)
        region = tuple(slice(0, min(a, b)) for a, b in zip(arr.shape, shape, strict=True))
        out[region] = arr[region]
        return out


class Concatenate:
    """``Concatenate(axis=0, prepend=None, append=None)``: 1-D ``prepend`` + input + ``append``."""

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: only axis 0 (or -1) of 1-D inputs is supported, got {axis!r}")
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.ndim != 1:
            raise ValueError(f"Concatenate: the input must be 1-D, got shape {arr.shape}")
        parts = [p for p in (self.prepend, arr, self.append) if p is not None]
        if len({p.dtype.kind == "U" for p in parts}) > 1:
            raise TypeError("Concatenate: prepend, the input and append must all be strings or all numbers")
        return np.concatenate(parts)


class Duplicate:
    """``Duplicate()``: the input and a copy of it (two outputs)."""

    def __call__(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(data)
        return arr, arr.copy()


class Unique:
    """``Unique()``: the distinct values of the flattened input in order of first appearance, the int32
    index of each element into them, and the int32 count of each."""

    def __call__(self, data: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        flat = np.asarray(data).reshape(-1)
        if flat.dtype.kind == "U":
            raise TypeError("Unique: string inputs are not supported (MindSpore refuses them too)")
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)


__all__ = ["Relational", "Mask", "Fill", "Slice", "PadEnd", "Concatenate", "Duplicate", "Unique"]
