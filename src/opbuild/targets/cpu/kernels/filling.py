"""CPU kernels of the fill family (ops/filling.py): Tile, BroadcastTo, Pad, OnesLike, ZerosLike and Fill."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec
from ..codegen import c_literal, strided_copy, strides
from .registry import register


def _replicate(in_shape: Sequence[int], mult: Sequence[int]) -> str:
    """Body writing ``np.tile(in0, mult)`` into ``out0`` (``in_shape`` has the rank of ``mult``).

    The input is copied once into the first tile; then, innermost dim first, the block already written
    along each dim (contiguous, since every inner dim is complete) is replicated with memcpy. Every byte is
    written once and every copy is a contiguous run.
    """
    out_shape = [s * m for s, m in zip(in_shape, mult, strict=True)]
    if math.prod(out_shape) == 0:
        return "/* empty */"
    ost = strides(out_shape)
    parts = [strided_copy(in_shape, "out0", ost, "in0", strides(in_shape))]
    for d in range(len(in_shape) - 1, -1, -1):
        if mult[d] == 1:
            continue
        block = in_shape[d] * ost[d]
        counts = list(in_shape[:d]) + [mult[d] - 1, block]
        parts.append(strided_copy(counts, "out0", ost[:d] + [block, 1], "out0", ost[:d] + [0, 1],
                                  dst_base=block, var=f"t{d}_"))
    return "\n".join(parts)


def _tile_emit(k: KernelSpec) -> str:
    mult = k.attrs["multiples"]
    return _replicate((1,) * (len(mult) - k.inputs[0].rank) + k.inputs[0].shape, mult)


def _broadcast_to_emit(k: KernelSpec) -> str:
    out = k.attrs["shape"]
    shape = [1] * (len(out) - k.inputs[0].rank) + list(k.inputs[0].shape)
    return _replicate(shape, [t if s == 1 else 1 for s, t in zip(shape, out, strict=True)])


def _pad_emit(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    if out.size == 0:
        return "/* empty */"
    ost = strides(out.shape)
    base = sum(a * s for (a, _), s in zip(k.attrs["paddings"], ost, strict=True))
    interior = strided_copy(x.shape, "out0", ost, "in0", strides(x.shape), dst_base=base)
    if out.size == x.size:
        return interior
    # All-zero bytes are 0 for every supported dtype; memset then the interior rows is two streaming passes.
    return f"memset(out0, 0, {out.size} * sizeof(*out0));\n{interior}"


def _fill_body(n: int, literal: str) -> str:
    """Fill ``out0`` with a constant (a plain loop gcc vectorises; zero-size outputs emit nothing)."""
    return f"for (int64_t o = 0; o < {n}; o++) out0[o] = {literal};" if n else "/* empty */"


def _ones_like_emit(k: KernelSpec) -> str:
    return _fill_body(k.outputs[0].size, c_literal(1, k.outputs[0].dtype))


def _zeros_like_emit(k: KernelSpec) -> str:
    n = k.outputs[0].size
    return f"memset(out0, 0, {n} * sizeof(*out0));" if n else "/* empty */"


def _fill_emit(k: KernelSpec) -> str:
    dt = k.attrs["dtype"]
    return _fill_body(k.outputs[0].size, c_literal(k.attrs["value"], dt))


register("Tile", _tile_emit)
register("BroadcastTo", _broadcast_to_emit)
register("Pad", _pad_emit)
register("OnesLike", _ones_like_emit)
register("ZerosLike", _zeros_like_emit)
register("Fill", _fill_emit)
