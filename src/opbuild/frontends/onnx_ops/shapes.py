"""ONNX constants, shapes, data movement and gathers: Constant, Shape, Size, ConstantOfShape and Range fold to
constants at trace time; Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Concat, Split, Slice, Expand, Tile,
Pad and the gathers map onto opbuild's layout, slicing, fill and indexing primitives.
"""

from __future__ import annotations

import numpy as np

from .core import (
    Ctx,
    StaticValueError,
    Value,
    border,
    const,
    converter,
    dtype,
    is_const,
    one_of,
    prim,
    prod,
    reshape,
    shape,
    wrap_negative,
)

# ---- constants and shapes -------------------------------------------------------------------------------

_CONSTANT_ATTRS = ("value", "value_float", "value_floats", "value_int", "value_ints")


def _check_constant(ctx: Ctx) -> list[str]:
    given = [k for k in ctx.attrs if k in _CONSTANT_ATTRS]
    if len(given) != 1:
        return [f"needs exactly one of {', '.join(_CONSTANT_ATTRS)}; got {', '.join(sorted(ctx.attrs)) or 'none'}"]
    return []


@converter("Constant", (11, 12, 13, 19, 21, 23, 24, 25), attrs=_CONSTANT_ATTRS, check=_check_constant)
def _constant(ctx: Ctx) -> Value:
    (key,) = [k for k in ctx.attrs if k in _CONSTANT_ATTRS]
    value = ctx.attrs[key]
    if key in ("value_float", "value_floats"):
        return const(value, "float32")
    if key in ("value_int", "value_ints"):
        return const(value, "int64")
    return np.array(value)


@converter("Shape", (1, 13, 15, 19, 21, 23, 24, 25), attrs=("start", "end"))
def _shape(ctx: Ctx, x: Value) -> Value:
    dims = list(shape(x))
    start, end = ctx.attr("start", 0), ctx.attr("end", None)
    return const(dims[start:end], "int64")  # Python slicing clamps start/end exactly as ONNX specifies


@converter("Size", (1, 13, 19, 21, 23, 24, 25))
def _size(ctx: Ctx, x: Value) -> Value:
    return const(prod(shape(x)), "int64")


@converter("ConstantOfShape", (9, 20, 21, 23, 24, 25), attrs=("value",), static=(0,))
def _constant_of_shape(ctx: Ctx, dims: Value) -> Value:
    value = ctx.attr("value")
    value = np.zeros(1, "float32") if value is None else np.asarray(value)
    return np.full([int(d) for d in ctx.static(dims, "input")], value.reshape(-1)[0], dtype=value.dtype)


@converter("Range", (11, 27), attrs=("stash_type",), static=(0, 1, 2))
def _range(ctx: Ctx, start: Value, limit: Value, delta: Value) -> Value:
    s, lim, d = (ctx.static(v, n) for v, n in ((start, "start"), (limit, "limit"), (delta, "delta")))
    return np.arange(s.item(), lim.item(), d.item()).astype(s.dtype)  # as ONNX's reference computes it


# ---- shape and data movement ----------------------------------------------------------------------------

@converter("Reshape", (5, 13, 14, 19, 21, 23, 24, 25), attrs=("allowzero",), static=(1,))
def _reshape(ctx: Ctx, x: Value, new_shape: Value) -> Value:
    dims = [int(d) for d in ctx.static(new_shape, "shape")]
    if not ctx.attr("allowzero", 0):  # 0 copies the input's dim
        dims = [shape(x)[i] if d == 0 else d for i, d in enumerate(dims)]
    return prim("Reshape", {"shape": dims}, x) if -1 in dims else reshape(x, dims)


@converter("Transpose", (1, 13, 21, 23, 24, 25), attrs=("perm",))
def _transpose(ctx: Ctx, x: Value) -> Value:
    rank = len(shape(x))
    perm = ctx.attr("perm", list(range(rank))[::-1])
    return x if list(perm) == list(range(rank)) else prim("Transpose", {"perm": list(perm)}, x)


@converter("Flatten", (11, 13, 21, 23, 24, 25), attrs=("axis",))
def _flatten(ctx: Ctx, x: Value) -> Value:
    dims = shape(x)
    axis = int(ctx.attr("axis", 1))
    if not -len(dims) <= axis <= len(dims):
        raise StaticValueError(f"Flatten (ONNX node {ctx.name!r}): axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis
    return reshape(x, [prod(dims[:axis]), prod(dims[axis:])])


@converter("Squeeze", (11, 13, 21, 23, 24, 25), attrs=("axes",), static=(1,))
def _squeeze(ctx: Ctx, x: Value, axes: Value = None) -> Value:
    dims = shape(x)
    if ctx.version < 13 and ctx.attr("axes") is not None:  # Squeeze-11: an attribute
        axes = const(ctx.attr("axes"), "int64")
    if axes is None:
        drop = {d for d, n in enumerate(dims) if n == 1}
    else:
        drop = {ctx.axis(a, len(dims), "axes") for a in ctx.static(axes, "axes").reshape(-1)}
        bad = [a for a in sorted(drop) if dims[a] != 1]
        if bad:
            raise StaticValueError(f"Squeeze (ONNX node {ctx.name!r}): axis {bad[0]} has size {dims[bad[0]]}, not 1 "
                                   f"(input shape {list(dims)})")
    return reshape(x, [n for d, n in enumerate(dims) if d not in drop])


@converter("Unsqueeze", (11, 13, 21, 23, 24, 25), attrs=("axes",), static=(1,))
def _unsqueeze(ctx: Ctx, x: Value, axes: Value = None) -> Value:
    if ctx.version < 13:  # Unsqueeze-11: an attribute
        axes = const(ctx.attr("axes", []), "int64")
    dims = list(shape(x))
    rank = len(dims) + ctx.static(axes, "axes").size
    new = sorted(ctx.axis(a, rank, "axes") for a in ctx.static(axes, "axes").reshape(-1))
    for a in new:
        dims.insert(a, 1)
    return reshape(x, dims)


@converter("Concat", (11, 13), attrs=("axis",))
def _concat(ctx: Ctx, *xs: Value) -> Value:
    return xs[0] if len(xs) == 1 else prim("Concat", {"axis": int(ctx.attr("axis"))}, *xs)


@converter("Split", (11, 13, 18), attrs=("axis", "num_outputs", "split"), outputs=1 << 30, static=(1,))
def _split(ctx: Ctx, x: Value, split: Value = None) -> Value:
    dims = shape(x)
    if ctx.version < 13 and ctx.attr("split") is not None:  # Split-11: an attribute
        split = const(ctx.attr("split"), "int64")
    axis = ctx.axis(ctx.attr("axis", 0), len(dims))
    n = len(ctx.outputs)
    if split is not None:
        sizes = [int(s) for s in ctx.static(split, "split")]
    elif ctx.attr("num_outputs") is not None:  # opset 18: the last chunk may be smaller
        n = int(ctx.attr("num_outputs"))
        chunk = -(-dims[axis] // n)
        sizes = [chunk] * (n - 1) + [dims[axis] - chunk * (n - 1)]
    else:
        sizes = [dims[axis] // n] * n
    if sum(sizes) != dims[axis] or min(sizes) < 0:
        raise StaticValueError(f"Split (ONNX node {ctx.name!r}): sizes {sizes} do not split axis {axis} of size "
                               f"{dims[axis]}")
    if len(sizes) > 1 and len(set(sizes)) == 1:
        return prim("Split", {"axis": axis, "output_num": len(sizes)}, x)
    outs, begin = [], 0
    for s in sizes:
        b, size = [0] * len(dims), list(dims)
        b[axis], size[axis] = begin, s
        outs.append(prim("Slice", {"begin": b, "size": size}, x))
        begin += s
    return tuple(outs)


@converter("Slice", (11, 13), static=(1, 2, 3, 4))
def _slice(ctx: Ctx, x: Value, starts: Value, ends: Value, axes: Value = None, steps: Value = None) -> Value:
    dims = shape(x)
    starts, ends = ctx.static(starts, "starts").reshape(-1), ctx.static(ends, "ends").reshape(-1)
    axes = range(len(starts)) if axes is None else ctx.static(axes, "axes").reshape(-1)
    steps = [1] * len(starts) if steps is None else ctx.static(steps, "steps").reshape(-1)
    begin, end, stride = [0] * len(dims), list(dims), [1] * len(dims)
    for s, e, a, st in zip(starts, ends, axes, steps, strict=True):
        a = ctx.axis(a, len(dims), "axes")
        if st == 0:
            raise StaticValueError(f"Slice (ONNX node {ctx.name!r}): step 0 on axis {a}")
        # ONNX's clamping of starts/ends is Python's slice.indices, which StridedSlice applies.
        begin[a], end[a], stride[a] = int(s), int(e), int(st)
    if all(len(range(*slice(b, e, s).indices(n))) == n and s == 1
           for b, e, s, n in zip(begin, end, stride, dims)):
        return x
    return prim("StridedSlice", {"begin": begin, "end": end, "strides": stride}, x)


@converter("Expand", (8, 13), static=(1,))
def _expand(ctx: Ctx, x: Value, new_shape: Value) -> Value:
    target = [int(d) for d in ctx.static(new_shape, "shape")]
    try:  # bidirectional: a 1 in the target keeps the input's dim
        out = [int(d) for d in np.broadcast_shapes(shape(x), tuple(target))]
    except ValueError:
        raise StaticValueError(f"Expand (ONNX node {ctx.name!r}): input shape {list(shape(x))} cannot be expanded "
                               f"to {target}") from None
    return x if out == list(shape(x)) else prim("BroadcastTo", {"shape": out}, x)


@converter("Tile", (6, 13), static=(1,))
def _tile(ctx: Ctx, x: Value, repeats: Value) -> Value:
    return prim("Tile", {"multiples": [int(r) for r in ctx.static(repeats, "repeats")]}, x)


_PAD_MODES = ("constant", "reflect", "edge", "wrap")


def _check_pad(ctx: Ctx) -> list[str]:
    return one_of("mode", _PAD_MODES, "constant")(ctx)


@converter("Pad", (11, 13, 18, 19, 21, 23, 24, 25), attrs=("mode",), check=_check_pad, static=(1, 3))
def _pad(ctx: Ctx, x: Value, pads: Value, value: Value = None, axes: Value = None) -> Value:
    dims = shape(x)
    pads = [int(p) for p in ctx.static(pads, "pads")]
    axes = range(len(dims)) if axes is None else [ctx.axis(a, len(dims), "axes")
                                                  for a in ctx.static(axes, "axes").reshape(-1)]
    before, after = [0] * len(dims), [0] * len(dims)
    for i, a in enumerate(axes):
        before[a], after[a] = pads[i], pads[i + len(axes)]
    # Negative pads crop: a slice first, then zero padding of what is left.
    if min(before + after) < 0:
        x = prim("StridedSlice", {"begin": [-min(b, 0) for b in before],
                                  "end": [n + min(a, 0) for n, a in zip(dims, after, strict=True)],
                                  "strides": [1] * len(dims)}, x)
    widths = [[max(b, 0), max(a, 0)] for b, a in zip(before, after, strict=True)]
    if not any(b or a for b, a in widths):
        return x
    mode = ctx.attr("mode", "constant")
    if mode != "constant":
        # reflect / edge / wrap copy input elements: a Gather along each padded axis, with the source index
        # of every output position computed by NumPy's pad of the positions (the same definitions).
        for a, (b, e) in enumerate(widths):
            if b or e:
                idx = np.pad(np.arange(shape(x)[a], dtype=np.int64), (b, e), mode=mode)
                x = prim("Gather", {"axis": a}, x, idx)
        return x
    padded = prim("Pad", {"paddings": widths}, x)
    if value is None or (is_const(value) and not np.any(value)):
        return padded
    # A non-zero value: select it on the border (the mask is a constant), so inside values stay exact.
    return prim("Select", {}, border(shape(x), widths), reshape(value, []), padded)


# ---- gathers --------------------------------------------------------------------------------------------

@converter("Gather", (11, 13), attrs=("axis",))
def _gather(ctx: Ctx, data: Value, idx: Value) -> Value:
    axis = ctx.axis(ctx.attr("axis", 0), len(shape(data)))
    # The kernel counts [-n, 0) from the end and raises for an index outside [-n, n) (the spec's range).
    return prim("Gather", {"axis": axis, "bounds": "raise"}, data, idx)


@converter("GatherElements", (11, 13), attrs=("axis",))
def _gather_elements(ctx: Ctx, data: Value, idx: Value) -> Value:
    return prim("GatherD", {"dim": ctx.axis(ctx.attr("axis", 0), len(shape(data))), "bounds": "raise"}, data, idx)


@converter("GatherND", (11, 12, 13), attrs=("batch_dims",))
def _gather_nd(ctx: Ctx, data: Value, idx: Value) -> Value:
    # One GatherNd (bounds="raise": [0, n), others raise), [-n, 0) counted from the end first (the spec's range).
    # With batch_dims b, each index row is prefixed with its batch coordinates: it indexes data's first b + k.
    d, i = shape(data), shape(idx)
    b, k = int(ctx.attr("batch_dims", 0)), i[-1]
    if not 0 < k <= len(d) - b or d[:b] != i[:b]:
        raise StaticValueError(f"GatherND (ONNX node {ctx.name!r}): indices shape {list(i)} does not index data "
                               f"shape {list(d)} with batch_dims={b}")
    dt = dtype(idx)
    idx = wrap_negative(idx, const(d[b:b + k], dt))
    if b:
        grid = np.stack(np.meshgrid(*[np.arange(n, dtype=dt) for n in i[:b]], indexing="ij"), -1)
        coords = np.broadcast_to(grid.reshape(i[:b] + (1,) * (len(i) - b - 1) + (b,)), i[:-1] + (b,))
        idx = prim("Concat", {"axis": len(i) - 1}, const(np.ascontiguousarray(coords), dt), idx)
    return prim("GatherNd", {"bounds": "raise"}, data, idx)
