"""GPU kernels of FusedRowReduce (ops/fused_reduce.py): a reduction over the innermost axes with the
elementwise members before and after it (Softmax, LayerNorm, ``x - mean``, ...), one block per row.

The plan is the op's own (``ops.fused_reduce.analyse``): members run in *loops* over the row's elements, a
reduction accumulating in its operand's loop and its result existing from the next loop on. Each thread takes a
strided part of the row in every loop; a reduction's partial results are combined through shared memory
after its loop (``reduction.block_reduce``), and per-row members are computed then. Where the CPU keeps a full
value needed by a later loop in a scratch row, the GPU recomputes it from the inputs (each loop evaluates every
full member up to its level): registers are cheaper than a scratch row in global memory.

Half types as on the CPU: values live in float, reductions accumulate in float, and every member's result is
rounded to its dtype (``half.round_trip``), so a fused float16 Softmax rounds each step as the unfused one.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.fused_reduce import OP, ROW_REDUCTIONS, Member, Plan, analyse
from .. import half
from ..codegen import broadcast_offsets, check_dtypes
from .elementwise import expr_of, src_ctype
from .reduction import NAN_MAX, NAN_MIN, block_reduce
from .registry import register

_COMBINE = {"ReduceSum": "(a + b)", "ReduceMean": "(a + b)", "ReduceMax": NAN_MAX, "ReduceMin": NAN_MIN}


ctype = half.compute_ctype  # every value of a fused kernel lives in its compute type


def _neutral(op: str, t: str) -> str:
    inf = f"(({t})1 / ({t})0)"
    return {"ReduceMax": f"-{inf}", "ReduceMin": inf}.get(op, f"({t})0")


def _operand(m: Member, idx: int, prefix: str) -> str:
    kind, v = m.args[idx]
    if kind == "i":
        return f"{prefix}{v}"
    if kind == "t":
        return f"t{v}"
    dt = m.ins[idx].dtype
    if half.is_half(dt):  # the literal rounded to the half type, as the CPU's kernel has it
        return half.load(dt, half.literal(float(v), dt))
    return f"({ctype(dt)}){float(v)!r}"  # a literal of the other operands' dtype


def _member(j: int, m: Member, prefix: str) -> str:
    """``T tJ = ...;`` of elementwise member ``j`` (its inputs named ``<prefix>K``)."""
    names, expr = expr_of(m.op, list(m.ins), m.out)
    loads = " ".join(f"const {ctype(t.dtype)} {n} = {_operand(m, i, prefix)};"
                     for i, (n, t) in enumerate(zip(names, m.ins, strict=True)))
    t = ctype(m.out.dtype)
    return f"{t} t{j}; {{ {loads} t{j} = {half.round_trip(m.out.dtype, expr, src_ctype(m.op, m.ins, m.out))}; }}"


def _loads(k: KernelSpec, plan: Plan, var: str, prefix: str) -> str:
    offsets = broadcast_offsets(plan.full, [t.shape for t in k.inputs], var)
    return " ".join(f"const {ctype(t.dtype)} {prefix}{i} = {half.load(t.dtype, f'in{i}[{off}]')};"
                    for i, (t, off) in enumerate(zip(k.inputs, offsets, strict=True)))


def _emit(k: KernelSpec) -> str:
    plan = analyse(k.attrs, k.inputs)
    members = plan.members
    for m in members:
        check_dtypes(m.op, [*m.ins, m.out])
    last = len(members) - 1
    n = plan.n
    body = [f"    const int64_t base = row * {n}LL;"]

    def row_members(level: int) -> None:
        todo = [j for j, m in enumerate(members) if m.kind == "row" and m.op not in ROW_REDUCTIONS
                and m.level == level]
        if todo:
            body.append(f"    {_loads(k, plan, 'base', 'r')}")
            body.extend(f"    {_member(j, members[j], 'r')}" for j in todo)

    for level in range(plan.loops):
        row_members(level)
        reds = [j for j, m in enumerate(members) if m.op in ROW_REDUCTIONS and m.level == level]
        for j in reds:
            t = ctype(members[j].out.dtype)
            body.append(f"    {t} p{j} = {_neutral(members[j].op, t)};")
        inner = [_loads(k, plan, "fi", "v")]
        inner += [_member(j, m, "v") for j, m in enumerate(members) if m.kind == "full" and m.level <= level]
        for j in reds:
            m, t = members[j], ctype(members[j].out.dtype)
            inner.append(f"{{ const {t} a = p{j}, b = ({t}){_operand(m, 0, 'v')}; p{j} = ({t}){_COMBINE[m.op]}; }}")
        if members[last].kind == "full" and level == plan.loops - 1:
            inner.append(f"out0[fi] = {half.store(k.outputs[0].dtype, f't{last}', ctype(k.outputs[0].dtype))};")
        body.append(f"    for (int64_t j = threadIdx.x; j < {n}LL; j += OB_BLOCK) {{ const int64_t fi = base + j; "
                    + " ".join(inner) + " }")
        for j in reds:
            t = ctype(members[j].out.dtype)
            body.append(block_reduce(t, _COMBINE[members[j].op], f"p{j}", f"s{j}").rstrip("\n"))
            total = f"(s{j} / ({t}){n})" if members[j].op == "ReduceMean" else f"s{j}"
            body.append(f"    const {t} t{j} = {half.round_trip(members[j].out.dtype, total, t)};")
    row_members(plan.loops)
    if members[last].kind != "full":
        result = half.store(k.outputs[0].dtype, f"t{last}", ctype(k.outputs[0].dtype))
        body.append(f"    if (threadIdx.x == 0) out0[row] = {result};")
    return (f"  for (int64_t row = blockIdx.x; row < {plan.rows}LL; row += gridDim.x) {{\n" + "\n".join(body)
            + "\n  }")


register(OP, _emit)
half.allow(OP)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = (OP,)

__all__ = ["OPS"]
