"""ONNX reductions and normalisations that are compositions (ops/compose/reductions.py and here): ReduceL1, ReduceL2,
ReduceSumSquare, ReduceLogSum, ReduceLogSumExp, InstanceNormalization, LpNormalization; BatchNormalization
(inference with the BatchNorm primitive, training mode as a composition), RMSNormalization, GroupNormalization,
MeanVarianceNormalization and LRN."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...ops.compose import reductions as N
from .core import Ctx, Value, cast, const, converter, dtype, prim, prod, reshape, shape
from .elementwise import GRAPH

_REDUCE_ATTRS = ("axes", "keepdims", "noop_with_empty_axes")
# The value of each reduction over an empty set (ONNX's definition).
_EMPTY: dict[str, float] = {"ReduceL1": 0.0, "ReduceL2": 0.0, "ReduceSumSquare": 0.0,
                            "ReduceLogSum": -np.inf, "ReduceLogSumExp": -np.inf}


def _compose(name: str, x: Value, axes: list[int], keep: bool, dt: str) -> Value:
    if name == "ReduceL1":
        return N.lp_reduce(GRAPH, x, 1, axes, keep, dt)
    if name == "ReduceL2":
        return N.lp_reduce(GRAPH, x, 2, axes, keep, dt)
    if name == "ReduceSumSquare":
        return N.sum_square(GRAPH, x, axes, keep)
    if name == "ReduceLogSum":
        return prim("Log", {}, prim("ReduceSum", {"axis": axes, "keep_dims": keep}, x))
    return N.logsumexp(GRAPH, x, axes, keep, dt)


def _reduce(name: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value, axes: Value = None) -> Value:
        rank, dims, dt = len(shape(x)), shape(x), dtype(x)
        if ctx.version < 18:
            axes = ctx.attr("axes")
        elif axes is not None:
            axes = ctx.static(axes, "axes").reshape(-1).tolist()
        if not axes:
            if ctx.attr("noop_with_empty_axes", 0):
                return x
            axes = list(range(rank))
        axes = sorted({ctx.axis(a, rank, "axes") for a in axes})
        keep = bool(ctx.attr("keepdims", 1))
        if any(dims[a] == 0 for a in axes):
            out = [1 if d in axes else n for d, n in enumerate(dims) if keep or d not in axes]
            return np.full(out, _EMPTY[name], dtype=dt)
        if rank == 0:
            return _scalar(name, x, dt)
        return _compose(name, x, axes, keep, dt)

    return fn


def _scalar(name: str, x: Value, dt: str) -> Value:
    """A rank-0 input: the reduction of one element."""
    return _compose(name, prim("Reshape", {"shape": [1]}, x), [0], False, dt)


for _name, _versions in (("ReduceL1", (11, 13, 18)), ("ReduceL2", (11, 13, 18)),
                         ("ReduceSumSquare", (11, 13, 18)), ("ReduceLogSum", (11, 13, 18, 28)),
                         ("ReduceLogSumExp", (11, 13, 18, 28))):
    converter(_name, _versions, attrs=_REDUCE_ATTRS, static=(1,))(_reduce(_name))


@converter("InstanceNormalization", (6, 22), attrs=("epsilon",))
def _instance_norm(ctx: Ctx, x: Value, scale: Value, bias: Value) -> Value:
    dims, dt = shape(x), dtype(x)
    return N.instance_norm(GRAPH, x, scale, bias, float(ctx.attr("epsilon", 1e-5)), dims, dt)


@converter("LpNormalization", (1, 22), attrs=("axis", "p"))
def _lp_normalization(ctx: Ctx, x: Value) -> Value:
    dims, dt = shape(x), dtype(x)
    axis = ctx.axis(ctx.attr("axis", -1), len(dims))
    norm = N.lp_reduce(GRAPH, x, float(ctx.attr("p", 2)), [axis], True, dt)
    # A zero norm leaves its (zero) slice as it is instead of dividing 0 by 0.
    zero = prim("Equal", {}, norm, np.zeros((), dt))
    return prim("Select", {}, prim("BroadcastTo", {"shape": list(dims)}, zero), x, prim("RealDiv", {}, x, norm))


@converter("BatchNormalization", (9, 14, 15), attrs=("epsilon", "momentum", "training_mode"), outputs=3)
def _batch_norm(ctx: Ctx, x: Value, scale: Value, bias: Value, mean: Value, var: Value) -> Value:
    """Inference: the BatchNorm primitive with the given statistics. ``training_mode=1``: normalised with the
    batch's own mean and (biased) variance, and the running statistics updated with ``momentum`` as the
    second and third outputs (ONNX's definition)."""
    dims, dt = shape(x), dtype(x)
    eps = float(ctx.attr("epsilon", 1e-5))
    if not ctx.attr("training_mode", 0):
        x4 = x if len(dims) in (2, 4) else reshape(x, [dims[0], dims[1], prod(dims[2:]), 1])
        params = [cast(p, dt) for p in (scale, bias, mean, var)]
        return reshape(prim("BatchNorm", {"epsilon": eps}, x4, *params), dims)
    axes = [0, *range(2, len(dims))]
    per_channel = [1, dims[1], *([1] * (len(dims) - 2))]
    batch_mean = prim("ReduceMean", {"axis": axes, "keep_dims": True}, x)
    centred = prim("Sub", {}, x, batch_mean)
    batch_var = prim("ReduceMean", {"axis": axes, "keep_dims": True}, prim("Square", {}, centred))
    y = prim("Mul", {}, centred, prim("Rsqrt", {}, prim("Add", {}, batch_var, const(eps, dt))))
    y = prim("Add", {}, prim("Mul", {}, y, reshape(cast(scale, dt), per_channel)), reshape(cast(bias, dt), per_channel))
    momentum = float(ctx.attr("momentum", 0.9))
    outs = [y]
    for running, batch in ((mean, batch_mean), (var, batch_var)):
        sdt = dtype(running)
        new = prim("Add", {}, prim("Mul", {}, running, const(momentum, sdt)),
                   prim("Mul", {}, cast(reshape(batch, [dims[1]]), sdt), const(1 - momentum, sdt)))
        outs.append(new)
    n_out = 3 if ctx.wants(2) else 2 if ctx.wants(1) else 1
    return outs[0] if n_out == 1 else tuple(outs[:n_out])


def _stash(ctx: Ctx, x: Value) -> tuple[Value, str]:
    """x in the precision ``stash_type`` asks for (1: float32 for half inputs), and the dtype to return."""
    dt = dtype(x)
    if ctx.attr("stash_type", 1) == 1 and dt in ("float16", "bfloat16"):
        return cast(x, "float32"), dt
    return x, dt


@converter("RMSNormalization", (23,), attrs=("axis", "epsilon", "stash_type"))
def _rms_norm(ctx: Ctx, x: Value, scale: Value) -> Value:
    dims = shape(x)
    axis = ctx.axis(ctx.attr("axis", -1), len(dims))
    xs, dt = _stash(ctx, x)
    sdt = dtype(xs)
    ms = prim("ReduceMean", {"axis": list(range(axis, len(dims))), "keep_dims": True}, prim("Square", {}, xs))
    y = prim("Mul", {}, xs, prim("Rsqrt", {}, prim("Add", {}, ms, const(float(ctx.attr("epsilon", 1e-5)), sdt))))
    return prim("Mul", {}, cast(y, dt), scale)


@converter("GroupNormalization", (18, 21), attrs=("epsilon", "num_groups", "stash_type"))
def _group_norm(ctx: Ctx, x: Value, scale: Value, bias: Value) -> Value:
    """Normalised per (sample, group of channels); ``scale``/``bias`` per group (version 18) or per channel."""
    dims = shape(x)
    n, c, g = dims[0], dims[1], int(ctx.attr("num_groups"))
    xs, dt = _stash(ctx, x)
    sdt = dtype(xs)
    grouped = reshape(xs, [n, g, (c // g) * prod(dims[2:])])
    mean = prim("ReduceMean", {"axis": [2], "keep_dims": True}, grouped)
    centred = prim("Sub", {}, grouped, mean)
    var = prim("ReduceMean", {"axis": [2], "keep_dims": True}, prim("Square", {}, centred))
    y = prim("Mul", {}, centred, prim("Rsqrt", {}, prim("Add", {}, var, const(float(ctx.attr("epsilon", 1e-5)), sdt))))
    if ctx.version < 21:  # per group, applied before the channels are unfolded
        y = prim("Mul", {}, y, reshape(cast(scale, sdt), [1, g, 1]))
        y = prim("Add", {}, y, reshape(cast(bias, sdt), [1, g, 1]))
        return cast(reshape(y, list(dims)), dt)
    y = cast(reshape(y, list(dims)), dt)
    per_channel = [1, c, *([1] * (len(dims) - 2))]
    return prim("Add", {}, prim("Mul", {}, y, reshape(scale, per_channel)), reshape(bias, per_channel))


@converter("MeanVarianceNormalization", (13,), attrs=("axes",))
def _mvn(ctx: Ctx, x: Value) -> Value:
    """ONNX's function body: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)."""
    dims, dt = shape(x), dtype(x)
    axes = sorted({ctx.axis(a, len(dims), "axes") for a in ctx.attr("axes", [0, 2, 3])})
    mean = prim("ReduceMean", {"axis": axes, "keep_dims": True}, x)
    ex2 = prim("ReduceMean", {"axis": axes, "keep_dims": True}, prim("Square", {}, x))
    std = prim("Sqrt", {}, prim("Sub", {}, ex2, prim("Square", {}, mean)))
    return prim("RealDiv", {}, prim("Sub", {}, x, mean), prim("Add", {}, std, const(1e-9, dt)))


@converter("LRN", (13,), attrs=("alpha", "beta", "bias", "size"))
def _lrn(ctx: Ctx, x: Value) -> Value:
    """Across channels: the squares summed over a window of ``size`` channels (a padded channel axis, one
    slice per window position)."""
    dims, dt = shape(x), dtype(x)
    size = int(ctx.attr("size"))
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = prim("Pad", {"paddings": [[0, 0], [before, after]] + [[0, 0]] * (len(dims) - 2)}, prim("Square", {}, x))
    total = None
    for k in range(size):
        begin = [0, k] + [0] * (len(dims) - 2)
        end = [dims[0], k + dims[1], *dims[2:]]
        part = prim("StridedSlice", {"begin": begin, "end": end, "strides": [1] * len(dims)}, sq)
        total = part if total is None else prim("Add", {}, total, part)
    alpha, beta, bias = float(ctx.attr("alpha", 1e-4)), float(ctx.attr("beta", 0.75)), float(ctx.attr("bias", 1.0))
    denom = prim("Add", {}, prim("Mul", {}, total, const(alpha / size, dt)), const(bias, dt))
    return prim("RealDiv", {}, x, prim("Pow", {}, denom, const(beta, dt)))
