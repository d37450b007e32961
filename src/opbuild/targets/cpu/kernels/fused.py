"""CPU kernels of FusedElementwise (ops/fused.py): one loop over the output; per element each input is loaded
once and the members are evaluated in order, each with the expression its own kernel uses
(``elementwise.member_expr``), so fused and unfused kernels compute the same values."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.fused import OP, member_types
from ..blocked import BLOCK, broadcast_map, flat_map
from ..codegen import broadcast_loop, compute_ctype, load, round_trip, store
from .elementwise import cast_src_ctype, member_expr
from .registry import register

# The most members a fused kernel with float16 members evaluates a member per loop (a block buffer of up to
# 2 KiB each on the stack); longer recipes round each float16 member per element (ob_f16_round).
MAX_STAGED = 16


def member_statements(typed: Sequence[tuple[str, dict, list[TensorType], TensorType]], members: Sequence[dict],
                      ins: Sequence[TensorType], elements: Sequence[str], loaded: bool = False) -> list[str]:
    """C statements evaluating a recipe for one element: input K's element is the C lvalue ``elements[K]``
    (of type ``ins[K]``), loaded once into ``vK`` (``loaded``: ``elements`` are already values of the compute
    types, e.g. read from a block converted to float32); member J's result is ``tJ``, the last one the recipe's
    result (of the last member's compute type). Shared with the GEMM/convolution epilogues (fused_gemm.py).

    Values live in their compute types (float for the half types); each member's result is rounded to its
    dtype as the unfused op would store it, so fusing never changes a bit."""
    stmts = [f"const {compute_ctype(t.dtype)} v{i} = {ref if loaded else load(t.dtype, ref)};"
             for i, (t, ref) in enumerate(zip(ins, elements, strict=True))]
    for j, ((op, _, m_ins, res), m) in enumerate(zip(typed, members, strict=True)):
        names, expr = member_expr(op, m_ins, res)
        loads = " ".join(f"const {compute_ctype(t.dtype)} {n} = {'v' if r[0] == 'i' else 't'}{r[1:]};"
                         for n, t, r in zip(names, m_ins, m["args"], strict=True))
        src = cast_src_ctype(m_ins[0].dtype, res.dtype) if op == "Cast" else compute_ctype(m_ins[-1].dtype)
        stmts.append(f"{compute_ctype(res.dtype)} t{j}; {{ {loads} t{j} = {round_trip(res.dtype, expr, src)}; }}")
    return stmts


def _emit(k: KernelSpec) -> str:
    """One loop over the output; per element: load each input once, evaluate the members in order, each in
    its own block (the table's expressions use fixed operand names), store the last."""
    typed = member_types(k.attrs, k.inputs)
    out = k.outputs[0]
    flat = all(t.shape == out.shape for t in k.inputs)

    def compute(elems: Sequence[str]) -> tuple[str, str, str]:
        stmts = member_statements(typed, k.attrs["members"], k.inputs, elems, loaded=True)
        return "\n".join(stmts), f"t{len(typed) - 1}", compute_ctype(out.dtype)

    def staged(elems: Sequence[str]) -> tuple:
        """A member per stage, each a loop over the block into its own buffer ob_tJ: a float16 member is stored
        unrounded and its block rounded at once (ob_f16_round_block, F16C), the other members round inline."""
        stages = []
        for j, ((op, _, ins, res), m) in enumerate(zip(typed, k.attrs["members"], strict=True)):
            names, expr = member_expr(op, ins, res)
            loads = " ".join(f"const {compute_ctype(t.dtype)} {n} = "
                             f"{elems[int(r[1:])] if r[0] == 'i' else f'ob_t{r[1:]}[ob_l]'};"
                             for n, t, r in zip(names, ins, m["args"], strict=True))
            src = cast_src_ctype(ins[0].dtype, res.dtype) if op == "Cast" else compute_ctype(ins[-1].dtype)
            block = res.dtype == "float16" and src == "float"
            value = f"({expr})" if block else round_trip(res.dtype, expr, src)
            # The last member's rounding is the float16 store's own (rounding twice changes nothing).
            after = f"ob_f16_round_block(ob_t{j}, ob_m);" if block and j < len(typed) - 1 else ""
            stages.append((f"{compute_ctype(res.dtype)} ob_t{j}[{BLOCK}];", f"{loads} ob_t{j}[ob_l] = {value};", after))
        return stages, "", f"ob_t{len(typed) - 1}[ob_l]", compute_ctype(out.dtype)

    dts = [t.dtype for t in k.inputs]
    # float16 members: staged (a member per loop) up to MAX_STAGED members, whose buffers live on the stack
    use_staged = any(res.dtype == "float16" for _, _, _, res in typed) and len(typed) <= MAX_STAGED
    fn = staged if use_staged else compute
    if flat:  # float16 operands converted a block at a time (targets/cpu/blocked.py)
        return flat_map(out.size, dts, out.dtype, fn, staged=use_staged)
    blocked = broadcast_map(out.shape, [t.shape for t in k.inputs], dts, out.dtype, fn, staged=use_staged)
    if blocked:
        return blocked
    stmts, last, ct = compute([load(t.dtype, f"in{i}[p{i}]") for i, t in enumerate(k.inputs)])
    stmt = f"{stmts}\nout0[o] = {store(out.dtype, last, ct)};"
    return broadcast_loop(out.shape, [t.shape for t in k.inputs], stmt, parallel=True)


register(OP, _emit)
