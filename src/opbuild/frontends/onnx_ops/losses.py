"""ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as compositions: the target class of every
position is picked with a one-hot mask (Equal against the class index), weighted by ``weight[target]``,
positions whose target is ``ignore_index`` count for nothing, and ``reduction`` mean divides by the total
weight of the positions that count (ONNX's definition)."""

from __future__ import annotations

import numpy as np

from .core import Ctx, Value, cast, converter, dtype, one_of, prim, reshape, shape


def nll(ctx: Ctx, logp: Value, target: Value, weight: Value = None) -> Value:
    dims, dt = shape(logp), dtype(logp)
    c = dims[1]
    rank = len(dims)
    t = cast(target, "int64")
    t1 = reshape(t, [dims[0], 1, *dims[2:]])
    iota = np.arange(c, dtype=np.int64).reshape([1, c] + [1] * (rank - 2))
    onehot = prim("Equal", {}, t1, iota)
    zero = np.zeros((), dt)
    picked = prim("ReduceSum", {"axis": [1], "keep_dims": False}, prim("Select", {}, onehot, logp, zero))
    w = None
    if weight is not None:
        w_full = prim("Select", {}, onehot, prim("BroadcastTo", {"shape": list(dims)}, reshape(cast(weight, dt),
                                                                                            [1, c] + [1] * (rank - 2))),
                      zero)
        w = prim("ReduceSum", {"axis": [1], "keep_dims": False}, w_full)
    ignore = ctx.attr("ignore_index")
    if ignore is not None:
        keep = cast(prim("NotEqual", {}, t, np.asarray(int(ignore), np.int64)), dt)
        w = keep if w is None else prim("Mul", {}, w, keep)
    loss = prim("Neg", {}, picked if w is None else prim("Mul", {}, picked, w))
    reduction = ctx.attr("reduction", "mean")
    if reduction == "none":
        return loss
    axes = list(range(len(shape(loss))))
    total = prim("ReduceSum", {"axis": axes, "keep_dims": False}, loss)
    if reduction == "sum":
        return total
    count = (np.asarray(float(np.prod(shape(loss))), dt) if w is None
             else prim("ReduceSum", {"axis": axes, "keep_dims": False}, w))
    return prim("RealDiv", {}, total, count)


_CHECK = one_of("reduction", ("none", "sum", "mean"), "mean")


@converter("NegativeLogLikelihoodLoss", (13, 22), attrs=("ignore_index", "reduction"), check=_CHECK)
def _nll_loss(ctx: Ctx, logp: Value, target: Value, weight: Value = None) -> Value:
    return nll(ctx, logp, target, weight)


@converter("SoftmaxCrossEntropyLoss", (13,), attrs=("ignore_index", "reduction"), outputs=2, check=_CHECK)
def _softmax_cross_entropy(ctx: Ctx, scores: Value, labels: Value, weights: Value = None) -> Value:
    logp = prim("LogSoftmax", {"axis": 1}, scores)
    loss = nll(ctx, logp, labels, weights)
    return (loss, logp) if ctx.wants(1) else loss
