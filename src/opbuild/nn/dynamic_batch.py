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
  shape, a slice's extent along the batch taking every row, a broadcast's or fill's batch dim) and captures;
- every value either has the same shape in every trace (not batched), or differs in one dimension only, whose
  size is the batch size (its batch dimension: dim 0 for inputs and outputs, anywhere inside the graph) or
  the same multiple ``k`` of it (``k`` rows per batch row, where a reshape folded the batch with the dims after
  it; only views change ``k``), and only values computed from a batched input are batched (or whose rows are
  all equal: a broadcast row, a fill);
- every node reading a batched value is of an op family known to keep the rows apart (:data:`ROW_OPS`, each
  with its check: elementwise maps, Conv2D, pooling, BatchNorm's inference form, BiasAdd, MatMul with the
  batch as its M dimension, Softmax/LogSoftmax/reductions/Concat/LayerNorm over other axes, slices taking
  every row, reshapes keeping each row whole, Transpose, ...), writes batched outputs only, and updates
  nothing in place.

A graph that fails a check (a loss averaged over the batch, BatchNorm in training, control flow over tensor
values, an op not in the table) keeps today's static specialisation: each new batch size traces and builds
its own kernels (correct, just not free); :func:`verdict` says why. docs/dynamic-batch.md has the cost per
call of the chunked run against a static build per size.
"""

from __future__ import annotations

import math
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

_AXIS_ATTRS = ("axis", "axes")

Axis = "int | None"  # where a value's batch dimension is (None: not batched)


@dataclass(frozen=True)
class Site:
    """What a row check sees of a node reading a batched value: the batch axis of each input and output
    (None: not batched) and their ranks."""

    node: Node
    ins: list
    outs: list
    in_ranks: list
    out_ranks: list
    in_factors: list = field(default_factory=list)  # rows of the value per batch row (1: the batch itself)
    out_factors: list = field(default_factory=list)

    @property
    def first(self) -> tuple[int, int]:
        """(batch axis, rank) of the first batched input."""
        return next((a, r) for a, r in zip(self.ins, self.in_ranks) if a is not None)


def _axes_avoid_batch(site: Site) -> str | None:
    axis, rank = site.first
    for key in _AXIS_ATTRS:
        if key not in site.node.attrs:
            continue
        val = site.node.attrs[key]
        vals = list(val) if isinstance(val, (list, tuple)) else [val]
        if any(int(a) % max(rank, 1) == axis for a in vals if a is not None):
            return f"{site.node.op} works along the batch dimension ({key}={val!r})"
    return None


def _aligned(site: Site) -> str | None:
    """Every batched input has its batch where the output has it, under NumPy broadcasting (and as many rows
    per batch row)."""
    out = site.outs[0]
    for a, r in zip(site.ins, site.in_ranks):
        if a is not None and a + site.out_ranks[0] - r != out:
            return f"{site.node.op} pairs rows of different batch dimensions"
    return None


def _first_only(site: Site) -> str | None:
    if any(a is not None for a in site.ins[1:]):
        return f"{site.node.op} reads a batched value as a non-data operand"
    return _axes_avoid_batch(site)


def _batch_first(site: Site) -> str | None:
    """Layers whose dim 0 is their batch by definition (convolutions, pooling, BatchNorm, BiasAdd, Pad)."""
    if site.ins[0] != 0 or site.outs[0] != 0:
        return f"{site.node.op} with the batch outside dim 0"
    return _first_only(site)


def _elementwise(site: Site) -> str | None:
    return _aligned(site)


def _along_other_axes(site: Site) -> str | None:
    """Reductions, Softmax, Concat, Split: fine along any axis but the batch's."""
    if len({a for a in site.ins if a is not None}) != 1:
        return f"{site.node.op} reads values batched along different dimensions"
    return _axes_avoid_batch(site)


def _layer_norm(site: Site) -> str | None:
    axis, rank = site.first
    begin = int(site.node.attrs.get("begin_norm_axis", 1)) % max(rank, 1)
    if begin <= axis:
        return f"LayerNorm normalises across the batch dimension (begin_norm_axis={begin})"
    return _first_only(site)


def _view(site: Site) -> str | None:
    """Reshape, Flatten, ExpandDims, Squeeze: the rows stay rows when the elements before the batch dimension
    are the same number in the input and the output, and so are the elements of one batch row from the batch
    dimension on (row-major order). A reshape may fold the batch with the dims after it (``(n, s, d)`` to
    ``(n * s, d)``: ``s`` rows per batch row, as nn.Dense does on a 3-D input) or unfold it back."""
    if any(a is not None for a in site.ins[1:]):
        return f"{site.node.op} reads a batched value as a non-data operand"
    shape_in, shape_out = site.node.inputs[0].type.shape, site.node.outputs[0].type.shape
    a, b = site.ins[0], site.outs[0]
    k_in = site.in_factors[0] if site.in_factors else 1
    k_out = site.out_factors[0] if site.out_factors else 1
    if math.prod(shape_in[:a]) != math.prod(shape_out[:b]) or k_in * math.prod(shape_in[a + 1:]) != k_out * math.prod(
            shape_out[b + 1:]):
        return f"{site.node.op} mixes the batch rows with other dimensions"
    return None


def _matmul(site: Site) -> str | None:
    if site.ins[0] != 0 or any(a is not None for a in site.ins[1:]) or site.node.attrs.get("transpose_a"):
        return "MatMul with the batch outside its M dimension"
    return None


def _batch_matmul(site: Site) -> str | None:
    # Rank 3 and more: a batch dimension of the product (not one of the last two) is independent rows.
    if all(a is None or (r >= 3 and a < r - 2) for a, r in zip(site.ins, site.in_ranks)):
        return _aligned(site)
    return _matmul(site)


def _transpose(site: Site) -> str | None:
    return None  # a permutation of coordinates: the batch index stays one coordinate (the shapes tell where)


def _gather(site: Site) -> str | None:
    table = site.ins[0]
    if table is not None and (any(a is not None for a in site.ins[1:])
                              or int(site.node.attrs.get("axis", 0)) % max(site.in_ranks[0], 1) == table):
        return "Gather along the batch dimension"
    return None


def _slice_rows(site: Site) -> str | None:
    if any(a is not None for a in site.ins[1:]):
        return f"{site.node.op} reads a batched value as a non-data operand"
    axis = site.ins[0]
    start = site.node.attrs.get("start", site.node.attrs.get("begin"))
    step = site.node.attrs.get("step", [1] * (axis + 1))
    if not start or len(start) <= axis or start[axis] != 0 or step[axis] != 1:
        return f"{site.node.op} slices the batch dimension"
    return None


RowCheck = Callable[[Site], "str | None"]
_VIEWS = ("Reshape", "Flatten", "ExpandDims", "Squeeze")
# Ops that keep the rows of their batched operands apart, given the check (None: no reason to refuse). The
# shape rule of the module docstring catches the rest (a Concat mixing rows changes the batch dimension other
# than as the batch does).
ROW_OPS: dict[str, RowCheck] = {
    **{op: _elementwise for op in FUSIBLE},
    **{op: _batch_first for op in ("Conv2D", "MaxPool", "AvgPool", "GlobalAvgPool", "BatchNorm", "BiasAdd",
                                   "Pad")},
    **{op: _view for op in _VIEWS},
    **{op: _along_other_axes for op in ("Softmax", "LogSoftmax", "ReduceSum", "ReduceMean", "ReduceMax",
                                        "ReduceMin", "ReduceProd", "ArgMax", "ArgMin", "Concat", "Split")},
    **{op: _first_only for op in ("OnesLike", "ZerosLike", "Tile", "BroadcastTo")},
    "LayerNorm": _layer_norm,
    "MatMul": _matmul,
    "BatchMatMul": _batch_matmul,
    "Transpose": _transpose,
    "Gather": _gather,
    "StridedSlice": _slice_rows,
    "Slice": _slice_rows,
}


def _same_rows(node: Node, axis: int) -> bool:
    """A node of no batched input whose output, batched along ``axis``, has every row equal (a broadcast of
    one row, a fill), so any chunk of it is the same."""
    if node.op == "Fill":
        return True
    if node.op == "BroadcastTo" and node.inputs:
        shape = node.inputs[0].type.shape
        at = axis - (len(node.outputs[0].type.shape) - len(shape))
        return at < 0 or shape[at] == 1
    return False


def _marked_attrs(node: Node, batch: int, in_axis: int | None, out_axis: int | None,
                  factors: tuple[int, int] = (1, 1)) -> dict:
    """``node``'s attributes (its data operand batched along ``in_axis`` or its output along ``out_axis``) with
    the entries that hold the batch size itself replaced by a marker, so that the traces at different batch
    sizes compare equal: a Reshape's target shape (:func:`_view` checks it keeps the rows), a slice's extent
    along the batch when it takes every row, the batch dim of a slice's, a BroadcastTo's or a Fill's output
    shape."""
    attrs = dict(node.attrs)
    if node.op == "Reshape":
        attrs.pop("shape", None)
    if node.op not in ("StridedSlice", "Slice", "BroadcastTo", "Fill"):
        return attrs
    for key, axis, k in (("count", in_axis, factors[0]), ("size", in_axis, factors[0]),
                         ("shape", out_axis, factors[1])):
        val = attrs.get(key)
        if axis is not None and isinstance(val, (list, tuple)) and len(val) > axis and val[axis] == batch * k:
            attrs[key] = [*val[:axis], "batch", *val[axis + 1:]]
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
    # batch_runtime.py: the function built with run-time-batch kernels, or why the chunks run instead (None:
    # not tried yet)
    runtime: Any = None


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


def _batch_axes(graphs: Sequence[Graph], batches: Sequence[int]) -> list[int | None] | str:
    """Per value of the first graph (in :func:`_numbering` order): the dimension that holds the batch (None:
    the value is the same shape at every batch size); or why the traces differ."""
    dims = _batch_dims(graphs, batches)
    return dims if isinstance(dims, str) else dims[0]


def _batch_dims(graphs: Sequence[Graph], batches: Sequence[int]) -> tuple[list, list] | str:
    """Per value of the first graph (in :func:`_numbering` order): the dimension that holds the batch (None:
    the value is the same shape at every batch size) and its *factor*, the rows it holds per batch row (its
    size is factor x batch: 1 for the batch itself, ``s`` where a reshape folded ``(n, s, d)`` into
    ``(n * s, d)``); or why the traces differ."""
    numbered = [_numbering(g)[0] for g in graphs]
    if len({len(v) for v in numbered}) != 1:
        return "the function traces different graphs at different batch sizes"
    axes: list[int | None] = []
    factors: list[int] = []
    for vals in zip(*numbered):
        shapes = [v.type.shape for v in vals]
        if len({v.type.dtype for v in vals}) != 1:
            return "a value's dtype depends on the batch size"
        if len(set(shapes)) == 1:
            axes.append(None)
            factors.append(0)
            continue
        if len({len(sh) for sh in shapes}) != 1:
            return f"a value's rank depends on the batch size ({shapes[-1]})"
        varying = [d for d in range(len(shapes[0])) if len({sh[d] for sh in shapes}) != 1]
        k = shapes[0][varying[0]] // batches[0] if len(varying) == 1 else 0
        if k < 1 or any(sh[varying[0]] != k * b for sh, b in zip(shapes, batches)):
            return f"a value's shape {shapes[-1]} depends on the batch size other than in one dimension"
        axes.append(varying[0])
        factors.append(k)
    return axes, factors


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


def _check_attrs(graphs: Sequence[Graph], batches: Sequence[int], axes: list[int | None],
                 factors: list[int]) -> str | None:
    """Equal attributes in every trace, but for those holding the batch size of a node reading or making a
    batched value (:func:`_marked_attrs`)."""
    _, idx = _numbering(graphs[0])
    for k, nodes in enumerate(zip(*(g.nodes for g in graphs))):
        n0 = nodes[0]
        in_axis = axes[idx[id(n0.inputs[0])]] if n0.inputs else None
        out_axis = axes[idx[id(n0.outputs[0])]] if n0.outputs else None
        ks = (factors[idx[id(n0.inputs[0])]] if n0.inputs else 1, factors[idx[id(n0.outputs[0])]] if n0.outputs else 1)
        if in_axis is not None or out_axis is not None:
            marked = [_marked_attrs(n, b, in_axis, out_axis, ks) for n, b in zip(nodes, batches)]
        else:
            marked = [n.attrs for n in nodes]
        if any(m != marked[0] for m in marked[1:]):
            return f"node {k} ({n0.op}) has attributes that depend on the batch size"
    return None


def _check_rows(graph: Graph, axes: list[int | None], dynamic_inputs: Sequence[bool],
                factors: list[int] | None = None) -> str | None:
    _, idx = _numbering(graph)
    factors = factors if factors is not None else [0 if a is None else 1 for a in axes]
    for v, d in zip(graph.inputs, dynamic_inputs):
        if (axes[idx[id(v)]] == 0) != d:
            return "an input's batching differs from its declaration"
    for v in graph.outputs:
        if axes[idx[id(v)]] not in (None, 0):
            return "an output has its batch outside dim 0"
        if axes[idx[id(v)]] == 0 and factors[idx[id(v)]] != 1:
            return "an output holds several rows per batch row (its dim 0 is a multiple of the batch)"
    for n in graph.nodes:
        ins = [axes[idx[id(v)]] for v in n.inputs]
        outs = [axes[idx[id(o)]] for o in n.outputs]
        # Run once per chunk, an in-place update (a step counter, Dropout's state) or a collective would
        # happen several times per call.
        if any(o.alias_of is not None for o in n.outputs):
            return f"{n.op} updates a Parameter in place"
        if get(n.op).host is not None:
            return f"{n.op} is a collective"
        if all(a is None for a in ins):
            if any(a is not None and not _same_rows(n, a) for a in outs):
                return f"{n.op} makes a value of the batch size's shape from no batched input"
            continue
        if any(a is None for a in outs):
            return f"{n.op} combines the batch rows (an output without the batch dimension)"
        check = ROW_OPS.get(n.op)
        if check is None:
            return f"{n.op} is not known to treat the batch rows independently"
        in_k = [factors[idx[id(v)]] for v in n.inputs]
        out_k = [factors[idx[id(o)]] for o in n.outputs]
        # Only a view may change how many rows a value holds per batch row (fold or unfold the batch); any
        # other op doing so repeats rows (Tile along the batch) or joins values along it.
        if n.op not in _VIEWS and len({k for k, a in zip((*in_k, *out_k), (*ins, *outs)) if a is not None}) > 1:
            return f"{n.op} changes the rows per batch row of its values"
        site = Site(n, ins, outs, [len(v.type.shape) for v in n.inputs], [len(o.type.shape) for o in n.outputs],
                    in_k, out_k)
        reason = check(site)
        if reason:
            return reason
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
    dims = _batch_dims(graphs, batches)
    if isinstance(dims, str):
        return Verdict(False, dims)
    axes, factors = dims
    reason = _check_attrs(graphs, batches, axes, factors) or _check_rows(graphs[0], axes, dynamic, factors)
    if reason:
        return Verdict(False, reason)
    _, idx = _numbering(graphs[0])
    return Verdict(True, batched_outputs=[axes[idx[id(v)]] == 0 for v in graphs[0].outputs])


def numbering(graph: Graph) -> tuple[list[Value], dict[int, int]]:
    """The values of ``graph`` in a fixed order (inputs, captures, node outputs) and ``id -> position``."""
    return _numbering(graph)


def batch_dims_of(graphs: Sequence[Graph], batches: Sequence[int]) -> tuple[list, list] | str:
    """Per value of ``graphs[0]`` (:func:`numbering` order), the dim that holds the batch (None: not batched)
    and the rows per batch row in it, from the same graph traced at each of ``batches``; or why the traces
    differ."""
    return _batch_dims(graphs, batches)


def verdict(graphs: dict) -> list[Verdict]:
    """The row-wise verdicts recorded in a graph table (``Cell._graphs``), one per dynamic input signature."""
    return [v for v in graphs.values() if isinstance(v, Verdict)]
