"""ONNX operators that rearrange elements, as compositions of slicing, padding and gathers: CenterCropPad,
ReverseSequence (run-time lengths: the source index of every element is computed by elementwise ops, then
GatherD), Col2Im (a constant scatter: UnsortedSegmentSum with the static target of every column element)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .core import Ctx, StaticValueError, Value, cast, converter, prim, reshape, shape


@converter("CenterCropPad", (18,), attrs=("axes",), static=(1,))
def _center_crop_pad(ctx: Ctx, x: Value, target: Value) -> Value:
    dims = list(shape(x))
    rank = len(dims)
    axes = [ctx.axis(a, rank, "axes") for a in ctx.attr("axes", range(rank))]
    sizes = ctx.static(target, "shape").reshape(-1).tolist()
    begin, end = [0] * rank, list(dims)
    pads = [[0, 0] for _ in range(rank)]
    for a, want in zip(axes, sizes, strict=True):
        have = dims[a]
        if want < have:  # crop: the window starts rounded down
            begin[a] = (have - want) // 2
            end[a] = begin[a] + int(want)
        elif want > have:  # pad: the odd pixel goes to the end
            total = int(want) - have
            pads[a] = [total // 2, total - total // 2]
    if begin != [0] * rank or end != dims:
        x = prim("StridedSlice", {"begin": begin, "end": end, "strides": [1] * rank}, x)
    if any(p != [0, 0] for p in pads):
        x = prim("Pad", {"paddings": pads}, x)
    return x


@converter("ReverseSequence", (10, 28), attrs=("batch_axis", "time_axis"))
def _reverse_sequence(ctx: Ctx, x: Value, lens: Value) -> Value:
    dims = shape(x)
    rank = len(dims)
    b, t = int(ctx.attr("batch_axis", 1)), int(ctx.attr("time_axis", 0))
    steps = np.arange(dims[t], dtype=np.int64).reshape([dims[t] if d == t else 1 for d in range(rank)])
    n = reshape(cast(lens, "int64"), [dims[b] if d == b else 1 for d in range(rank)])
    # Within the first lens[i] steps, step s reads step lens[i] - 1 - s; later steps read themselves.
    src = prim("Select", {}, prim("Less", {}, steps, n), prim("Sub", {}, prim("Sub", {}, n, np.asarray(1)), steps),
               steps)
    src = prim("BroadcastTo", {"shape": list(dims)}, src)
    return prim("GatherD", {"dim": t}, x, src)


@converter("Col2Im", (18,), attrs=("dilations", "pads", "strides"), static=(1, 2))
def _col2im(ctx: Ctx, x: Value, image_shape: Value, block_shape: Value) -> Value:
    image = [int(v) for v in ctx.static(image_shape, "image_shape").reshape(-1)]
    block = [int(v) for v in ctx.static(block_shape, "block_shape").reshape(-1)]
    r = len(image)
    dil = list(ctx.attr("dilations", [1] * r))
    strides = list(ctx.attr("strides", [1] * r))
    pads = list(ctx.attr("pads", [0] * 2 * r))
    n_, ck, length = shape(x)
    k = math.prod(block)
    if ck % k:
        raise StaticValueError(f"Col2Im (ONNX node {ctx.name!r}): input channels {ck} are not a multiple of the "
                               f"block size {k}")
    c = ck // k
    counts = [(image[d] + pads[d] + pads[r + d] - dil[d] * (block[d] - 1) - 1) // strides[d] + 1 for d in range(r)]
    if math.prod(counts) != length:
        raise StaticValueError(f"Col2Im (ONNX node {ctx.name!r}): {length} columns do not match the {counts} "
                               f"block positions of image_shape {image}")
    # target[kk, l]: the flat image position column element (kk, l) adds into, or -1 where it lands on padding.
    target = np.full((k, length), -1, np.int64)
    for kk, offs in enumerate(itertools.product(*(range(s) for s in block))):
        for li, pos in enumerate(itertools.product(*(range(s) for s in counts))):
            coords = [pos[d] * strides[d] - pads[d] + offs[d] * dil[d] for d in range(r)]
            if all(0 <= coords[d] < image[d] for d in range(r)):
                target[kk, li] = int(np.ravel_multi_index(coords, image))
    # Rows of (column element, channel, batch) scatter-added into (image position, channel, batch).
    cols = prim("Transpose", {"perm": [2, 3, 1, 0]}, reshape(x, [n_, c, k, length]))  # (k, L, c, n)
    cols = reshape(cols, [k * length, c, n_])
    summed = prim("UnsortedSegmentSum", {"num_segments": math.prod(image)}, cols,
                  cast(np.asarray(target.reshape(-1)), "int64"))
    out = prim("Transpose", {"perm": [2, 1, 0]}, summed)  # (n, c, image)
    return reshape(out, [n_, c, *image])
