"""Reductions and normalisations that are compositions of primitives, written once for the functional API
(``ops.logsumexp``, ``ops.vector_norm``/``ops.norm``, ``nn.InstanceNorm*``) and the ONNX importer
(ReduceLogSumExp, ReduceL1/L2, ReduceSumSquare, ReduceLogSum, InstanceNormalization, LpNormalization).

Each function takes the builder ``b`` first (ops/compose/__init__.py); scalar constants are NumPy scalars of
the operand's dtype, which every builder takes as operands. Axes are canonical (sorted,
non-negative) and non-empty; reducing nothing is the caller's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _reduce(b, name: str, x: Any, axes: Sequence[int], keep: bool) -> Any:
    return b.op(name, {"axis": list(axes), "keep_dims": bool(keep)}, x)


def logsumexp(b, x: Any, axes: Sequence[int], keep: bool, dtype: str) -> Any:
    """``log(sum(exp(x)))`` over ``axes``, computed stably: the maximum is subtracted before ``exp`` and
    added back (an all ``-inf`` slice gives ``-inf``, a slice holding ``+inf`` gives ``+inf``)."""
    m = _reduce(b, "ReduceMax", x, axes, True)
    # A non-finite maximum would turn x - m into NaN: shift by 0 there instead (the sum then says it).
    finite = b.op("IsFinite", {}, m)
    shift = b.op("Select", {}, finite, m, np.zeros((), dtype))
    s = _reduce(b, "ReduceSum", b.op("Exp", {}, b.op("Sub", {}, x, shift)), axes, keep)
    if not keep:
        shift = b.op("Reshape", {"shape": _reduced_shape(shift, axes)}, shift)
    return b.op("Add", {}, b.op("Log", {}, s), shift)


def _reduced_shape(v: Any, axes: Sequence[int]) -> list[int]:
    dims = v.shape
    return [int(d) for i, d in enumerate(dims) if i not in axes]


def lp_reduce(b, x: Any, p: float, axes: Sequence[int], keep: bool, dtype: str) -> Any:
    """The ``p``-norm over ``axes``: ``sum(|x|^p)^(1/p)``; p = inf / -inf are the max / min of ``|x|``,
    p = 0 counts the non-zero elements."""
    if p == float("inf"):
        return _reduce(b, "ReduceMax", b.op("Abs", {}, x), axes, keep)
    if p == float("-inf"):
        return _reduce(b, "ReduceMin", b.op("Abs", {}, x), axes, keep)
    if p == 0:
        nonzero = b.op("Cast", {"dtype": dtype}, b.op("NotEqual", {}, x, np.zeros((), dtype)))
        return _reduce(b, "ReduceSum", nonzero, axes, keep)
    if p == 1:
        return _reduce(b, "ReduceSum", b.op("Abs", {}, x), axes, keep)
    if p == 2:
        return b.op("Sqrt", {}, _reduce(b, "ReduceSum", b.op("Square", {}, x), axes, keep))
    powered = b.op("Pow", {}, b.op("Abs", {}, x), np.asarray(p, dtype))
    return b.op("Pow", {}, _reduce(b, "ReduceSum", powered, axes, keep), np.asarray(1.0 / p, dtype))


def sum_square(b, x: Any, axes: Sequence[int], keep: bool) -> Any:
    """``sum(x * x)`` over ``axes`` (ONNX ReduceSumSquare; exact for integers as for floats)."""
    return _reduce(b, "ReduceSum", b.op("Mul", {}, x, x), axes, keep)


def instance_norm(b, x: Any, scale: Any, bias: Any, eps: float, shape: Sequence[int], dtype: str) -> Any:
    """Normalise each (sample, channel) of an ``(N, C, ...)`` tensor over its spatial axes (biased variance),
    then ``* scale[c] + bias[c]`` (``scale``/``bias`` of shape ``(C,)``; None skips them)."""
    axes = list(range(2, len(shape)))
    mean = _reduce(b, "ReduceMean", x, axes, True)
    centred = b.op("Sub", {}, x, mean)
    var = _reduce(b, "ReduceMean", b.op("Square", {}, centred), axes, True)
    y = b.op("Mul", {}, centred, b.op("Rsqrt", {}, b.op("Add", {}, var, np.asarray(eps, dtype))))
    per_channel = [int(shape[1])] + [1] * (len(shape) - 2)
    if scale is not None:
        y = b.op("Mul", {}, y, b.op("Reshape", {"shape": per_channel}, scale))
    if bias is not None:
        y = b.op("Add", {}, y, b.op("Reshape", {"shape": per_channel}, bias))
    return y


__all__ = ["instance_norm", "logsumexp", "lp_reduce", "sum_square"]
