"""GEMM and convolution kernels with a fused elementwise epilogue: FusedMatMul, FusedBatchMatMul, FusedConv2D.

The epilogue pass (passes/epilogue.py) replaces a producer (MatMul, BatchMatMul, Conv2D) and the chain of
elementwise consumers of its output (bias add, folded inference BatchNorm, activations, residual adds, any
elementwise recipe the fusion pass built) by one node of these ops, hence one kernel and one cache entry.
The attributes are the whole recipe, so the kernel's ``.info`` lists the producer's attributes and every
member op with its attributes:

    {"producer": {"transpose_a": false, "transpose_b": true},
     "views": [[4]],
     "members": [{"op": "Add", "attrs": {}, "args": ["i0", "i1"]},
                 {"op": "ReLU", "attrs": {}, "args": ["t0"]}]}

The kernel's inputs are the producer's two inputs, then the epilogue's inputs. ``members`` is a
FusedElementwise recipe (ops/fused.py) over the epilogue's operands: ``i0`` is the producer's result, ``iK``
(K >= 1) the kernel's input K + 1 read with the shape ``views[K - 1]`` (the same elements, so a bias of shape
(C,) reads as (C, 1, 1) against an NCHW output: NumPy broadcasting then places it on the channel axis).

``pre`` (optional) lists per-channel recipes, each ``{"inputs": [k, ...], "members": [...]}`` over epilogue
inputs ``k`` (0-based, as viewed): the kernel computes each once per call into a small per-thread array (the
folded BatchNorm's ``scale / sqrt(variance + eps)`` when its statistics are Parameters), and the members read
result J as ``i(E + 1 + J)``, after the E epilogue inputs.

A kernel runs the producer's own code, then evaluates the members in place over its output with the members'
own expressions (the CPU's: targets/cpu/kernels/fused_gemm.py), so the intermediate producer result never gets
a buffer of its own and fused and unfused graphs compute the same values.

The ops are internal (as FusedElementwise) and have no gradient rule: autodiff differentiates unfused graphs.
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from .fused import _reference as recipe_reference
from .fused import member_types
from .primitive import declare
from .registry import OpDef, get, no_grad

# fused op -> its producer op; the epilogue pass reads the inverse.
PRODUCER_OF = {"FusedMatMul": "MatMul", "FusedBatchMatMul": "BatchMatMul", "FusedConv2D": "Conv2D"}
FUSED_OF = {p: f for f, p in PRODUCER_OF.items()}


@dataclass
class _Parts:
    """A fused op's pieces: the producer's KernelSpec, the epilogue inputs' view types, the typed per-channel
    recipes (``pre``: each with its input indices and its result type) and the typed epilogue members."""

    producer: KernelSpec
    views: list[TensorType]
    pre: list[tuple[list[int], list, TensorType]]
    members: list


def _canonical(typed: list, members: list) -> list[dict]:
    return [{"op": op, "attrs": a, "args": list(m["args"])} for (op, a, _, _), m in zip(typed, members, strict=True)]


# A bounded memo of a pure function (the pieces follow from op, attrs and types alone): its answers are the
# same with or without it, so it is not process state (docs/architecture.md, "Process state").
_PARTS_MEMO: dict[tuple, _Parts] = {}
_PARTS_MEMO_MAX = 1024


def _memo_key(op: str, attrs: dict, ins: Sequence[TensorType]) -> tuple | None:
    """The memo key of a fused node's pieces (marshal format 0: equal attrs, equal bytes), or None for attrs
    marshal cannot write (normalize rejects such attrs anyway)."""
    try:
        return op, marshal.dumps(attrs, 0), tuple(ins)
    except ValueError:
        return None


def _remember(key: tuple | None, parts: _Parts) -> None:
    if key is not None:
        if len(_PARTS_MEMO) >= _PARTS_MEMO_MAX:
            _PARTS_MEMO.clear()
        _PARTS_MEMO[key] = parts


def _parts(op: str, attrs: dict, ins: Sequence[TensorType]) -> _Parts:
    """The pieces of a fused op (see :class:`_Parts`); ShapeError naming ``op`` when anything does not fit.

    Memoised by value: normalize, infer and workspace each ask for the same node's pieces, and each answer
    would normalise the producer again (a convolution's algorithm choice). The pieces are never mutated by
    their users."""
    key = _memo_key(op, attrs, ins)
    found = _PARTS_MEMO.get(key) if key is not None else None
    if found is None:
        found = _derive_parts(op, attrs, ins)
        _remember(key, found)
    return found


def _derive_parts(op: str, attrs: dict, ins: Sequence[TensorType]) -> _Parts:
    if len(ins) < 2:
        raise ShapeError(op, "expects the producer's two inputs, then the epilogue's inputs", list(ins))
    producer = get(PRODUCER_OF[op]).spec(attrs.get("producer", {}), ins[:2])
    views = attrs.get("views", [])
    if not isinstance(views, list) or len(views) != len(ins) - 2:
        raise ShapeError(op, f"attribute 'views' must list one shape per epilogue input ({len(ins) - 2}), "
                             f"got {views!r}", list(ins))
    view_types = []
    for t, v in zip(ins[2:], views, strict=True):
        if not isinstance(v, list) or not all(isinstance(d, int) and d >= 0 for d in v) \
                or int(np.prod(v, dtype=np.int64)) != t.size:
            raise ShapeError(op, f"view {v!r} of an epilogue input of shape {list(t.shape)} must be a shape with "
                                 f"the same number of elements", list(ins))
        view_types.append(TensorType(tuple(v), t.dtype))
    y = producer.outputs[0]
    pre = []
    try:
        for r in attrs.get("pre", []):
            idx = r.get("inputs") if isinstance(r, dict) else None
            if not isinstance(idx, list) or not all(isinstance(k, int) and 0 <= k < len(view_types) for k in idx):
                raise ShapeError(op, f"pre recipe {r!r}: 'inputs' must list epilogue input indices", list(ins))
            typed = member_types({"members": r.get("members")}, [view_types[k] for k in idx])
            pre.append((idx, typed, typed[-1][3]))
        members = member_types({"members": attrs.get("members")}, [y, *view_types, *(t for _, _, t in pre)])
    except ShapeError as e:
        raise ShapeError(op, f"epilogue: {e}", list(ins)) from None
    if members[-1][3] != y:
        raise ShapeError(op, f"the epilogue must produce the producer's type {y} (it is computed in place in the "
                             f"producer's output), got {members[-1][3]}", list(ins))
    return _Parts(producer, view_types, pre, members)


def _normalize_for(op: str):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        """Canonical producer attrs (as the producer normalises them, Conv2D's ``algo`` included) and members'
        attrs, so equal recipes share one key."""
        parts = _parts(op, attrs, ins)
        out = {"producer": parts.producer.attrs, "views": [list(v.shape) for v in parts.views]}
        if parts.pre:
            out["pre"] = [{"inputs": list(idx), "members": _canonical(typed, r["members"])}
                          for (idx, typed, _), r in zip(parts.pre, attrs["pre"], strict=True)]
        out["members"] = _canonical(parts.members, attrs["members"])
        _remember(_memo_key(op, out, ins), parts)  # infer and workspace are asked next, with these attrs
        return out

    return normalize


def _infer_for(op: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [_parts(op, attrs, ins).producer.outputs[0]]

    return infer


def _reference_for(op: str):
    def reference(attrs: dict, a: np.ndarray, b: np.ndarray, *ext: np.ndarray) -> np.ndarray:
        """The producer's NumPy reference, the per-channel recipes, then the members' own references (what the
        unfused graph computes)."""
        ins = [TensorType(tuple(x.shape), x.dtype.name) for x in (a, b, *ext)]
        parts = _parts(op, attrs, ins)
        (y,) = get(parts.producer.op).run_reference(parts.producer, [a, b])
        viewed = [x.reshape(v.shape) for x, v in zip(ext, parts.views, strict=True)]
        pre = [recipe_reference({"members": r["members"]}, *[viewed[k] for k in r["inputs"]])
               for r in attrs.get("pre", [])]
        return recipe_reference({"members": attrs["members"]}, y, *viewed, *pre)

    return reference


def _workspace_for(op: str):
    def workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
        """The producer's scratch memory (a convolution's im2col block or half-precision copies): the fused
        kernel runs the producer's own body, which reads it through ``ob_ws``."""
        producer = _parts(op, attrs, ins).producer
        return get(producer.op).workspace_bytes(producer.attrs, producer.inputs, producer.outputs)

    return workspace


for _op in PRODUCER_OF:
    _prod = PRODUCER_OF[_op]
    declare(OpDef(_op, _infer_for(_op), _reference_for(_op), normalize=_normalize_for(_op),
                  workspace=_workspace_for(_op)),
            f"{_op}: {_prod} with an elementwise epilogue, fused by the epilogue pass (internal).")
    # Autodiff differentiates the unfused graph; a fused node only ever appears after it (passes/epilogue.py).
    no_grad(_op)

PRIMITIVES: dict[str, type] = {}  # internal: nothing to export
