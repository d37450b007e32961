"""Reductions and normalisations that are compositions of primitives, written once for the functional API
(``ops.logsumexp``, ``ops.vector_norm``/``ops.norm``, ``nn.InstanceNorm*``) and the ONNX importer
(ReduceLogSumExp, ReduceL1/L2, ReduceSumSquare, ReduceLogSum, InstanceNormalization, LpNormalization).

Each function takes ``op`` (ops/composing.py): how a primitive is applied. Axes are canonical (sorted,
non-negative) and non-empty; reducing nothing is the caller's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .composing import Apply, apply_values


def _reduce(op: Apply, name: str, x: Any, axes: Sequence[int], keep: bool) -> Any:
    return op(name, {"axis": list(axes), "keep_dims": bool(keep)}, x)


def logsumexp(x: Any, axes: Sequence[int], keep: bool, dtype: str, op: Apply = apply_values) -> Any:
    """``log(sum(exp(x)))`` over ``axes``, computed stably: the maximum is subtracted before ``exp`` and
    added back (an all ``-inf`` slice gives ``-inf``, a slice holding ``+inf`` gives ``+inf``)."""
    m = _reduce(op, "ReduceMax", x, axes, True)
    # A non-finite maximum would turn x - m into NaN: shift by 0 there instead (the sum then says it).
    finite = op("IsFinite", {}, m)
    shift = op("Select", {}, finite, m, np.zeros((), dtype))
    s = _reduce(op, "ReduceSum", op("Exp", {}, op("Sub", {}, x, shift)), axes, keep)
    if not keep:
        shift = op("Reshape", {"shape": _reduced_shape(shift, axes)}, shift)
    return op("Add", {}, op("Log", {}, s), shift)


def _reduced_shape(v: Any, axes: Sequence[int]) -> list[int]:
    dims = v.shape
    return [int(d) for i, d in enumerate(dims) if i not in axes]


def lp_reduce(x: Any, p: float, axes: Sequence[int], keep: bool, dtype: str, op: Apply = apply_values) -> Any:
    """The ``p``-norm over ``axes``: ``sum(|x|^p)^(1/p)``; p = inf / -inf are the max / min of ``|x|``,
    p = 0 counts the non-zero elements."""
    if p == float("inf"):
        return _reduce(op, "ReduceMax", op("Abs", {}, x), axes, keep)
    if p == float("-inf"):
        return _reduce(op, "ReduceMin", op("Abs", {}, x), axes, keep)
    if p == 0:
        nonzero = op("Cast", {"dtype": dtype}, op("NotEqual", {}, x, np.zeros((), dtype)))
        return _reduce(op, "ReduceSum", nonzero, axes, keep)
    if p == 1:
        return _reduce(op, "ReduceSum", op("Abs", {}, x), axes, keep)
    if p == 2:
        return op("Sqrt", {}, _reduce(op, "ReduceSum", op("Square", {}, x), axes, keep))
    powered = op("Pow", {}, op("Abs", {}, x), np.asarray(p, dtype))
    return op("Pow", {}, _reduce(op, "ReduceSum", powered, axes, keep), np.asarray(1.0 / p, dtype))


def sum_square(x: Any, axes: Sequence[int], keep: bool, op: Apply = apply_values) -> Any:
    """``sum(x * x)`` over ``axes`` (ONNX ReduceSumSquare; exact for integers as for floats)."""
    return _reduce(op, "ReduceSum", op("Mul", {}, x, x), axes, keep)


def instance_norm(x: Any, scale: Any, bias: Any, eps: float, shape: Sequence[int], dtype: str,
                  op: Apply = apply_values) -> Any:
    """Normalise each (sample, channel) of an ``(N, C, ...)`` tensor over its spatial axes (biased variance),
    then ``* scale[c] + bias[c]`` (``scale``/``bias`` of shape ``(C,)``; None skips them)."""
    axes = list(range(2, len(shape)))
    mean = _reduce(op, "ReduceMean", x, axes, True)
    centred = op("Sub", {}, x, mean)
    var = _reduce(op, "ReduceMean", op("Square", {}, centred), axes, True)
    y = op("Mul", {}, centred, op("Rsqrt", {}, op("Add", {}, var, np.asarray(eps, dtype))))
    per_channel = [int(shape[1])] + [1] * (len(shape) - 2)
    if scale is not None:
        y = op("Mul", {}, y, op("Reshape", {"shape": per_channel}, scale))
    if bias is not None:
        y = op("Add", {}, y, op("Reshape", {"shape": per_channel}, bias))
    return y


__all__ = ["instance_norm", "logsumexp", "lp_reduce", "sum_square"]
