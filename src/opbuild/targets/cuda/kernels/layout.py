"""GPU kernels that only move data: the layout family (Reshape, ExpandDims, Squeeze, Flatten: the input's bytes
in a new shape; Transpose), the slicing family (Concat, Split, Slice, StridedSlice), Gather and GatherNd. Each is one or
more grid-stride loops over the elements written, the source offset computed from the element's coordinates
(:func:`strided_copy`); the loops of one kernel write disjoint elements, so they need no synchronisation.
Half elements (2-byte structs) are copied as they are."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register


def strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a C-contiguous ``shape``."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def _offset(shape: Sequence[int], st: Sequence[int], base: int, var: str) -> str:
    """Offset ``base + sum(coord_d * st[d])`` of flat index ``var`` over ``shape``, as C."""
    terms, inner = [str(base)] if base else [], 1
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] > 1 and st[d]:
            coord = var if inner == 1 else f"({var} / {inner}LL)"
            if inner * shape[d] < math.prod(shape):
                coord = f"({coord} % {shape[d]}LL)"
            terms.append(coord if st[d] == 1 else f"{coord} * {st[d]}LL")
        inner *= shape[d]
    return " + ".join(terms) or "0"


def strided_copy(shape: Sequence[int], dst: str, dst_st: Sequence[int], src: str, src_st: Sequence[int],
                 dst_base: int = 0, src_base: int = 0) -> str:
    """A grid-stride loop copying every element of the index space ``shape`` from ``src`` to ``dst`` under
    their element strides and base offsets."""
    n = math.prod(shape)
    return grid_loop(n, "e", f"{dst}[{_offset(shape, dst_st, dst_base, 'e')}] = "
                              f"{src}[{_offset(shape, src_st, src_base, 'e')}];")


def _copy_all(k: KernelSpec) -> str:
    return grid_loop(k.outputs[0].size, "e", "out0[e] = in0[e];")


def _transpose(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    st = strides(x.shape)
    return strided_copy(out.shape, "out0", strides(out.shape), "in0", [st[p] for p in k.attrs["perm"]])


def _concat(k: KernelSpec) -> str:
    axis, out = k.attrs["axis"], k.outputs[0]
    outer, out_inner = math.prod(out.shape[:axis]), math.prod(out.shape[axis:])
    parts, offset = [], 0
    for i, t in enumerate(k.inputs):
        inner = math.prod(t.shape[axis:])
        parts.append(strided_copy([outer, inner], "out0", [out_inner, 1], f"in{i}", [inner, 1], dst_base=offset))
        offset += inner
    return "\n".join(parts)


def _split(k: KernelSpec) -> str:
    axis, x = k.attrs["axis"], k.inputs[0]
    outer, in_inner = math.prod(x.shape[:axis]), math.prod(x.shape[axis:])
    inner = in_inner // k.attrs["output_num"]
    return "\n".join(strided_copy([outer, inner], f"out{j}", [inner, 1], "in0", [in_inner, 1], src_base=j * inner)
                     for j in range(k.attrs["output_num"]))


def _slice(k: KernelSpec) -> str:
    x, size = k.inputs[0], k.attrs["size"]
    st = strides(x.shape)
    base = sum(b * s for b, s in zip(k.attrs["begin"], st, strict=True))
    return strided_copy(size, "out0", strides(size), "in0", st, src_base=base)


def _strided_slice(k: KernelSpec) -> str:
    st = strides(k.inputs[0].shape)
    start, step, count = k.attrs["start"], k.attrs["step"], k.attrs["count"]
    base = sum(b * s for b, s in zip(start, st, strict=True))
    src = [s * t for s, t in zip(step, st, strict=True)]
    return strided_copy(count, "out0", strides(count), "in0", src, src_base=base)


def _zero(dtype: str) -> str:
    """C++: a zero element of ``dtype``."""
    return half.literal(0, dtype) if half.is_half(dtype) else f"({ctype(dtype)})0"


def _gather(k: KernelSpec) -> str:
    """Out-of-range indices give zeros, as the CPU's kernel does; ``bounds="raise"`` counts [-n, 0) from the end
    and reports any other index (ops/bounds.py)."""
    params, indices = k.inputs
    a = k.attrs["axis"]
    n, inner, m = params.shape[a], math.prod(params.shape[a + 1:]), indices.size
    check = k.attrs.get("bounds") == "raise"
    stmt = (f"const int64_t r = q % {inner}LL, j = (q / {inner}LL) % {m}LL, o = q / ({inner}LL * {m}LL); "
            f"int64_t i = (int64_t)in1[j]; "
            + (f"if (i < 0) i += {n}LL; if ((i < 0 || i >= {n}LL) && q < {inner}LL * {m}LL && r == 0) "
               f"ob_fail(ob_status, (int64_t)in1[j], j); " if check else "") +
            f"out0[q] = (i >= 0 && i < {n}LL) ? in0[(o * {n}LL + i) * {inner}LL + r] : {_zero(params.dtype)};")
    return grid_loop(k.outputs[0].size, "q", stmt)


def _gather_nd(k: KernelSpec) -> str:
    """One thread per output element: its index row's offset (an entry out of range: zeros; ``bounds="raise"``
    takes [0, n) and reports any other entry, else negatives count from the end)."""
    x, indices = k.inputs
    kk = indices.shape[-1]
    inner = math.prod(x.shape[kk:])
    check = k.attrs.get("bounds") == "raise"
    steps = []
    for d in range(kk):
        n = x.shape[d]
        steps.append(f"{{ int64_t i = (int64_t)in1[j * {kk}LL + {d}]; "
                     + ("" if check else f"if (i < 0) i += {n}LL; ")
                     + f"if (i < 0 || i >= {n}LL) {{ "
                     + (f"if (r == 0) ob_fail(ob_status, (int64_t)in1[j * {kk}LL + {d}], j * {kk}LL + {d}); "
                        if check else "")
                     + f"off = -1; }} else if (off >= 0) off = off * {n}LL + i; }} ")
    stmt = (f"const int64_t r = q % {inner}LL, j = q / {inner}LL; int64_t off = 0; " + "".join(steps)
            + f"out0[q] = off >= 0 ? in0[off * {inner}LL + r] : {_zero(x.dtype)};")
    return grid_loop(k.outputs[0].size, "q", stmt)


for _op in ("Reshape", "ExpandDims", "Squeeze", "Flatten"):
    register(_op, _copy_all)
register("Transpose", _transpose)
register("Concat", _concat)
register("Split", _split)
register("Slice", _slice)
register("StridedSlice", _strided_slice)
register("Gather", _gather)
register("GatherNd", _gather_nd)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Reshape", "ExpandDims", "Squeeze", "Flatten", "Transpose", "Concat", "Split", "Slice",
                        "StridedSlice", "Gather", "GatherNd")

half.allow(*OPS)

__all__ = ["OPS", "strided_copy", "strides"]
