"""GPU kernels of FusedElementwise (ops/fused.py): one grid-stride loop over the output; per element each input
is loaded once and the members are evaluated in order, each with the expression its own GPU kernel uses
(``elementwise.expr_of``) and stored in its dtype as the unfused op would store it, so fused and unfused GPU
kernels compute the same values. Values live in their compute types (float for the half types); a half
member's result is rounded to its dtype (``half.round_trip``), as the CPU's fused kernels do."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec
from ....ops.fused import OP, member_types
from .. import half
from ..codegen import broadcast_offsets, check_dtypes, grid_loop
from .elementwise import expr_of, src_ctype
from .registry import register


def member_statements(typed: Sequence, members: Sequence[dict], operands: Sequence[str]) -> list[str]:
    """C++ statements computing each member's result ``tJ`` (in its compute type, rounded to its dtype) of the
    recipe ``members`` (typed by ``ops.fused.member_types``), input ``iK`` being the variable ``operands[K]``."""
    ct = half.compute_ctype
    for op, _, m_ins, res in typed:
        check_dtypes(op, [*m_ins, res])
    stmts = []
    for j, ((op, _, m_ins, res), m) in enumerate(zip(typed, members, strict=True)):
        names, expr = expr_of(op, m_ins, res)
        loads = " ".join(f"const {ct(t.dtype)} {n} = {operands[int(r[1:])] if r[0] == 'i' else 't' + r[1:]};"
                         for n, t, r in zip(names, m_ins, m["args"], strict=True))
        value = half.round_trip(res.dtype, expr, src_ctype(op, m_ins, res))
        stmts.append(f"{ct(res.dtype)} t{j}; {{ {loads} t{j} = {value}; }}")
    return stmts


def _emit(k: KernelSpec) -> str:
    typed = member_types(k.attrs, k.inputs)
    out = k.outputs[0]
    offsets = broadcast_offsets(out.shape, [t.shape for t in k.inputs])
    ct = half.compute_ctype
    stmts = [f"const {ct(t.dtype)} v{i} = {half.load(t.dtype, f'in{i}[{off}]')};"
             for i, (t, off) in enumerate(zip(k.inputs, offsets, strict=True))]
    stmts += member_statements(typed, k.attrs["members"], [f"v{i}" for i in range(len(k.inputs))])
    stmts.append(f"out0[o] = {half.store(out.dtype, f't{len(typed) - 1}', ct(out.dtype))};")
    return grid_loop(out.size, "o", " ".join(stmts))


register(OP, _emit)
half.allow(OP)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = (OP,)

__all__ = ["OPS", "member_statements"]
