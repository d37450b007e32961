"""GPU kernels of the fill family (ops/filling.py) besides BroadcastTo (elementwise.py): Tile, Pad, OnesLike,
ZerosLike and Fill; one grid-stride loop over the output each, an element's source found from its
coordinates. Half elements are moved as they are stored; a half constant is the value rounded by NumPy /
ml_dtypes (``half.literal``)."""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from .. import half
from ..codegen import ctype, grid_loop
from .layout import strides
from .registry import register


def literal(value: object, dtype: str) -> str:
    """``value`` as a C++ literal of ``dtype`` (non-finite floats as expressions, as C has no literal for them)."""
    t = ctype(dtype)
    if half.is_half(dtype):
        return half.literal(value, dtype)
    if dtype == "bool":
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return f"(({t})0 / ({t})0)"
        if value in (float("inf"), float("-inf")):
            return f"({'-' if value < 0 else ''}({t})1 / ({t})0)"
        return f"(({t}){value!r})"
    return f"(({t}){int(value)}ULL)" if dtype.startswith("uint") else f"(({t}){int(value)}LL)"


def _coords_source(out_shape: list[int], in_shape: list[int], index_of: str) -> str:
    """C: the input offset of output element ``o``, the input coordinate along each axis given by
    ``index_of`` formatted with ``c`` (the output coordinate) and ``d`` (the input dim)."""
    terms, inner = [], 1
    ist = strides(in_shape)
    for ax in range(len(out_shape) - 1, -1, -1):
        c = f"((o / {inner}LL) % {out_shape[ax]}LL)" if inner > 1 else f"(o % {out_shape[ax]}LL)"
        if in_shape[ax] > 1:
            terms.append(f"{index_of.format(c=c, d=in_shape[ax])} * {ist[ax]}LL")
        inner *= out_shape[ax]
    return " + ".join(terms) or "0"


def _tile(k: KernelSpec) -> str:
    mult = list(k.attrs["multiples"])
    shape = [1] * (len(mult) - k.inputs[0].rank) + list(k.inputs[0].shape)
    out = [s * m for s, m in zip(shape, mult, strict=True)]
    return grid_loop(math.prod(out), "o", f"out0[o] = in0[{_coords_source(out, shape, '({c} % {d}LL)')}];")


def _pad(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    conds, terms, inner = [], [], 1
    ist = strides(x.shape)
    for ax in range(out.rank - 1, -1, -1):
        before = k.attrs["paddings"][ax][0]
        c = f"((o / {inner}LL) % {out.shape[ax]}LL)" if inner > 1 else f"(o % {out.shape[ax]}LL)"
        conds.append(f"({c} >= {before}LL && {c} < {before + x.shape[ax]}LL)")
        terms.append(f"({c} - {before}LL) * {ist[ax]}LL")
        inner *= out.shape[ax]
    inside = " && ".join(conds) or "true"
    src = " + ".join(terms) or "0"
    return grid_loop(out.size, "o", f"out0[o] = ({inside}) ? in0[{src}] : {literal(0, x.dtype)};")


def _const(value_of):
    def emit(k: KernelSpec) -> str:
        out = k.outputs[0]
        return grid_loop(out.size, "o", f"out0[o] = {literal(value_of(k), out.dtype)};")

    return emit


register("Tile", _tile)
register("Pad", _pad)
register("OnesLike", _const(lambda k: 1))
register("ZerosLike", _const(lambda k: 0))
register("Fill", _const(lambda k: k.attrs["value"]))
half.allow(*("Tile", "Pad", "OnesLike", "ZerosLike", "Fill"))

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Tile", "Pad", "OnesLike", "ZerosLike", "Fill")

__all__ = ["OPS", "literal"]
