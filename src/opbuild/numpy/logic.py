"""``mindspore.numpy`` logic and comparison: the logical_* functions, comparisons, isclose/array_equal/
array_equiv, the isnan family, membership (in1d, isin), sometrue and isscalar. Compositions of opbuild's ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import binary, cast_out, is_float, norm_axes, to_tensor

__all__ = ["logical_and", "logical_or", "logical_xor", "logical_not", "equal", "not_equal", "greater",
           "greater_equal", "less", "less_equal", "isclose", "array_equal", "array_equiv", "isnan", "isinf",
           "isfinite", "isneginf", "isposinf", "isscalar", "in1d", "isin", "sometrue"]


def _as_bool(t: Tensor) -> Tensor:
    return t if t.dtype.name == "bool" else F.not_equal(t, F.zeros_like(t))


def _logical(op):
    def fn(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
        a, b = binary(x1, x2)
        return cast_out(op(_as_bool(a), _as_bool(b)), dtype)
    return fn


def _compare(op):
    def fn(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
        a, b = binary(x1, x2)
        return cast_out(op(a, b), dtype)
    return fn


def _named(fn, name: str, doc: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``mindspore.numpy.{name}``: {doc}"
    return fn


logical_and = _named(_logical(F.logical_and), "logical_and", "the truth of x1 AND x2 elementwise.")
logical_or = _named(_logical(F.logical_or), "logical_or", "the truth of x1 OR x2 elementwise.")
logical_xor = _named(_logical(F.logical_xor), "logical_xor", "the truth of x1 XOR x2 elementwise.")


def logical_not(a: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.logical_not``: the truth of NOT a elementwise."""
    return cast_out(F.logical_not(_as_bool(to_tensor(a))), dtype)


equal = _named(_compare(F.equal), "equal", "x1 == x2 elementwise.")
not_equal = _named(_compare(F.not_equal), "not_equal", "x1 != x2 elementwise.")
greater = _named(_compare(F.greater), "greater", "x1 > x2 elementwise.")
greater_equal = _named(_compare(F.greater_equal), "greater_equal", "x1 >= x2 elementwise.")
less = _named(_compare(F.less), "less", "x1 < x2 elementwise.")
less_equal = _named(_compare(F.less_equal), "less_equal", "x1 <= x2 elementwise.")


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``mindspore.numpy.isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise; infinities are close only
    to themselves and NaN only to NaN with ``equal_nan``."""
    x, y = binary(a, b)
    if not is_float(x):
        x, y = F.cast(x, "float32"), F.cast(y, "float32")
    shape = tuple(np.broadcast_shapes(x.shape, y.shape))
    x, y = F.broadcast_to(x, shape), F.broadcast_to(y, shape)
    finite = F.logical_and(F.isfinite(x), F.isfinite(y))
    diff = F.abs(F.select(finite, x - y, F.zeros_like(x)))
    close = F.less_equal(diff, atol + rtol * F.abs(F.select(finite, y, F.zeros_like(y))))
    out = F.select(finite, close, F.equal(x, y))
    if equal_nan:
        out = F.logical_or(out, F.logical_and(F.isnan(x), F.isnan(y)))
    return out


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Tensor:
    """``mindspore.numpy.array_equal``: whether the two have one shape and equal elements (a 0-d bool
    tensor, as MindSpore's)."""
    x, y = binary(a1, a2)
    if x.shape != y.shape:
        return Tensor(np.bool_(False))
    same = F.equal(x, y)
    if equal_nan and is_float(x):
        same = F.logical_or(same, F.logical_and(F.isnan(x), F.isnan(y)))
    return _all(same)


def array_equiv(a1: Any, a2: Any) -> Tensor:
    """``mindspore.numpy.array_equiv``: whether the two broadcast to one shape with equal elements (a 0-d
    bool tensor)."""
    x, y = binary(a1, a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return Tensor(np.bool_(False))
    return _all(F.equal(x, y))


def _all(t: Tensor) -> Tensor:
    return F.all(t) if t.ndim else t


isnan = _named(lambda x, dtype=None: cast_out(F.isnan(to_tensor(x)), dtype), "isnan", "True where x is NaN.")
isinf = _named(lambda x, dtype=None: cast_out(F.isinf(to_tensor(x)), dtype), "isinf", "True where x is +-inf.")
isfinite = _named(lambda x, dtype=None: cast_out(F.isfinite(to_tensor(x)), dtype), "isfinite",
                  "True where x is neither infinite nor NaN.")


def isneginf(x: Any) -> Tensor:
    """``mindspore.numpy.isneginf``: True where x is negative infinity."""
    t = to_tensor(x)
    return F.logical_and(F.isinf(t), F.less(t, F.zeros_like(t)))


def isposinf(x: Any) -> Tensor:
    """``mindspore.numpy.isposinf``: True where x is positive infinity."""
    t = to_tensor(x)
    return F.logical_and(F.isinf(t), F.greater(t, F.zeros_like(t)))


def isscalar(element: Any) -> bool:
    """``mindspore.numpy.isscalar``: True for Python numbers, bools and strings (a tensor is not a scalar)."""
    return isinstance(element, (int, float, complex, bool, str, bytes, np.generic))


def in1d(ar1: Any, ar2: Any, invert: bool = False) -> Tensor:
    """``mindspore.numpy.in1d``: for each element of the flattened ``ar1``, whether it occurs in ``ar2``."""
    a, b = binary(ar1, ar2)
    a, b = F.reshape(a, (-1, 1)), F.reshape(b, (1, -1))
    found = F.any(F.equal(a, b), 1)
    return F.logical_not(found) if invert else found


def isin(element: Any, test_elements: Any, invert: bool = False) -> Tensor:
    """``mindspore.numpy.isin``: :func:`in1d` in the shape of ``element``."""
    t = to_tensor(element)
    return F.reshape(in1d(t, test_elements, invert), t.shape)


def sometrue(a: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.sometrue``: whether any element over ``axis`` is non-zero."""
    t = _as_bool(to_tensor(a))
    axes = norm_axes(axis, t.ndim)
    return F.any(t, axes, keepdims) if axes else t
