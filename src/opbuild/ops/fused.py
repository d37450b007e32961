"""FusedElementwise: a chain (or small DAG) of elementwise ops evaluated per element in one loop.

The fusion pass (passes/fusion.py) replaces a group of elementwise nodes (ops/elementwise.py: unary and
broadcasting binary maps, Select, Cast, ClipByValue and the backward maps) by one node of this op. Its
attributes are the whole recipe, so the kernel's ``.info`` lists its member ops:

    {"members": [{"op": "Mul", "attrs": {}, "args": ["i0", "i1"]},
                 {"op": "ReLU", "attrs": {}, "args": ["t0"]}]}

``iK`` names the kernel's K-th input, ``tJ`` the result of member J (an earlier member); the last member's
result is the kernel's output. Every member has the output's shape (the pass fuses nothing that would
compute a smaller intermediate once per output element), so each member's value for output element ``o`` is
computed once, from the inputs' elements under NumPy broadcasting.

A target evaluates each member as its own kernel does (the CPU: targets/cpu/kernels/fused.py), so fused and
unfused kernels compute the same values. The op is internal (not exported; MindSpore's graph-kernel fusion keeps its
fused operators internal too) and has no gradient rule: autodiff runs on unfused graphs, before the passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from .elementwise import FUSIBLE
from .primitive import declare
from .registry import OpDef, get, no_grad

OP = "FusedElementwise"


def _operand(ref: Any, n_inputs: int, n_done: int) -> tuple[str, int]:
    """``("i", k)`` or ``("t", j)`` of a wiring reference, checked against what exists at that point."""
    if isinstance(ref, str) and len(ref) > 1 and ref[0] in "it" and ref[1:].isdigit():
        idx = int(ref[1:])
        if idx < (n_inputs if ref[0] == "i" else n_done):
            return ref[0], idx
    raise ValueError(f"bad operand reference {ref!r}")


def member_types(attrs: dict, ins: Sequence[TensorType]) -> list[tuple[str, dict, list[TensorType], TensorType]]:
    """``(op, canonical attrs, input types, output type)`` of every member, inferred in order by each member
    op's own declaration; ShapeError when the recipe is malformed or a member's output does not have the
    fused output's shape."""
    members = attrs.get("members")
    if not isinstance(members, list) or not members:
        raise ShapeError(OP, "attribute 'members' must be a non-empty list", list(ins))
    out: list[tuple[str, dict, list[TensorType], TensorType]] = []
    for m in members:
        op = m.get("op") if isinstance(m, dict) else None
        if op not in FUSIBLE:
            raise ShapeError(OP, f"member {m!r} is not an elementwise op", list(ins))
        try:
            refs = [_operand(r, len(ins), len(out)) for r in m.get("args", [])]
        except ValueError as e:
            raise ShapeError(OP, f"member {op}: {e}", list(ins)) from None
        types = [ins[i] if kind == "i" else out[i][3] for kind, i in refs]
        spec = get(op).spec(m.get("attrs", {}), types)
        out.append((op, spec.attrs, types, spec.outputs[0]))
    shape = out[-1][3].shape
    if any(t.shape != shape for _, _, _, t in out):
        raise ShapeError(OP, f"every member must have the output's shape {list(shape)}", list(ins))
    try:
        ok = all(tuple(np.broadcast_shapes(t.shape, shape)) == shape for t in ins)
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(OP, f"inputs must broadcast to the output's shape {list(shape)}", list(ins))
    return out


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return [member_types(attrs, ins)[-1][3]]


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    """Members' attrs canonical (as their own ops normalise them), so equal recipes share one key."""
    typed = member_types(attrs, ins)
    return {"members": [{"op": op, "attrs": a, "args": list(m["args"])}
                        for (op, a, _, _), m in zip(typed, attrs["members"], strict=True)]}


def _reference(attrs: dict, *arrays: np.ndarray) -> np.ndarray:
    """The members' own NumPy references, applied in order (what the unfused graph computes)."""
    ins = [TensorType(tuple(a.shape), a.dtype.name) for a in arrays]
    results: list[np.ndarray] = []
    for (op, a, types, _), m in zip(member_types(attrs, ins), attrs["members"], strict=True):
        args = [arrays[int(r[1:])] if r[0] == "i" else results[int(r[1:])] for r in m["args"]]
        opdef = get(op)
        results.append(opdef.run_reference(opdef.spec(a, types), args)[0])
    return results[-1]


# reuse_input: every input element at ``o`` is loaded before ``out0[o]`` is stored, so the memory planner may
# run a fused kernel in place over a same-size input nothing reads afterwards, like a single elementwise op.
declare(OpDef(OP, _infer, _reference, normalize=_normalize, reuse_input=True),
        "FusedElementwise: elementwise ops fused into one kernel by the fusion pass (internal).")
# Autodiff differentiates the unfused graph; a fused node only ever appears after it (passes/fusion.py).
no_grad(OP)

PRIMITIVES: dict[str, type] = {}  # internal: nothing to export
