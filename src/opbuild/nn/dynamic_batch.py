"""A dynamic batch dimension: a graph declared with a free leading dimension (``Cell.set_inputs`` with
``Tensor(shape=[None, ...])``, an ONNX input whose first dim is a ``dim_param``) runs every batch size on the
kernels built once, so a new batch size builds nothing.

How (nn/batch_chunks.py runs it): the graph is compiled at a few fixed batch sizes (the chunks: 16, 4 and 1 by
default) on the first call, and a batch of any size runs as consecutive slices of those sizes (their results
written into the rows of the outputs). This module decides whether that is exact: it is only for a *row-wise*
graph, where row i of every batched output depends on row i of the batched inputs alone. That is decided once
per input signature, without building anything, by tracing the function at batch 1, 2, 3 and at the chunk
sizes, and checking:

- the traces have the same nodes, wiring, attributes (but those holding the batch size: a Reshape's target
  shape, a slice's extent in dim 0 taking every row) and captures;
- every value either has the same shape in every trace (not batched), or the shape ``(b, *rest)`` at batch b
  (batched), and only values computed from a batched input are batched;
- every node reading a batched value is of an op family known to treat dim 0 as independent rows
  (:data:`ROW_OPS`: elementwise maps, Conv2D, pooling, BatchNorm's inference form, BiasAdd, MatMul with the
  batch as its M dimension, Softmax/LogSoftmax/reductions/Concat/LayerNorm over other axes, slices taking
  every row, Reshape/Flatten keeping dim 0, Transpose keeping dim 0 first, ...), writes batched outputs only,
  and updates nothing in place.

A graph that fails a check (a loss averaged over the batch, BatchNorm in training, control flow over tensor
values, an op not in the table) keeps today's static specialisation: each new batch size traces and builds
its own kernels (correct, just not free); :func:`verdict` says why. docs/dynamic-batch.md has the cost per
call of the chunked run against a static build per size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import trace
from ..core.ir import Graph, Node, Value
from ..core.tensor import Tensor
from ..ops.elementwise import FUSIBLE
from ..ops.registry import get

# The batch sizes the row-wise check traces at, besides the chunk sizes (the graphs that will run must be the
# graph that was checked).
TRACE_BATCHES = (1, 2, 3)
# Captured tensors up to this many elements created afresh by each trace (Python scalars, ONNX constants)
# are compared by value across the traces; larger ones must be the same object.
_CONST_BY_VALUE = 1 << 16

_AXIS_ATTRS = ("axis", "axes", "begin_norm_axis")


def _axes_avoid_batch(node: Node, rank: int) -> str | None:
    for key in _AXIS_ATTRS:
        if key not in node.attrs:
            continue
        val = node.attrs[key]
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        if any(int(a) % max(rank, 1) == 0 for a in vals if a is not None):
            return f"{node.op} works along dim 0 ({key}={val!r})"
    return None


def _first_only(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    if any(batched[1:]):
        return f"{node.op} reads a batched value as a non-data operand"
    return _axes_avoid_batch(node, rank)


def _any_operand(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    return _axes_avoid_batch(node, rank)


def _matmul(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    if any(batched[1:]) or node.attrs.get("transpose_a"):
        return "MatMul with the batch outside its M dimension"
    return None


def _batch_matmul(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    # Rank 3 and more: dim 0 is one of the product's batch dims; rank 2 is a plain MatMul.
    ranks = [len(v.type.shape) for v in node.inputs]
    if all(r >= 3 for r, b in zip(ranks, batched) if b):
        return None
    return _matmul(node, batched, rank)


def _transpose(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    perm = list(node.attrs.get("perm", ()))
    return None if perm and perm[0] == 0 else f"Transpose moves dim 0 (perm={perm})"


def _gather(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    if batched[0] and (len(batched) > 1 and batched[1] or int(node.attrs.get("axis", 0)) % max(rank, 1) == 0):
        return "Gather along the batch dimension"
    return None


RowCheck = Callable[[Node, Sequence[bool], int], "str | None"]
# Ops that treat dim 0 of their batched operands as independent rows, given the check (None: no reason to
# refuse). The shape rule of the module docstring catches the rest (a Reshape or Concat mixing rows changes
# dim 0 other than as the batch does).
ROW_OPS: dict[str, RowCheck] = {
    **{op: _any_operand for op in FUSIBLE},
    **{op: _first_only for op in ("Conv2D", "MaxPool", "AvgPool", "GlobalAvgPool", "BatchNorm", "BiasAdd",
                                  "LayerNorm", "Reshape", "Flatten", "ExpandDims", "Squeeze", "Pad")},
    **{op: _any_operand for op in ("Softmax", "LogSoftmax", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                   "ReduceProd", "ArgMax", "ArgMin", "Concat", "Split", "OnesLike", "ZerosLike",
                                   "Tile")},
    "MatMul": _matmul,
    "BatchMatMul": _batch_matmul,
    "Transpose": _transpose,
    "Gather": _gather,
}
def _slice_rows(node: Node, batched: Sequence[bool], rank: int) -> str | None:
    if any(batched[1:]):
        return f"{node.op} reads a batched value as a non-data operand"
    start = node.attrs.get("start", node.attrs.get("begin"))
    step = node.attrs.get("step", [1])
    if not start or start[0] != 0 or step[0] != 1:
        return f"{node.op} slices the batch dimension"
    return None


ROW_OPS.update({"StridedSlice": _slice_rows, "Slice": _slice_rows, "BroadcastTo": _first_only})


def _same_rows(node: Node) -> bool:
    """A node of no batched input whose batched output has every row equal (a broadcast of one row, a fill),
    so any chunk of it is the same."""
    if node.op == "Fill":
        return True
    if node.op == "BroadcastTo" and node.inputs:
        shape = node.inputs[0].type.shape
        return len(shape) < len(node.outputs[0].type.shape) or shape[0] == 1
    return False


def _marked_attrs(node: Node, batch: int) -> dict:
    """``node``'s attributes (its data operand or its output batched) with the entries that hold the batch size
    itself replaced by a marker, so that the traces at different batch sizes compare equal: a Reshape's target
    shape (the shape rule checks it keeps dim 0), a slice's dim-0 extent when it takes every row, the batch
    dim of a BroadcastTo's or a Fill's shape."""
    attrs = dict(node.attrs)
    if node.op == "Reshape":
        attrs.pop("shape", None)
    for key in ("count", "size", "shape") if node.op in ("StridedSlice", "Slice", "BroadcastTo", "Fill") else ():
        val = attrs.get(key)
        if isinstance(val, (list, tuple)) and val and val[0] == batch:
            attrs[key] = ["batch", *val[1:]]
    return attrs


@dataclass
class Verdict:
    """Whether a function's graph is row-wise in its dynamic inputs (see the module docstring): ``rowwise``,
    the ``reason`` it is not, and for each output whether it is batched (rows concatenated) or not."""

    rowwise: bool
    reason: str = ""
    batched_outputs: list[bool] = field(default_factory=list)
    warned: bool = False
    chunks: list = field(default_factory=list)  # batch_chunks.py: the compiled chunk graphs, largest first
    plans: dict = field(default_factory=dict)  # batch_chunks.py: remainder rows -> the chunk calls that cover them


def row_args(args: Sequence[Any], dynamic: Sequence[bool], batch: int) -> list[Any]:
    """``args`` with each dynamic Tensor replaced by zeros of batch ``batch`` (same trailing dims and dtype)."""
    out = []
    for a, d in zip(args, dynamic):
        if d:
            out.append(Tensor(np.zeros((batch, *a.shape[1:]), dtype=a.asnumpy().dtype)))
        else:
            out.append(a)
    return out


def _numbering(graph: Graph) -> tuple[list[Value], dict[int, int]]:
    values = [*graph.inputs, *(v for v, _ in graph.captures), *(o for n in graph.nodes for o in n.outputs)]
    return values, {id(v): i for i, v in enumerate(values)}


def _same_capture(a: Tensor, b: Tensor) -> bool:
    if a is b:
        return True
    if a._data is None or b._data is None or type(a) is not Tensor or type(b) is not Tensor:
        return False
    x, y = a.asnumpy(), b.asnumpy()
    return x.size <= _CONST_BY_VALUE and x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def _batched_flags(graphs: Sequence[Graph], batches: Sequence[int]) -> list[bool] | str:
    """Per value of the first graph (in :func:`_numbering` order): batched or not; or why the traces differ."""
    numbered = [_numbering(g)[0] for g in graphs]
    if len({len(v) for v in numbered}) != 1:
        return "the function traces different graphs at different batch sizes"
    flags = []
    for vals in zip(*numbered):
        shapes = [v.type.shape for v in vals]
        if len({v.type.dtype for v in vals}) != 1:
            return "a value's dtype depends on the batch size"
        if len(set(shapes)) == 1:
            flags.append(False)
        elif all(s and s[0] == b and s[1:] == shapes[0][1:] for s, b in zip(shapes, batches)):
            flags.append(True)
        else:
            return f"a value's shape {shapes[-1]} depends on the batch size other than in dim 0"
    return flags


def _check_structure(graphs: Sequence[Graph]) -> str | None:
    first = graphs[0]
    index = [_numbering(g)[1] for g in graphs]
    for g in graphs[1:]:
        if len(g.inputs) != len(first.inputs) or len(g.captures) != len(first.captures) \
                or len(g.nodes) != len(first.nodes) or len(g.outputs) != len(first.outputs):
            return "the function traces different graphs at different batch sizes"
        if not all(_same_capture(a, b) for (_, a), (_, b) in zip(first.captures, g.captures)):
            return "a captured constant depends on the batch size"
    for nodes in zip(*(g.nodes for g in graphs)):
        n0 = nodes[0]
        for n, idx in zip(nodes, index):
            if n.op != n0.op or len(n.outputs) != len(n0.outputs) \
                    or [idx[id(v)] for v in n.inputs] != [index[0][id(v)] for v in n0.inputs]:
                return "the function traces different graphs at different batch sizes"
    for g, idx in zip(graphs, index):
        if [idx[id(v)] for v in g.outputs] != [index[0][id(v)] for v in first.outputs]:
            return "the function returns different values at different batch sizes"
    return None


def _check_attrs(graphs: Sequence[Graph], batches: Sequence[int], flags: list[bool]) -> str | None:
    """Equal attributes in every trace, but for those holding the batch size of a node reading a batched
    value (:func:`_marked_attrs`)."""
    _, idx = _numbering(graphs[0])
    for k, nodes in enumerate(zip(*(g.nodes for g in graphs))):
        n0 = nodes[0]
        if (n0.inputs and flags[idx[id(n0.inputs[0])]]) or (n0.outputs and flags[idx[id(n0.outputs[0])]]):
            marked = [_marked_attrs(n, b) for n, b in zip(nodes, batches)]
        else:
            marked = [n.attrs for n in nodes]
        if any(m != marked[0] for m in marked[1:]):
            return f"node {k} ({n0.op}) has attributes that depend on the batch size"
    return None


def _check_rows(graph: Graph, flags: list[bool], dynamic_inputs: Sequence[bool]) -> str | None:
    _, idx = _numbering(graph)
    for v, d in zip(graph.inputs, dynamic_inputs):
        if flags[idx[id(v)]] != d:
            return "an input's batching differs from its declaration"
    for n in graph.nodes:
        ins = [flags[idx[id(v)]] for v in n.inputs]
        outs = [flags[idx[id(o)]] for o in n.outputs]
        # Run once per chunk, an in-place update (a step counter, Dropout's state) or a collective would
        # happen several times per call.
        if any(o.alias_of is not None for o in n.outputs):
            return f"{n.op} updates a Parameter in place"
        if get(n.op).host is not None:
            return f"{n.op} is a collective"
        if not any(ins):
            if any(outs) and not _same_rows(n):
                return f"{n.op} makes a value of the batch size's shape from no batched input"
            continue
        check = ROW_OPS.get(n.op)
        if check is None:
            return f"{n.op} is not known to treat the batch rows independently"
        rank = len(next(v for v, b in zip(n.inputs, ins) if b).type.shape)
        reason = check(n, ins, rank)
        if reason:
            return reason
        if not all(outs):
            return f"{n.op} combines the batch rows (an output without the batch dimension)"
    return None


def analyse(fn: Callable[..., Any], args: Sequence[Any], dynamic: Sequence[bool],
            chunks: Sequence[int] = ()) -> Verdict:
    """Decide (by tracing only, building nothing) whether ``fn`` is row-wise in the ``dynamic`` arguments, at
    batch 1, 2, 3 and the ``chunks`` sizes the graph will be compiled at."""
    graphs = []
    batches = sorted({*TRACE_BATCHES, *chunks})
    for b in batches:
        try:
            g, _ = trace.trace(fn, row_args(args, dynamic, b))
        except Exception as e:  # the static path runs the function again and raises it to the caller
            return Verdict(False, f"tracing at batch {b} failed ({type(e).__name__}: {str(e).splitlines()[0]})")
        graphs.append(g)
    reason = _check_structure(graphs)
    if reason:
        return Verdict(False, reason)
    flags = _batched_flags(graphs, batches)
    if isinstance(flags, str):
        return Verdict(False, flags)
    reason = _check_attrs(graphs, batches, flags) or _check_rows(graphs[0], flags, dynamic)
    if reason:
        return Verdict(False, reason)
    _, idx = _numbering(graphs[0])
    return Verdict(True, batched_outputs=[flags[idx[id(v)]] for v in graphs[0].outputs])


def verdict(graphs: dict) -> list[Verdict]:
    """The row-wise verdicts recorded in a graph table (``Cell._graphs``), one per dynamic input signature."""
    return [v for v in graphs.values() if isinstance(v, Verdict)]
