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

Plan. Per row, the members run in *loops* over the row's elements: a full member runs in the first loop where
all its operands exist; a reduction accumulates in its operand's loop and its result exists from the next loop
on, so ``exp(x - max) / sum`` takes three loops and a LayerNorm three. A full value needed by a later loop is
kept in a per-row scratch row (at most :data:`SCRATCH_LIMIT` bytes, which the pass respects). The CPU's kernel
(targets/cpu/kernels/fused_reduce.py) follows the plan :func:`analyse` makes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import ALL_FLOATS, BY_NAME
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .elementwise import FUSIBLE
from .primitive import declare
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
        return sum(self.n * (8 if BY_NAME[self.members[j].out.dtype].compute_c == "double" else 4)
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


declare(OpDef(OP, _infer, _reference, normalize=_normalize),
        "FusedRowReduce: a row reduction with its elementwise prologue and epilogue, fused into one kernel by the "
        "reduction-fusion pass (internal).")
# Autodiff differentiates the unfused graph; a fused node only ever appears after it (passes/reduce_fusion.py).
no_grad(OP)

PRIMITIVES: dict[str, type] = {}  # internal: nothing to export
