"""CPU kernels of FusedRowReduce (ops/fused_reduce.py).

Per row (rows split over threads when large), the members run in *loops* over the row's elements: a full
member runs in the first loop where all its operands exist; a reduction accumulates in its operand's loop and
its result exists from the next loop on. A full value needed by a later loop is kept in a per-row scratch row
on the stack (at most ``SCRATCH_LIMIT`` bytes); everything else lives in registers. Reductions accumulate in
the compute type (float for the half types, as the unfused reductions do) with the lane scheme of
``codegen.lane_reduce`` (the same order of additions), and every member's result is rounded to its dtype as
the unfused op would store it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops import reduction as R
from ....ops.fused_reduce import OP, ROW_REDUCTIONS, SCRATCH_LIMIT, Member, Plan, analyse
from ..blocked import load_vec
from ..codegen import (
    broadcast_strides,
    c_literal,
    compute_ctype,
    load,
    parallel_for,
    round_trip,
    simd_lanes,
    store,
    strides,
)
from .elementwise import cast_src_ctype, member_expr
from .reduction import COMBINE
from .registry import register


def _coord_terms(shape: Sequence[int], st: Sequence[int], idx: str) -> str:
    """Offset, under element strides ``st``, of flat index ``idx`` of a C-contiguous ``shape``."""
    terms = []
    inner = 1
    for d in range(len(shape) - 1, -1, -1):
        if st[d] and shape[d] > 1:
            coord = idx if inner == 1 else f"({idx} / {inner})"
            if inner * shape[d] < math.prod(shape):
                coord = f"({coord} % {shape[d]})"
            terms.append(coord if st[d] == 1 else f"{coord} * {st[d]}")
        inner *= shape[d]
    return " + ".join(reversed(terms)) or "0"


def _input_index(t: TensorType, plan: Plan) -> tuple[str, str]:
    """(row part, element part) of input ``t``'s offset at row ``r``, element ``j`` (NumPy broadcasting
    against the full shape)."""
    st = broadcast_strides(t.shape, plan.full)
    b = plan.begin
    outer = _coord_terms(plan.full[:b], st[:b], "r")
    if list(st[b:]) == strides(plan.full)[b:]:
        return outer, "j"  # the input holds whole rows: element j of the row
    return outer, _coord_terms(plan.full[b:], st[b:], "j")


def _f16_rows(k: KernelSpec, plan: Plan, index: list[tuple[str, str]]) -> tuple[list[int], bool]:
    """(the float16 inputs that hold whole rows, whether the result is a float16 full-shape row): these live
    in float rows converted by blocks (targets/cpu/blocked.py) when they fit the stack budget with the
    scratch rows, since a _Float16 load or store keeps a loop scalar with gcc 12. Same values, same bits."""
    rows = [v for v, t in enumerate(k.inputs) if t.dtype == "float16" and index[v][1] == "j"]
    root_row = plan.members[-1].kind == "full" and k.outputs[0].dtype == "float16"
    if plan.scratch_bytes + 4 * plan.n * (len(rows) + root_row) > SCRATCH_LIMIT:
        return [], False
    return rows, root_row


def _emit(k: KernelSpec) -> str:
    plan = analyse(k.attrs, k.inputs)
    ms = plan.members
    out = k.outputs[0]
    if out.size == 0:
        return "/* empty output: nothing to compute */"
    index = [_input_index(t, plan) for t in k.inputs]
    root = len(ms) - 1
    f16_rows, root_row = _f16_rows(k, plan, index)

    def operand(m: Member, a: tuple[str, object], t: TensorType, level: int | None) -> str:
        kind, v = a
        if kind == "c":
            return load(t.dtype, c_literal(v, t.dtype))
        if kind == "i":
            outer, inner = index[v]
            if level is not None and v in f16_rows:
                return f"xf{v}[j]"
            pos = f"b{v}" if level is None else f"b{v} + {inner}"
            return load_vec(t.dtype, f"in{v}[{pos}]")  # float16: vectorisable (targets/cpu/blocked.py)
        src = ms[v]
        if src.kind == "full" and v in plan.scratch and src.level != level:
            return f"sc{v}[j]"
        return f"t{v}"

    def compute(j: int, level: int | None) -> str:
        m = ms[j]
        names, expr = member_expr(m.op, m.ins, m.out)
        loads = " ".join(f"const {compute_ctype(t.dtype)} {nm} = {operand(m, a, t, level)};"
                         for nm, t, a in zip(names, m.ins, m.args, strict=True))
        src = cast_src_ctype(m.ins[0].dtype, m.out.dtype) if m.op == "Cast" else compute_ctype(m.ins[-1].dtype)
        decl = f"const {compute_ctype(m.out.dtype)} " if level is not None else ""
        return f"{decl}t{j} = ({{ {loads} {round_trip(m.out.dtype, expr, src)}; }});"

    def body(level: int, acc: str) -> list[str]:
        """Statements for element ``j`` of loop ``level``; reductions combine into ``acc``-named targets."""
        lines = []
        for j, m in enumerate(ms):
            if m.kind == "full" and m.level == level:
                lines.append(compute(j, level))
                if j in plan.scratch:
                    lines.append(f"sc{j}[j] = t{j};")
                if j == root:
                    lines.append(f"yf[j] = t{j};" if root_row else
                                 f"out0[r * {plan.n} + j] = {store(m.out.dtype, f't{j}', compute_ctype(m.out.dtype))};")
        for j, m in enumerate(ms):
            if m.op in ROW_REDUCTIONS and m.level == level:
                v = operand(m, m.args[0], m.ins[0], level)
                comb = COMBINE[m.op].combine
                target = acc.replace("#", str(j))
                lines.append(f"{{ const {compute_ctype(m.ins[0].dtype)} e_ = {v}, a_ = {target}; "
                             f"{target} = {comb('a_', 'e_')}; }}")
        return lines

    lines = [f"{parallel_for(plan.rows * plan.n if plan.rows > 1 else 0)}for (int64_t r = 0; r < {plan.rows}; r++) {{"]
    lines += [f"const int64_t b{i} = {index[i][0]};" for i in range(len(k.inputs))]
    lines += [f"float xf{v}[{plan.n}]; ob_f16_load_block(xf{v}, in{v} + b{v}, {plan.n});" for v in f16_rows]
    lines += [f"float yf[{plan.n}];"] if root_row else []
    lines += [f"{compute_ctype(ms[j].out.dtype)} sc{j}[{plan.n}];" for j in sorted(plan.scratch)]
    for j, m in enumerate(ms):
        if m.kind != "full":
            lines.append(f"{compute_ctype(m.out.dtype)} t{j};")

    def row_members(level: int) -> list[str]:
        return [compute(j, None) for j, m in enumerate(ms)
                if m.kind == "row" and m.op not in ROW_REDUCTIONS and m.level == level]

    for level in range(plan.loops):
        lines += row_members(level)
        reds = [j for j, m in enumerate(ms) if m.op in ROW_REDUCTIONS and m.level == level]
        if not reds:
            lines += [f"for (int64_t j = 0; j < {plan.n}; j++) {{", *body(level, "#"), "}"]
            continue
        ct = compute_ctype(ms[reds[0]].ins[0].dtype)
        lanes = simd_lanes("float64" if ct == "double" else "float32")
        main = plan.n - plan.n % lanes if plan.n >= 2 * lanes else 0
        for j in reds:
            ident = COMBINE[ms[j].op].identity("float64" if ct == "double" else "float32")
            lines.append(f"{ct} acc{j}[{lanes}]; for (int l = 0; l < {lanes}; l++) acc{j}[l] = {ident};")
        if main:
            lines += [f"for (int64_t j0 = 0; j0 < {main}; j0 += {lanes})",
                      f"for (int l = 0; l < {lanes}; l++) {{ const int64_t j = j0 + l;",
                      *body(level, "acc#[l]"), "}"]
            for j in reds:  # the lanes combined pairwise, as lane_reduce does
                comb = COMBINE[ms[j].op].combine
                lines.append(f"for (int w = {lanes // 2}; w > 0; w >>= 1) for (int l = 0; l < w; l++) "
                             f"{{ const {ct} a_ = acc{j}[l], e_ = acc{j}[l + w]; acc{j}[l] = {comb('a_', 'e_')}; }}")
        lines += [f"for (int64_t j = {main}; j < {plan.n}; j++) {{", *body(level, "acc#[0]"), "}"]
        for j in reds:
            m = ms[j]
            fin = f"acc{j}[0] / {c_literal(plan.n, 'float64' if ct == 'double' else 'float32')}" \
                if R.REDUCTIONS[m.op].mean else f"acc{j}[0]"
            lines.append(f"t{j} = {round_trip(m.out.dtype, fin, ct)};")
    lines += row_members(plan.loops)
    if root_row:
        lines.append(f"ob_f16_store_block(out0 + r * {plan.n}, yf, {plan.n});")
    if ms[root].kind != "full":
        lines.append(f"out0[r] = {store(out.dtype, f't{root}', compute_ctype(out.dtype))};")
    lines.append("}")
    return "\n".join(lines)


register(OP, _emit)
