"""What the ``mindspore.numpy`` modules share: turning Python data into tensors with MindSpore's NumPy-layer
defaults (64-bit Python numbers become int32/float32), reading ``dtype=`` arguments, normalising axes and
promoting the operands of a binary function to one dtype.

Every function here works on symbolic (traced) tensors too: only shapes and dtypes are read, never values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops as F
from ..core.dtypes import DType, dtype_of, promote_types
from ..core.tensor import Tensor

# MindSpore's NumPy layer keeps 32-bit defaults: Python ints are int32 and Python floats float32.
_NARROW = {np.dtype("int64"): np.int32, np.dtype("float64"): np.float32, np.dtype("uint64"): np.uint32}


def check_dtype(dtype: Any) -> DType | None:
    """The DType of a ``dtype=`` argument: a DType, a name (``'float32'``, ``'i2'``), a NumPy type, or Python's
    ``int``/``float``/``bool`` (int32, float32, bool as MindSpore's NumPy layer reads them); None stays None."""
    if dtype is None:
        return None
    if dtype is int:
        return dtype_of("int32")
    if dtype is float:
        return dtype_of("float32")
    if dtype is bool:
        return dtype_of("bool")
    try:
        return dtype_of(dtype)
    except TypeError:
        raise TypeError(f"dtype {dtype!r} is not a dtype mindspore.numpy knows; use a mindspore dtype "
                        "(mindspore.float32), a name ('float32') or a NumPy type") from None


def _narrow(arr: np.ndarray) -> np.ndarray:
    narrow = _NARROW.get(arr.dtype)
    return arr.astype(narrow) if narrow is not None else arr


def has_tensor(obj: Any) -> bool:
    """True when ``obj`` is a Tensor or a (nested) list/tuple holding one."""
    if isinstance(obj, Tensor):
        return True
    return isinstance(obj, (list, tuple)) and any(has_tensor(o) for o in obj)


def to_tensor(obj: Any, dtype: Any = None) -> Tensor:
    """``obj`` as a Tensor: a Tensor as is; Python numbers, lists and tuples with 64-bit values narrowed to 32 bits
    (MindSpore's NumPy layer does so); NumPy arrays keep their dtype; a list of tensors is stacked (traceable).
    ``dtype`` casts the result."""
    dt = check_dtype(dtype)
    if isinstance(obj, Tensor):
        t = obj
    elif isinstance(obj, (list, tuple)) and has_tensor(obj):
        parts = [to_tensor(o) for o in obj]
        common = parts[0].dtype
        for p in parts[1:]:
            common = promote_types(common, p.dtype)
        t = F.stack([F.cast(p, common) for p in parts], 0)
    elif isinstance(obj, (np.ndarray, np.generic)):
        arr = np.asarray(obj)
        if arr.dtype == object:
            raise TypeError("mindspore.numpy: an object array has no tensor dtype; give numbers of one shape")
        t = Tensor(arr)
    else:
        try:
            arr = np.asarray(obj)
        except ValueError as e:
            raise ValueError(f"mindspore.numpy: cannot make a tensor of {type(obj).__name__} ({e}); nested lists "
                             "must have one shape") from None
        if arr.dtype == object or arr.dtype.kind in "USV":
            raise TypeError(f"mindspore.numpy: cannot make a tensor of {obj!r}; give numbers, lists of numbers or "
                            "tensors")
        t = Tensor(_narrow(arr))
    return t if dt is None or t.dtype == dt else F.cast(t, dt)


def to_tensors(*objs: Any) -> list[Tensor]:
    """Each of ``objs`` through :func:`to_tensor`."""
    return [to_tensor(o) for o in objs]


def promote(*tensors: Tensor, dtype: Any = None) -> list[Tensor]:
    """The tensors cast to their common dtype (or to ``dtype`` when given)."""
    dt = check_dtype(dtype)
    if dt is None:
        dt = tensors[0].dtype
        for t in tensors[1:]:
            dt = promote_types(dt, t.dtype)
    return [t if t.dtype == dt else F.cast(t, dt) for t in tensors]


def binary(x1: Any, x2: Any) -> tuple[Tensor, Tensor]:
    """Both operands as tensors of one dtype (numbers count as int32/float32 tensors, as in MindSpore)."""
    a, b = promote(*to_tensors(x1, x2))
    return a, b


def cast_out(t: Tensor, dtype: Any) -> Tensor:
    """``t`` cast to the ``dtype=`` argument of a ufunc-like function (unchanged for None)."""
    dt = check_dtype(dtype)
    return t if dt is None or t.dtype == dt else F.cast(t, dt)


def is_float(t: Tensor) -> bool:
    """True for floating (or complex) tensors."""
    return t.dtype.is_float or t.dtype.is_complex


def as_float(t: Tensor) -> Tensor:
    """``t`` itself when floating, else cast to float32 (MindSpore's NumPy layer computes int math in float32)."""
    return t if is_float(t) else F.cast(t, "float32")


def norm_axis(axis: int, ndim: int, name: str = "axis") -> int:
    """A non-negative axis; an out-of-range one is refused naming the range."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(axis).__name__}")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"{name}={axis} is out of range for a {ndim}-d tensor (valid: {-ndim}..{ndim - 1})")
    return int(axis) % max(ndim, 1)


def norm_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None: all axes, an int, or a sequence) as a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return (norm_axis(axis, ndim),)
    if isinstance(axis, Sequence):
        out = tuple(sorted(norm_axis(a, ndim) for a in axis))
        if len(set(out)) != len(out):
            raise ValueError(f"axis {tuple(axis)} repeats an axis")
        return out
    raise TypeError(f"axis must be None, an int or a tuple of ints, got {type(axis).__name__}")


def shape_tuple(shape: Any) -> tuple[int, ...]:
    """A shape argument (an int or a sequence of ints) as a tuple."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, (list, tuple)) and all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                for s in shape):
        return tuple(int(s) for s in shape)
    raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}")


def full_of(shape: tuple[int, ...], value: Any, dtype: DType) -> Tensor:
    """A constant tensor (a NumPy array made here: the values are Python data, never a traced tensor's)."""
    return Tensor(np.full(shape, value, dtype=dtype.np_dtype))
