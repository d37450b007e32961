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

Each member's C expression is the one its own kernel uses (``elementwise.member_expr``), so fused and unfused
kernels compute the same values. The op is internal (not exported; MindSpore's graph-kernel fusion keeps its
fused operators internal too) and has no gradient rule: autodiff runs on unfused graphs, before the passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from ..targets.cpu.blocked import BLOCK, broadcast_map, flat_map
from ..targets.cpu.codegen import broadcast_loop, compute_ctype, load, round_trip, store
from .elementwise import FUSIBLE, cast_src_ctype, member_expr
from .primitive import declare
from .registry import OpDef, get, no_grad

OP = "FusedElementwise"
# The most members a fused kernel with float16 members evaluates a member per loop (a block buffer of up to
# 2 KiB each on the stack); longer recipes round each float16 member per element (ob_f16_round).
MAX_STAGED = 16


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


def member_statements(typed: Sequence[tuple[str, dict, list[TensorType], TensorType]], members: Sequence[dict],
                      ins: Sequence[TensorType], elements: Sequence[str], loaded: bool = False) -> list[str]:
    """C statements evaluating a recipe for one element: input K's element is the C lvalue ``elements[K]``
    (of type ``ins[K]``), loaded once into ``vK`` (``loaded``: ``elements`` are already values of the compute
    types, e.g. read from a block converted to float32); member J's result is ``tJ``, the last one the recipe's
    result (of the last member's compute type). Shared with the GEMM/convolution epilogues (ops/fused_gemm.py).

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
declare(OpDef(OP, _infer, _reference, normalize=_normalize, reuse_input=True, emit=_emit),
        "FusedElementwise: elementwise ops fused into one kernel by the fusion pass (internal).")
# Autodiff differentiates the unfused graph; a fused node only ever appears after it (passes/fusion.py).
no_grad(OP)

PRIMITIVES: dict[str, type] = {}  # internal: nothing to export
