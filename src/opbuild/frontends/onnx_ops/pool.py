"""ONNX MaxPool, AveragePool and LpPool.

2-D (and 1-D, run as 2-D) pooling without dilations maps onto the MaxPool/AvgPool primitives. 3-D pooling,
dilated windows and MaxPool's second output (the flat indices of the maxima) are a composition instead: each
of the kernel's taps is one strided slice of the padded input, combined with Maximum (and Greater/Select
for the indices, which are constants per tap) or summed and divided by the constant count of real (or
padded, with ``count_include_pad``) elements in each window. The output length follows ONNX (``ceil_mode``
windows must start inside the input or its begin padding).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .core import Ctx, Value, border, const, converter, dtype, limits, one_of, prim, reshape, shape
from .nn import _AUTO_PAD, _as_2d, _spatial_pads


def _pool(op: str, ctx: Ctx, x: Value) -> Value:
    x4, one_d = _as_2d(x, "the input", ctx)
    kernel = list(ctx.attr("kernel_shape"))
    n = len(kernel)
    strides = list(ctx.attr("strides", [1] * n))
    begin, end = _spatial_pads(ctx, shape(x)[2:], kernel, strides, [1] * n)
    if one_d:
        kernel, strides, begin, end = [1, *kernel], [1, *strides], [0, *begin], [0, *end]
    pads = [begin[0], end[0], begin[1], end[1]]
    attrs = {"kernel_size": kernel, "strides": strides, "pad_mode": "pad", "pad": pads,
             "ceil_mode": bool(ctx.attr("ceil_mode", 0))}
    include = bool(ctx.attr("count_include_pad", 0))
    if op == "AvgPool":
        attrs["count_include_pad"] = include
    if all(p <= k // 2 for p, k in zip(pads, (kernel[0], kernel[0], kernel[1], kernel[1]), strict=True)):
        y = prim(op, attrs, x4)
    else:  # padding wider than half the kernel (the primitive's limit): pad explicitly, pool unpadded
        widths = [[0, 0], [0, 0], pads[0:2], pads[2:4]]
        attrs["pad"] = [0, 0, 0, 0]
        if op == "MaxPool":  # padding never wins a max
            padded = prim("Select", {}, border(shape(x4), widths), const(-np.inf, dtype(x4)),
                          prim("Pad", {"paddings": widths}, x4))
            y = prim(op, attrs, padded)
        else:
            y = prim(op, attrs, prim("Pad", {"paddings": widths}, x4))
            if not include:  # divide by the real pixels of each window: the pooled mask of the input
                real = np.pad(np.ones((1, 1, *shape(x4)[2:]), dtype(x4)), widths)
                y = prim("RealDiv", {}, y, prim(op, attrs, real))
    return reshape(y, [*shape(y)[:2], shape(y)[3]]) if one_d else y


_POOL_ATTRS = ("auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides")


def _check_pool(ctx: Ctx) -> list[str]:
    problems = one_of("auto_pad", _AUTO_PAD, "NOTSET")(ctx)
    kernel = ctx.attr("kernel_shape")
    if kernel is None:
        problems.append("attribute kernel_shape is required")
    elif len(kernel) not in (1, 2, 3):
        problems.append(f"{len(kernel)}-D kernels are not supported (1-D to 3-D)")
    return problems


def _needs_taps(ctx: Ctx, x: Value) -> bool:
    """3-D pooling, dilations and MaxPool's indices have no primitive: the tap composition does them."""
    return (len(shape(x)) == 5 or any(d != 1 for d in ctx.attr("dilations", [])) or ctx.wants(1))


@converter("MaxPool", (10, 11, 12, 22), attrs=(*_POOL_ATTRS, "storage_order"), outputs=2, check=_check_pool)
def _max_pool(ctx: Ctx, x: Value) -> Value:
    return tap_pool(ctx, x, "max") if _needs_taps(ctx, x) else _pool("MaxPool", ctx, x)


@converter("LpPool", (11, 18, 22), attrs=(*_POOL_ATTRS, "p"), check=_check_pool)
def _lp_pool(ctx: Ctx, x: Value) -> Value:
    return tap_pool(ctx, x, "lp")


@converter("AveragePool", (10, 11, 19, 22), attrs=(*_POOL_ATTRS, "count_include_pad"), check=_check_pool)
def _average_pool(ctx: Ctx, x: Value) -> Value:
    return tap_pool(ctx, x, "avg") if _needs_taps(ctx, x) else _pool("AvgPool", ctx, x)




# ---- the tap composition -------------------------------------------------------------------------------

def _out_len(size: int, k: int, s: int, d: int, pb: int, pe: int, ceil: bool) -> int:
    span = size + pb + pe - (k - 1) * d - 1
    n = (-(-span // s) if ceil else span // s) + 1
    if ceil and (n - 1) * s >= size + pb:  # the last window would start in the end padding
        n -= 1
    return n


def tap_pool(ctx: Ctx, x: Value, kind: str) -> Value | tuple[Value, Value]:
    """Pooling of any rank (1-D to 3-D) as a combination of one strided slice per kernel tap."""
    dims, dt = shape(x), dtype(x)
    spatial = list(dims[2:])
    n = len(spatial)
    kernel = list(ctx.attr("kernel_shape"))
    strides = list(ctx.attr("strides", [1] * n))
    dil = list(ctx.attr("dilations", [1] * n))
    begin, end = _spatial_pads(ctx, spatial, kernel, strides, dil)
    ceil = bool(ctx.attr("ceil_mode", 0))
    out = [_out_len(*a, ceil) for a in zip(spatial, kernel, strides, dil, begin, end, strict=True)]
    # Padded extent every window fits in (the ceil-mode overhang beyond the end padding included).
    need = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out, strides, kernel, dil, strict=True)]
    after = [max(nd - b - sz, 0) for nd, b, sz in zip(need, begin, spatial, strict=True)]
    widths = [[0, 0], [0, 0], *([b, a] for b, a in zip(begin, after, strict=True))]
    low = limits(dt)[0] if kind == "max" else 0
    if kind == "lp":  # sum |x|^p over each window of the zero-padded input, then the p-th root
        x = prim("Pow", {}, prim("Abs", {}, x), const(float(ctx.attr("p", 2)), dt))
    padded = prim("Pad", {"paddings": widths}, x)
    if kind == "max" and any(b or a for b, a in zip(begin, after, strict=True)):
        padded = prim("Select", {}, border(dims, widths), const(low, dt), padded)
    full = list(shape(padded))
    taps = list(itertools.product(*(range(k) for k in kernel)))

    def window(v: Value, tap: tuple[int, ...]) -> Value:
        starts = [t * d for t, d in zip(tap, dil, strict=True)]
        return prim("StridedSlice", {"begin": [0, 0, *starts],
                                     "end": [*full[:2], *(st + (o - 1) * s + 1 for st, o, s in
                                                          zip(starts, out, strides, strict=True))],
                                     "strides": [1, 1, *strides]}, v)

    if kind in ("avg", "lp"):
        total = None
        for tap in taps:
            w = window(padded, tap)
            total = w if total is None else prim("Add", {}, total, w)
        if kind == "lp":
            return prim("Pow", {}, total, const(1.0 / float(ctx.attr("p", 2)), dt))
        # The divisor: real elements in each window, or (count_include_pad) those of the explicitly padded input.
        inside = np.zeros([1, 1, *full[2:]], dt)
        region = tuple(slice(0, sz + b + e) if ctx.attr("count_include_pad", 0) else slice(b, b + sz)
                       for sz, b, e in zip(spatial, begin, end, strict=True))
        inside[(0, 0, *region)] = 1
        count = sum(np.asarray(_np_window(inside, tap, dil, out, strides)) for tap in taps)
        return prim("RealDiv", {}, total, count)
    best = idx = None
    flat = _flat_index(dims, widths, bool(ctx.attr("storage_order", 0))) if ctx.wants(1) else None
    for tap in taps:
        w = window(padded, tap)
        if best is None:
            best = w
            if flat is not None:
                idx = np.broadcast_to(_np_window(flat, tap, dil, out, strides), shape(w)).copy()
            continue
        if flat is None:
            best = prim("Maximum", {}, best, w)
            continue
        better = prim("Greater", {}, w, best)  # the first maximum in window order keeps its index
        best = prim("Select", {}, better, w, best)
        idx = prim("Select", {}, better, np.broadcast_to(_np_window(flat, tap, dil, out, strides), shape(w)).copy(),
                   idx)
    return (best, idx) if flat is not None else best


def _np_window(a: np.ndarray, tap: tuple[int, ...], dil: list[int], out: list[int], strides: list[int]) -> np.ndarray:
    sl = tuple(slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, dil, out, strides, strict=True))
    return a[(slice(None), slice(None), *sl)]


def _flat_index(dims: tuple[int, ...], widths: list[list[int]], column_major: bool) -> np.ndarray:
    """The flat index of every element of x (``storage_order``: spatial axes row-major, or column-major),
    laid out like the padded input (-1 on the padding)."""
    if column_major:
        spatial = dims[2:]
        ids = np.arange(math.prod(dims), dtype=np.int64).reshape(*dims[:2], *spatial[::-1])
        ids = ids.transpose(0, 1, *range(len(dims) - 1, 1, -1))
    else:
        ids = np.arange(math.prod(dims), dtype=np.int64).reshape(dims)
    return np.pad(ids, widths, constant_values=-1)
