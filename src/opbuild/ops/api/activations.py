"""Activation functions of ``mindspore.ops`` beyond relu/sigmoid/tanh/gelu/silu/softplus (ops/api/math.py):
``elu``, ``leaky_relu``, ``prelu``, ``rrelu``, ``celu``, ``selu``, ``hardtanh``, ``hardswish``, ``hardsigmoid``,
``hardshrink``, ``softshrink`` (``soft_shrink``), ``tanhshrink``, ``threshold``, ``softsign``, ``logsigmoid``,
``mish``, ``glu`` and ``softmin``, with MindSpore 2.10's names, arguments and defaults.

Each is a composition of elementwise primitives (so differentiable through their gradient rules, and fused or
cached as ordinary kernels); the ``nn`` activation layers call these.
"""

from __future__ import annotations

import numbers

from ...core.dtypes import DType
from ...core.tensor import Tensor, as_tensor
from . import array as A
from . import math as M
from .nn import softmax
from .sampling import rand

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _float_input(fn: str, x) -> Tensor:
    t = as_tensor(x)
    if not t.dtype.is_float:
        raise TypeError(f"{fn}: the input must be a float16/float32/float64 Tensor, got {t.dtype}")
    return t


def _float_or_int_input(fn: str, x, integers: tuple[str, ...]) -> Tensor:
    """The input of an activation MindSpore also computes over the integer dtypes ``integers`` (keeping the
    dtype: recorded, tests/compat/int_dtype_cases.py); other non-float dtypes are refused."""
    t = as_tensor(x)
    if not t.dtype.is_float and t.dtype.name not in integers:
        raise TypeError(f"{fn}: the input must be a float16/float32/float64 Tensor or one of {list(integers)}, "
                        f"got {t.dtype}")
    return t


def _in_float64(x: Tensor, compute) -> Tensor:
    """``compute`` of an integer or bool ``x`` in float64, truncated back to ``x``'s dtype (MindSpore's CPU
    rounds its integer activations toward zero: ``hardswish`` of int 2 is ``2 * 5 / 6 -> 1``)."""
    return M._cast(compute(M._cast(x, "float64")), x.dtype)


_SIGNED = ("int8", "int16", "int32", "int64")
_ALL_INTS = ("bool", "uint8") + _SIGNED


def _number(fn: str, name: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a float, got {v!r}")
    return float(v)


def _expm1_neg(x: Tensor, scale: float = 1.0) -> Tensor:
    """``exp(min(x, 0) / scale) - 1``: the negative branch of ELU-like functions, never overflowing in the
    positive region the other branch takes."""
    m = M.minimum(x, 0.0)
    return M.sub(M.exp(m if scale == 1.0 else M.div(m, scale)), 1.0)


def elu(input_x, alpha: float = 1.0) -> Tensor:
    """``ops.elu(input_x, alpha=1.0)``: ``x`` where ``x > 0``, ``alpha (exp(x) - 1)`` elsewhere."""
    x = _float_input("elu", input_x)
    return M.where(M.gt(x, 0.0), x, M.mul(_expm1_neg(x), _number("elu", "alpha", alpha)))


def celu(x, alpha: float = 1.0) -> Tensor:
    """``ops.celu(x, alpha=1.0)``: ``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` (alpha != 0)."""
    t = _float_input("celu", x)
    a = _number("celu", "alpha", alpha)
    if a == 0:
        raise ValueError("celu: alpha must not be 0")
    return M.where(M.gt(t, 0.0), t, M.mul(_expm1_neg(t, a), a))


def selu(input_x) -> Tensor:
    """``ops.selu(input_x)``: ``scale (max(0, x) + min(0, alpha (exp(x) - 1)))`` with SELU's constants. Also
    over int8 and int32, as MindSpore 2.10 computes it there (see below); other integers and bool: TypeError."""
    x = _float_or_int_input("selu", input_x, ("int8", "int32"))
    if not x.dtype.is_float:
        # MindSpore casts scale and alpha to the integer dtype (1 and 1, as leaky_relu's alpha; recorded:
        # tests/compat/int_activation_cases.py): x > 0 stays x, the rest is exp(x) - 1 in float32 truncated
        # toward zero (0, or -1 from x = -18 on, where float32 rounds it to -1).
        neg = M._cast(M.sub(M.exp(M._cast(M.minimum(x, 0), "float32")), 1.0), x.dtype)
        return M.where(M.gt(x, 0), x, neg)
    return M.mul(M.where(M.gt(x, 0.0), x, M.mul(_expm1_neg(x), SELU_ALPHA)), SELU_SCALE)


def leaky_relu(input, alpha: float = 0.2) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.leaky_relu(input, alpha=0.2)``: ``x`` where ``x >= 0``, ``alpha x`` elsewhere."""
    x = _float_or_int_input("leaky_relu", input, _ALL_INTS)
    a = _number("leaky_relu", "alpha", alpha)
    if not x.dtype.is_float:
        # MindSpore casts alpha to the integer dtype first (truncated: 0.2 -> 0, 1.7 -> 1; recorded).
        return x if x.dtype.name in ("bool", "uint8") else M.where(M.ge(x, 0), x, M.mul(x, int(a)))
    return M.where(M.ge(x, 0.0), x, M.mul(x, a))


def prelu(input, weight) -> Tensor:  # noqa: A002
    """``ops.prelu(input, weight)``: ``max(0, x) + w min(0, x)``, ``weight`` one slope or one per channel
    (the input's axis 1)."""
    x = _float_input("prelu", input)
    w = M._cast(as_tensor(weight), x.dtype)
    if w.ndim > 1 or (w.ndim == 1 and w.shape[0] not in (1, x.shape[1] if x.ndim >= 2 else 1)):
        raise ValueError(f"prelu: weight must be a scalar or 1-D of size 1 or the channels (axis 1), got "
                         f"{w.shape} for input {x.shape}")
    if w.ndim == 1 and x.ndim >= 2:
        w = A.reshape(w, (w.shape[0],) + (1,) * (x.ndim - 2))
    return M.where(M.gt(x, 0.0), x, M.mul(x, w))


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Tensor:  # noqa: A002
    """``ops.rrelu(input, lower=1/8, upper=1/3)``: ``x`` where ``x >= 0``, else ``a x`` with ``a`` drawn
    uniformly from [lower, upper] for each element (from the session's seeded generator)."""
    x = _float_input("rrelu", input)
    lo, hi = _number("rrelu", "lower", lower), _number("rrelu", "upper", upper)
    if lo > hi:
        raise ValueError(f"rrelu: lower ({lo}) must not exceed upper ({hi})")
    slope = M.add(M.mul(M._cast(rand(*x.shape), x.dtype), hi - lo), lo)
    return M.where(M.ge(x, 0.0), x, M.mul(x, slope))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    """``ops.hardtanh(input, min_val=-1.0, max_val=1.0)``: ``x`` clipped to [min_val, max_val]."""
    x = _float_or_int_input("hardtanh", input, _ALL_INTS)
    lo, hi = _number("hardtanh", "min_val", min_val), _number("hardtanh", "max_val", max_val)
    if lo > hi:
        raise ValueError(f"hardtanh: min_val ({lo}) must not exceed max_val ({hi})")
    if not x.dtype.is_float:  # clipped to the float bounds, then truncated (int -3 to -2.5 gives -2)
        return _in_float64(x, lambda f: M.minimum(M.maximum(f, lo), hi))
    return M.minimum(M.maximum(x, lo), hi)


def hardsigmoid(input) -> Tensor:  # noqa: A002
    """``ops.hardsigmoid(input)``: ``relu6(x + 3) / 6`` (signed integers: computed, then truncated)."""
    x = _float_or_int_input("hardsigmoid", input, _SIGNED)
    if not x.dtype.is_float:
        return _in_float64(x, hardsigmoid)
    return M.div(M.relu6(M.add(x, 3.0)), 6.0)


def hardswish(input) -> Tensor:  # noqa: A002
    """``ops.hardswish(input)``: ``x relu6(x + 3) / 6`` (signed integers: computed, then truncated)."""
    x = _float_or_int_input("hardswish", input, _SIGNED)
    if not x.dtype.is_float:
        return _in_float64(x, hardswish)
    return M.mul(x, M.div(M.relu6(M.add(x, 3.0)), 6.0))


def _lambd(fn: str, lambd: object) -> float:
    v = _number(fn, "lambd", lambd)
    if v < 0:
        raise ValueError(f"{fn}: lambd must be >= 0, got {v}")
    return v


def hardshrink(input, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``ops.hardshrink(input, lambd=0.5)``: ``x`` where ``|x| > lambd``, else 0."""
    x = _float_input("hardshrink", input)
    return M.where(M.gt(M.abs(x), _lambd("hardshrink", lambd)), x, 0.0)


def softshrink(input, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``ops.softshrink(input, lambd=0.5)``: ``x - lambd`` above lambd, ``x + lambd`` below -lambd, else 0."""
    x = _float_input("softshrink", input)
    lam = _lambd("softshrink", lambd)
    return M.where(M.gt(x, lam), M.sub(x, lam), M.where(M.lt(x, -lam), M.add(x, lam), 0.0))


def soft_shrink(input, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``ops.soft_shrink(input, lambd=0.5)``: :func:`softshrink`."""
    return softshrink(input, lambd)


def tanhshrink(input) -> Tensor:  # noqa: A002
    """``ops.tanhshrink(input)``: ``x - tanh(x)``; an integer tensor computes in float32, as MindSpore 2.10's."""
    t = as_tensor(input)
    x = _float_input("tanhshrink", M._cast(t, "float32") if t.dtype.is_int else t)
    return M.sub(x, M.tanh(x))


def threshold(input, thr: float, value: float) -> Tensor:  # noqa: A002
    """``ops.threshold(input, thr, value)``: ``x`` where ``x > thr``, else ``value``."""
    x = as_tensor(input)
    return M.where(M.gt(x, _number("threshold", "thr", thr)), x,
                   M._cast(as_tensor(_number("threshold", "value", value), x), x.dtype))


def softsign(x) -> Tensor:
    """``ops.softsign(x)``: ``x / (1 + |x|)``."""
    t = _float_input("softsign", x)
    return M.div(t, M.add(M.abs(t), 1.0))


def logsigmoid(x) -> Tensor:
    """``ops.logsigmoid(x)``: ``log(sigmoid(x)) = -(log1p(exp(-|x|)) + max(-x, 0))``, stable for large
    ``|x|``."""
    t = _float_input("logsigmoid", x)
    return M.neg(M.add(M.softplus(M.neg(M.abs(t))), M.maximum(M.neg(t), 0.0)))


def mish(x) -> Tensor:
    """``ops.mish(x)``: ``x tanh(softplus(x))``."""
    t = _float_input("mish", x)
    return M.mul(t, M.tanh(M.softplus(t)))


def glu(x, axis: int = -1) -> Tensor:
    """``ops.glu(x, axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the second half
    (the axis' size must be even)."""
    t = _float_input("glu", x)
    ax = axis + t.ndim if axis < 0 else axis
    if not 0 <= ax < t.ndim or t.shape[ax] % 2:
        raise ValueError(f"glu: axis {axis} must exist and have an even size, got shape {t.shape}")
    a, b = A.split(t, t.shape[ax] // 2, ax)
    return M.mul(a, M.sigmoid(b))


def softmin(x, axis: int = -1, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.softmin(x, axis=-1, *, dtype=None)``: ``softmax(-x)`` along ``axis`` (``dtype`` casts first)."""
    t = as_tensor(x)
    if dtype is not None:
        t = M._cast(t, dtype)
    return softmax(M.neg(_float_input("softmin", t)), axis)


__all__ = ["elu", "celu", "selu", "leaky_relu", "prelu", "rrelu", "hardtanh", "hardsigmoid", "hardswish",
           "hardshrink", "softshrink", "soft_shrink", "tanhshrink", "threshold", "softsign", "logsigmoid", "mish",
           "glu", "softmin"]
