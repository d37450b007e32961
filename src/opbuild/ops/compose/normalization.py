"""Softmax, LogSoftmax and LayerNorm as compositions of reductions and elementwise operators (see
ops/compose/__init__.py). Their primitives have hand-written kernels of their own; these decompositions are
what the reduction-fusion pass fuses with neighbouring ops, and the tests check the two agree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

H = TypeVar("H")


def _rows(axes: Sequence[int]) -> dict:
    return {"axis": [int(a) for a in axes], "keep_dims": True}


def softmax(b, x: H, axes: Sequence[int]) -> H:
    """``exp(x - max) / sum(exp(x - max))`` over ``axes``."""
    ax = _rows(axes)
    e = b.op("Exp", {}, b.op("Sub", {}, x, b.op("ReduceMax", ax, x)))
    return b.op("RealDiv", {}, e, b.op("ReduceSum", ax, e))


def log_softmax(b, x: H, axes: Sequence[int]) -> H:
    """``(x - max) - log(sum(exp(x - max)))`` over ``axes``."""
    ax = _rows(axes)
    z = b.op("Sub", {}, x, b.op("ReduceMax", ax, x))
    return b.op("Sub", {}, z, b.op("Log", {}, b.op("ReduceSum", ax, b.op("Exp", {}, z))))


def layer_norm(b, x: H, gamma: H, beta: H, axes: Sequence[int], epsilon: float) -> H:
    """``(x - mean) * rsqrt(mean((x - mean)^2) + epsilon) * gamma + beta`` over ``axes``: epsilon is added to
    the biased variance inside the square root, as MindSpore's LayerNorm and ONNX's LayerNormalization place
    it."""
    ax = _rows(axes)
    d = b.op("Sub", {}, x, b.op("ReduceMean", ax, x))
    var = b.op("ReduceMean", ax, b.op("Square", {}, d))
    rstd = b.op("Rsqrt", {}, b.op("Add", {}, var, b.const(float(epsilon), var)))
    return b.op("Add", {}, b.op("Mul", {}, b.op("Mul", {}, d, rstd), gamma), beta)
