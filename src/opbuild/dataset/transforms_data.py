"""Data-manipulating ``mindspore.dataset.transforms`` (re-exported by transforms.py): ``Concatenate``,
``Duplicate``, ``Fill``, ``Mask`` with ``Relational``, ``PadEnd``, ``Slice`` and ``Unique``, callables on
NumPy arrays (in ``Dataset.map`` or eagerly) with MindSpore's output dtypes."""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np


class Relational(enum.IntEnum):
    """Comparisons of ``Mask`` (MindSpore's ``transforms.Relational``)."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_OPS = {Relational.EQ: operator.eq, Relational.NE: operator.ne, Relational.GT: operator.gt,
        Relational.GE: operator.ge, Relational.LT: operator.lt, Relational.LE: operator.le}


def _dtype(dtype: Any) -> np.dtype:
    return np.dtype(getattr(dtype, "np_dtype", dtype))


class Concatenate:
    """``Concatenate(axis=0, prepend=None, append=None)``: ``prepend + data + append`` along a 1-D axis."""

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: only 1-D data is concatenated, so axis must be 0 or -1, got {axis}")
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, data: Any) -> np.ndarray:
        parts = [p for p in (self.prepend, np.asarray(data), self.append) if p is not None]
        if any(p.ndim != 1 for p in parts):
            raise TypeError(f"Concatenate: data, prepend and append must be 1-D, got {[p.shape for p in parts]}")
        return np.concatenate(parts)


class Duplicate:
    """``Duplicate()``: the data and a copy of it (two output columns)."""

    def __call__(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(data)
        return arr, arr.copy()


class Fill:
    """``Fill(fill_value)``: an array of the data's shape and dtype, every element ``fill_value``."""

    def __init__(self, fill_value: Any) -> None:
        self.fill_value = fill_value

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        return np.full(arr.shape, self.fill_value, dtype=arr.dtype)


class Mask:
    """``Mask(operator, constant, dtype=bool)``: ``data <operator> constant`` elementwise, cast to ``dtype``."""

    def __init__(self, operator: Relational, constant: Any, dtype: Any = np.bool_) -> None:  # noqa: A002
        self.op, self.constant, self.dtype = _OPS[Relational(operator)], constant, _dtype(dtype)

    def __call__(self, data: Any) -> np.ndarray:
        return self.op(np.asarray(data), self.constant).astype(self.dtype)


class PadEnd:
    """``PadEnd(pad_shape, pad_value=None)``: pad (or cut) the end of each axis to ``pad_shape`` with
    ``pad_value`` (0, or the empty string for strings, by default)."""

    def __init__(self, pad_shape: Sequence[int], pad_value: Any = None) -> None:
        self.shape, self.value = tuple(int(n) for n in pad_shape), pad_value

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.ndim != len(self.shape):
            raise ValueError(f"PadEnd: pad_shape {list(self.shape)} has {len(self.shape)} axes, the data "
                             f"{arr.ndim}")
        fill = self.value if self.value is not None else ("" if arr.dtype.kind == "U" else 0)
        out = np.full(self.shape, fill, dtype=arr.dtype)
        region = tuple(slice(0, min(a, b)) for a, b in zip(arr.shape, self.shape))
        out[region] = arr[region]
        return out


class Slice:
    """``Slice(*slices)``: ``data[slices]``; each an int, a list of indices, a ``slice``, None or Ellipsis."""

    def __init__(self, *slices: Any) -> None:
        self.key = tuple(slice(None) if s is None else s for s in slices)

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        return arr[self.key if len(self.key) != 1 else self.key[0]]


class Unique:
    """``Unique()``: (the distinct elements in order of first appearance, the int32 index of each element's
    value among them, the int32 count of each), over the flattened data."""

    def __call__(self, data: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        flat = np.asarray(data).ravel()
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                                   return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return values[order], rank[inverse.ravel()].astype(np.int32), counts[order].astype(np.int32)


def _rng() -> np.random.Generator:
    from .vision_geometry import rng  # function level: keeps this module free of the vision modules at import

    return rng()


class RandomApply:
    """``RandomApply(transforms, prob=0.5)``: apply every transform in order, or none, with probability
    ``prob``."""

    def __init__(self, transforms: Sequence[Any], prob: float = 0.5) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomApply: prob must be in [0, 1], got {prob!r}")
        self.transforms, self.prob, self.rng = list(transforms), float(prob), _rng()

    def __call__(self, *data: Any) -> Any:
        if self.rng.random() >= self.prob:
            return data[0] if len(data) == 1 else data
        for t in self.transforms:
            data = t(*data) if isinstance(data, tuple) else (t(data),)
            data = data if isinstance(data, tuple) else (data,)
        return data[0] if len(data) == 1 else data


class RandomChoice:
    """``RandomChoice(transforms)``: apply one of ``transforms``, chosen uniformly."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        if not transforms:
            raise ValueError("RandomChoice: transforms must not be empty")
        self.transforms, self.rng = list(transforms), _rng()

    def __call__(self, *data: Any) -> Any:
        return self.transforms[int(self.rng.integers(len(self.transforms)))](*data)


class RandomOrder:
    """``RandomOrder(transforms)``: apply every transform, in a random order."""

    def __init__(self, transforms: Sequence[Any]) -> None:
        self.transforms, self.rng = list(transforms), _rng()

    def __call__(self, *data: Any) -> Any:
        out: Any = data
        for i in self.rng.permutation(len(self.transforms)):
            out = self.transforms[i](*out) if isinstance(out, tuple) else self.transforms[i](out)
        return out


__all__ = ["RandomApply", "RandomChoice", "RandomOrder", "Relational", "Concatenate", "Duplicate", "Fill", "Mask",
           "PadEnd", "Slice", "Unique"]
