"""CPU kernels of the slicing family (ops/slicing.py): Concat, Split, Slice, StridedSlice and its gradient,
all copies through :func:`strided_copy`, which copies contiguous runs (whole rows) with ``memcpy``."""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ..codegen import strided_copy, strides
from .registry import register


def _concat_emit(k: KernelSpec) -> str:
    axis, out = k.attrs["axis"], k.outputs[0]
    outer, out_inner = math.prod(out.shape[:axis]), math.prod(out.shape[axis:])
    parts, offset = [], 0
    for i, t in enumerate(k.inputs):
        inner = math.prod(t.shape[axis:])
        parts.append(strided_copy([outer, inner], "out0", [out_inner, 1], f"in{i}", [inner, 1],
                                  dst_base=offset))
        offset += inner
    return "\n".join(parts)


def _split_emit(k: KernelSpec) -> str:
    axis, x = k.attrs["axis"], k.inputs[0]
    outer, in_inner = math.prod(x.shape[:axis]), math.prod(x.shape[axis:])
    inner = in_inner // k.attrs["output_num"]
    return "\n".join(
        strided_copy([outer, inner], f"out{j}", [inner, 1], "in0", [in_inner, 1], src_base=j * inner)
        for j in range(k.attrs["output_num"]))


def _slice_emit(k: KernelSpec) -> str:
    x, size = k.inputs[0], k.attrs["size"]
    st = strides(x.shape)
    base = sum(b * s for b, s in zip(k.attrs["begin"], st, strict=True))
    return strided_copy(size, "out0", strides(size), "in0", st, src_base=base)


def _strided_slice_emit(k: KernelSpec) -> str:
    st = strides(k.inputs[0].shape)
    start, step, count = k.attrs["start"], k.attrs["step"], k.attrs["count"]
    base = sum(b * s for b, s in zip(start, st, strict=True))
    src = [s * t for s, t in zip(step, st, strict=True)]
    return strided_copy(count, "out0", strides(count), "in0", src, src_base=base)


def _ss_grad_emit(k: KernelSpec) -> str:
    # Zeros everywhere, then the cotangent written back to the positions the slice read (distinct positions:
    # a nonzero step never visits one twice, so a copy, not an accumulation).
    st = strides(k.attrs["xshape"])
    start, step, count = k.attrs["start"], k.attrs["step"], k.attrs["count"]
    base = sum(b * s for b, s in zip(start, st, strict=True))
    dst = [s * t for s, t in zip(step, st, strict=True)]
    n = k.outputs[0].size
    zero = f"memset(out0, 0, {n} * sizeof(*out0));" if n else ""
    return zero + "\n" + strided_copy(count, "out0", dst, "in0", strides(count), dst_base=base)


register("Concat", _concat_emit, copy=True)
register("Split", _split_emit, copy=True)
register("Slice", _slice_emit, copy=True)
register("StridedSlice", _strided_slice_emit, copy=True)
register("StridedSliceGrad", _ss_grad_emit, copy=True)
