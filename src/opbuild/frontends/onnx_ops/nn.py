"""ONNX network operators: MatMul and Gemm, Conv, LayerNormalization, Softmax and the reductions (pooling is in
pool.py, BatchNormalization and the composed reductions in norms.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .core import (
    Ctx,
    StaticValueError,
    Value,
    cast,
    const,
    converter,
    dtype,
    limits,
    one_of,
    prim,
    reshape,
    shape,
)

# ---- matrix products, convolution, pooling --------------------------------------------------------------

@converter("MatMul", (9, 13))
def _matmul(ctx: Ctx, a: Value, b: Value) -> Value:
    return prim("BatchMatMul", {}, a, b)


@converter("Gemm", (11, 13), attrs=("alpha", "beta", "transA", "transB"))
def _gemm(ctx: Ctx, a: Value, b: Value, c: Value = None) -> Value:
    dt = dtype(a)
    y = prim("MatMul", {"transpose_a": bool(ctx.attr("transA", 0)), "transpose_b": bool(ctx.attr("transB", 0))},
             a, b)
    alpha, beta = ctx.attr("alpha", 1.0), ctx.attr("beta", 1.0)
    if alpha != 1:
        y = prim("Mul", {}, y, const(alpha, dt))
    if c is not None and beta != 0:
        y = prim("Add", {}, y, c if beta == 1 else prim("Mul", {}, c, const(beta, dt)))
    return y


def _spatial_pads(ctx: Ctx, sizes: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                  dilations: Sequence[int]) -> tuple[list[int], list[int]]:
    """(begin pads, end pads) per spatial dim from ``auto_pad`` / ``pads``."""
    n = len(sizes)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = list(ctx.attr("pads", [0] * 2 * n))
        return pads[:n], pads[n:]
    if auto == "VALID":
        return [0] * n, [0] * n
    begin, end = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
        total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
        small, big = total // 2, total - total // 2
        begin.append(small if auto == "SAME_UPPER" else big)  # SAME_UPPER puts the odd pixel at the end
        end.append(big if auto == "SAME_UPPER" else small)
    return begin, end


_AUTO_PAD = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")


def _check_spatial(ctx: Ctx, dilations: bool = True) -> list[str]:
    problems = one_of("auto_pad", _AUTO_PAD, "NOTSET")(ctx)
    kernel = ctx.attr("kernel_shape")
    if kernel is not None and len(kernel) not in (1, 2):
        problems.append(f"{len(kernel)}-D kernels are not supported (1-D and 2-D only)")
    if not dilations and any(d != 1 for d in ctx.attr("dilations", [])):
        problems.append(f"attribute dilations={ctx.attr('dilations')} is not supported (only 1)")
    return problems


def _as_2d(x: Value, what: str, ctx: Ctx) -> tuple[Value, bool]:
    """A 1-D (N, C, L) operand as (N, C, 1, L); 2-D ones unchanged; ``True`` if it was 1-D."""
    rank = len(shape(x))
    if rank == 3:
        n, c, length = shape(x)
        return reshape(x, [n, c, 1, length]), True
    if rank != 4:
        raise StaticValueError(f"{ctx.op_type} (ONNX node {ctx.name!r}): {what} has rank {rank}; only 1-D and 2-D "
                               f"{ctx.op_type} (rank 3 or 4 inputs) are supported")
    return x, False


@converter("Conv", (1, 11, 22), attrs=("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"),
           check=_check_spatial)
def _conv(ctx: Ctx, x: Value, w: Value, bias: Value = None) -> Value:
    x4, one_d = _as_2d(x, "the input", ctx)
    w4, _ = _as_2d(w, "the weight", ctx)
    n = 1 if one_d else 2
    kernel = list(shape(w4)[2:])
    strides = list(ctx.attr("strides", [1] * n))
    dil = list(ctx.attr("dilations", [1] * n))
    begin, end = _spatial_pads(ctx, shape(x)[2:], kernel[-n:], strides, dil)
    if one_d:
        strides, dil, begin, end = [1, *strides], [1, *dil], [0, *begin], [0, *end]
    y = prim("Conv2D", {"out_channel": shape(w4)[0], "kernel_size": kernel, "pad_mode": "pad",
                        "pad": [begin[0], end[0], begin[1], end[1]], "stride": strides, "dilation": dil,
                        "group": int(ctx.attr("group", 1))}, x4, w4)
    if bias is not None:
        y = prim("BiasAdd", {"data_format": "NCHW"}, y, bias)
    return reshape(y, [*shape(y)[:2], shape(y)[3]]) if one_d else y


@converter("GlobalAveragePool", (1, 22))
def _global_average_pool(ctx: Ctx, x: Value) -> Value:
    if len(shape(x)) == 4:
        return prim("GlobalAvgPool", {}, x)
    return prim("ReduceMean", {"axis": list(range(2, len(shape(x)))), "keep_dims": True}, x)


@converter("GlobalMaxPool", (1, 22))
def _global_max_pool(ctx: Ctx, x: Value) -> Value:
    return prim("ReduceMax", {"axis": list(range(2, len(shape(x)))), "keep_dims": True}, x)


# ---- normalisation --------------------------------------------------------------------------------------

@converter("LayerNormalization", (17,), attrs=("axis", "epsilon", "stash_type"), outputs=3)
def _layer_norm(ctx: Ctx, x: Value, scale: Value, bias: Value = None) -> Value:
    dims, dt = shape(x), dtype(x)
    axis = ctx.axis(ctx.attr("axis", -1), len(dims))
    normed = list(dims[axis:])
    eps = float(ctx.attr("epsilon", 1e-5))
    # Scale and bias broadcast to the normalised shape (ONNX allows shapes such as (1, W) for (H, W)).
    scale = scale if list(shape(scale)) == normed else prim("BroadcastTo", {"shape": normed}, scale)
    if bias is None:
        bias = np.zeros(normed, dtype=dt)
    elif list(shape(bias)) != normed:
        bias = prim("BroadcastTo", {"shape": normed}, bias)
    y, mean, var = prim("LayerNorm", {"begin_norm_axis": axis, "begin_params_axis": axis, "epsilon": eps},
                        x, scale, bias)
    outs = [y]
    if ctx.wants(1) or ctx.wants(2):
        outs.append(mean)
    if ctx.wants(2):
        outs.append(prim("Rsqrt", {}, prim("Add", {}, var, const(eps, dt))))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _softmax(op: str) -> Callable[..., Value]:
    return lambda ctx, x: prim(op, {"axis": ctx.axis(ctx.attr("axis", -1), len(shape(x)))}, x)


converter("Softmax", (13,), attrs=("axis",))(_softmax("Softmax"))
converter("LogSoftmax", (13,), attrs=("axis",))(_softmax("LogSoftmax"))


# ---- reductions -----------------------------------------------------------------------------------------

def _reduce(op: str, axes_input_since: int) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value, axes: Value = None) -> Value:
        rank = len(shape(x))
        if ctx.version < axes_input_since:
            axes = ctx.attr("axes")
        elif axes is not None:
            axes = ctx.static(axes, "axes").reshape(-1).tolist()
        if not axes:
            if ctx.attr("noop_with_empty_axes", 0):
                return x
            axes = list(range(rank))
        axes = sorted({ctx.axis(a, rank, "axes") for a in axes})
        keep = bool(ctx.attr("keepdims", 1))
        dims, dt = shape(x), dtype(x)
        if op in _EMPTY and any(dims[a] == 0 for a in axes):  # ONNX defines these: the reduction's identity
            out = [1 if d in axes else n for d, n in enumerate(dims) if keep or d not in axes]
            return np.full(out, _EMPTY[op](dt), dtype=dt)
        if dt == "bool" and op in _EMPTY:  # max = any, min = all: reduce 0/1 integers
            return cast(prim(op, {"axis": axes, "keep_dims": keep}, cast(x, "int32")), "bool")
        return prim(op, {"axis": axes, "keep_dims": keep}, x)

    return fn


_REDUCE_ATTRS = ("axes", "keepdims", "noop_with_empty_axes")
# Max/min of nothing: the identity of the reduction (ReduceMax-18+ defines it), by dtype.
_EMPTY: dict[str, Callable[[str], Any]] = {
    "ReduceMax": lambda dt: False if dt == "bool" else limits(dt)[0],
    "ReduceMin": lambda dt: True if dt == "bool" else limits(dt)[1],
}
converter("ReduceSum", (11, 13), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceSum", 13))
converter("ReduceMean", (11, 13, 18), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMean", 18))
converter("ReduceMax", (11, 12, 13, 18, 20), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMax", 18))
converter("ReduceMin", (11, 12, 13, 18, 20), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMin", 18))
converter("ReduceProd", (11, 13, 18), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceProd", 18))


def _arg(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value) -> Value:
        dims = shape(x)
        axis = ctx.axis(ctx.attr("axis", 0), len(dims))
        last = bool(ctx.attr("select_last_index", 0))
        if last:  # the last extremum is the first one of the reversed axis
            begin, end, step = [0] * len(dims), list(dims), [1] * len(dims)
            begin[axis], end[axis], step[axis] = dims[axis] - 1, -dims[axis] - 1, -1
            x = prim("StridedSlice", {"begin": begin, "end": end, "strides": step}, x)
        y = prim(op, {"axis": axis, "output_type": "int64"}, x)
        if last:
            y = prim("Sub", {}, const(dims[axis] - 1, "int64"), y)
        if ctx.attr("keepdims", 1):
            y = reshape(y, [1 if d == axis else n for d, n in enumerate(dims)])
        return y

    return fn


converter("ArgMax", (11, 12, 13), attrs=("axis", "keepdims", "select_last_index"))(_arg("ArgMax"))
converter("ArgMin", (11, 12, 13), attrs=("axis", "keepdims", "select_last_index"))(_arg("ArgMin"))
