"""FusedRowReduce: reductions over the innermost axes fused with elementwise ops before and after them.

The reduction-fusion pass (passes/reduce_fusion.py) replaces a reduction (ReduceSum/Mean/Max/Min), the
elementwise ops that feed it (prologue) and the elementwise ops that combine its result with the row it
reduced (epilogue: ``x - mean``, ``exp(x - max) / sum``, a whole LayerNorm or Softmax) by one node of this op.
Its attributes are the recipe, as for FusedElementwise (ops/fused.py), so the kernel's ``.info`` lists the
member ops:

    {"members": [{"op": "ReduceMax", "attrs": {"axis": [1], "keep_dims": true}, "args": ["i0"]},
                 {"op": "Sub", "attrs": {}, "args": ["i0", "t0"]},
                 {"op": "Exp", "attrs": {}, "args": ["t1"]},
                 {"op": "ReduceSum", "attrs": {"axis": [1], "keep_dims": true}, "args": ["t2"]},
                 {"op": "RealDiv", "attrs": {}, "args": ["t2", "t3"]}]}

``iK`` is the kernel's K-th input, ``tJ`` member J's result, and a number is a scalar literal of the other
operands' dtype (LayerNorm's epsilon). The last member's result is the output.

Shapes. Every reduction reduces the same innermost axes ``[begin, rank)`` of inputs of the same shape F (the
"full" shape): the kernel works on ``rows`` rows of ``n`` contiguous elements. A member's value is *full*
(shape F: one per element) or *per row* (the keep_dims shape K, F with the reduced axes of size 1); a
reduction with keep_dims=False may only be the last member. Inputs broadcast (NumPy rules) to F or K.

Kernel. Per row (rows split over threads when large), the members run in *loops* over the row's elements:
a full member runs in the first loop where all its operands exist; a reduction accumulates in its operand's
loop and its result exists from the next loop on, so ``exp(x - max) / sum`` takes three loops and a LayerNorm
three. A full value needed by a later loop is kept in a per-row scratch row on the stack (at most
:data:`SCRATCH_LIMIT` bytes, which the pass respects: the row stays in cache between the loops); everything
else lives in registers. Reductions accumulate in the compute type (float for the half types, as the
unfused reductions do) with the lane scheme of ``codegen.lane_reduce`` (the same order of additions), and
every member's result is rounded to its dtype as the unfused op would store it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import ALL_FLOATS, BY_NAME
from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from ..targets.cpu.blocked import load_vec
from ..targets.cpu.codegen import (
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
from ..targets.cpu.kernels.elementwise import cast_src_ctype, member_expr
from ..targets.cpu.kernels.reduction import COMBINE
from .elementwise import FUSIBLE
from .primitive import declare
from .reduction import REDUCTIONS
from .registry import OpDef, get, no_grad

OP = "FusedRowReduce"
ROW_REDUCTIONS: frozenset[str] = frozenset({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"})
# Stack bytes of the scratch rows of one kernel: well inside the smallest thread stack OpenMP gives a worker.
SCRATCH_LIMIT = 128 * 1024


@dataclass(frozen=True)
class Member:
    """One member, analysed: its op, canonical attrs, operands (``("i", k)``, ``("t", j)`` or ``("c", value)``),
    input and output types, ``kind`` (``full``, ``row`` or ``out``: the root reduction without keep_dims) and
    ``level``: the loop a full member runs in, the loop a reduction accumulates in, or for a per-row member
    the loop before which it is computed."""

    op: str
    attrs: dict
    args: tuple[tuple[str, object], ...]
    ins: tuple[TensorType, ...]
    out: TensorType
    kind: str
    level: int


@dataclass(frozen=True)
class Plan:
    """A kernel's analysed recipe: its members, the full shape, the first reduced axis, rows x n, the number
    of loops and the members whose full values are kept in scratch rows."""

    members: tuple[Member, ...]
    full: tuple[int, ...]
    begin: int
    rows: int
    n: int
    loops: int
    scratch: frozenset[int]

    @property
    def scratch_bytes(self) -> int:
        """Stack bytes the scratch rows take (per thread)."""
        return sum(self.n * (8 if compute_ctype(self.members[j].out.dtype) == "double" else 4)
                   for j in self.scratch)


def _operand(ref: object, n_inputs: int, n_done: int) -> tuple[str, object]:
    if isinstance(ref, (int, float)) and not isinstance(ref, bool):
        return "c", float(ref)
    if isinstance(ref, str) and len(ref) > 1 and ref[0] in "it" and ref[1:].isdigit():
        idx = int(ref[1:])
        if idx < (n_inputs if ref[0] == "i" else n_done):
            return ref[0], idx
    raise ValueError(f"bad operand reference {ref!r} (expected 'iK' for input K, 'tJ' for an earlier member J, "
                     "or a number)")


def analyse(attrs: dict, ins: Sequence[TensorType]) -> Plan:
    """The :class:`Plan` of a recipe; ShapeError naming what is wrong when it is not a valid row reduction."""
    members = attrs.get("members")
    if not isinstance(members, list) or not members:
        raise ShapeError(OP, "attribute 'members' must be a non-empty list", list(ins))

    def bad(msg: str):
        return ShapeError(OP, msg, list(ins))

    # Pass 1: types (each member inferred by its own op's declaration).
    typed: list[tuple[str, dict, tuple, tuple[TensorType, ...], TensorType]] = []
    for m in members:
        op = m.get("op") if isinstance(m, dict) else None
        if op not in FUSIBLE and op not in ROW_REDUCTIONS:
            raise bad(f"member {m!r} is neither elementwise nor one of {sorted(ROW_REDUCTIONS)}")
        try:
            refs = tuple(_operand(r, len(ins), len(typed)) for r in m.get("args", []))
        except ValueError as e:
            raise bad(f"member {op}: {e}") from None
        dts = [ins[i].dtype if k == "i" else typed[i][4].dtype for k, i in refs if k != "c"]
        if not dts:
            raise bad(f"member {op}: needs at least one operand that is not a literal")
        types = tuple(ins[i] if k == "i" else typed[i][4] if k == "t" else TensorType((), dts[-1])
                      for k, i in refs)
        spec = get(op).spec(m.get("attrs", {}), list(types))
        if len(spec.outputs) != 1:
            raise bad(f"member {op} must have one output")
        typed.append((op, spec.attrs, refs, types, spec.outputs[0]))
    reds = [(a, t) for op, a, _, t, _ in typed if op in ROW_REDUCTIONS]
    if not reds:
        raise bad("a row reduction needs at least one reduction member")
    full = reds[0][1][0].shape
    axes = tuple(reds[0][0]["axis"])
    begin = axes[0] if axes else len(full)
    if axes != tuple(range(begin, len(full))):
        raise bad(f"reductions must reduce the innermost axes; got axis {list(axes)} of shape {list(full)}")
    n = math.prod(full[begin:])
    if n < 2:
        raise bad(f"the reduced axes of {list(full)} hold {n} element(s): nothing to fuse")
    rowshape = full[:begin] + (1,) * (len(full) - begin)
    # Pass 2: kinds and loops.
    done: list[Member] = []
    for j, (op, a, refs, types, out) in enumerate(typed):
        last = j == len(typed) - 1
        t_args = [done[i] for k, i in refs if k == "t"]
        if any(t.kind == "out" for t in t_args):
            raise bad("a reduction without keep_dims can only be the last member")
        if op in ROW_REDUCTIONS:
            if types[0].shape != full or tuple(a["axis"]) != axes or types[0].dtype not in ALL_FLOATS:
                raise bad(f"every reduction must reduce axis {list(axes)} of a float {list(full)} value; "
                          f"member {j} ({op}) reduces {list(a['axis'])} of {types[0]}")
            kind = "row" if a["keep_dims"] else "out"
            if kind == "out" and not last:
                raise bad("a reduction without keep_dims can only be the last member")
            level = t_args[0].level if t_args else 0
        elif out.shape == full:
            kind = "full"
            level = max([t.level if t.kind == "full" else t.level + (t.op in ROW_REDUCTIONS) for t in t_args],
                        default=0)
        elif out.shape == rowshape:
            kind = "row"
            if any(t.kind == "full" for t in t_args):
                raise bad(f"member {j} ({op}) combines full values into a per-row shape")
            level = max([t.level + (t.op in ROW_REDUCTIONS) for t in t_args], default=0)
        else:
            raise bad(f"member {j} ({op}) has shape {list(out.shape)}; members must have the full shape "
                      f"{list(full)} or the per-row shape {list(rowshape)}")
        done.append(Member(op, a, refs, types, out, kind, level))
    loops = 1 + max([m.level for m in done if m.kind == "full" or m.op in ROW_REDUCTIONS], default=0)
    # A full value read by a full member of a later loop is kept in a scratch row.
    scratch = frozenset(i for m in done if m.kind == "full" for k, i in m.args
                        if k == "t" and done[i].kind == "full" and done[i].level < m.level)
    plan = Plan(tuple(done), full, begin, math.prod(full[:begin]), n, loops, scratch)
    if plan.scratch_bytes > SCRATCH_LIMIT:
        raise bad(f"the recipe keeps {plan.scratch_bytes} bytes of scratch rows per row; at most {SCRATCH_LIMIT}")
    return plan


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return [analyse(attrs, ins).members[-1].out]


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    """Members' attrs canonical (as their own ops normalise them) and literals as floats: equal recipes share
    one key."""
    plan = analyse(attrs, ins)
    return {"members": [{"op": m.op, "attrs": m.attrs,
                         "args": [v if k == "c" else f"{k}{v}" for k, v in m.args]} for m in plan.members]}


# ---- C emission -------------------------------------------------------------------------------------

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
                if REDUCTIONS[m.op].mean else f"acc{j}[0]"
            lines.append(f"t{j} = {round_trip(m.out.dtype, fin, ct)};")
    lines += row_members(plan.loops)
    if root_row:
        lines.append(f"ob_f16_store_block(out0 + r * {plan.n}, yf, {plan.n});")
    if ms[root].kind != "full":
        lines.append(f"out0[r] = {store(out.dtype, f't{root}', compute_ctype(out.dtype))};")
    lines.append("}")
    return "\n".join(lines)


def _reference(attrs: dict, *arrays: np.ndarray) -> np.ndarray:
    """The members' own NumPy references, applied in order (what the unfused graph computes)."""
    ins = [TensorType(tuple(a.shape), a.dtype.name) for a in arrays]
    results: list[np.ndarray] = []
    for m in analyse(attrs, ins).members:
        args = [arrays[v] if k == "i" else results[v] if k == "t" else np.array(v, BY_NAME[t.dtype].np_dtype)
                for (k, v), t in zip(m.args, m.ins, strict=True)]
        opdef = get(m.op)
        results.append(opdef.run_reference(opdef.spec(m.attrs, list(m.ins)), args)[0])
    return results[-1]


declare(OpDef(OP, _infer, _reference, normalize=_normalize, emit=_emit),
        "FusedRowReduce: a row reduction with its elementwise prologue and epilogue, fused into one kernel by the "
        "reduction-fusion pass (internal).")
# Autodiff differentiates the unfused graph; a fused node only ever appears after it (passes/reduce_fusion.py).
no_grad(OP)

PRIMITIVES: dict[str, type] = {}  # internal: nothing to export
