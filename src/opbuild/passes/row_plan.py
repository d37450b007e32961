"""Kernels that take the batch size at run time, and the memory plan of a graph made of them.

A row-wise graph (nn/dynamic_batch.py) traced at batch 1, whose every value is either *batched* (its batch
dimension outermost: every dimension before it has size 1, so row i is one contiguous block of the value's
batch-1 bytes) or not, runs any batch size ``n`` with one call per kernel when:

* a kernel node reading or writing a batched value gets a **run-time-batch descriptor**
  (:func:`runtime_spec`): its batch-1 spec with the batch dimension of each batched operand written ``-1``
  (``-k`` for a value holding ``k`` rows per batch row: the batch folded with the dims after it) and
  the attribute ``runtime_batch`` (the target's generator tag), so it is another cache entry than any static
  kernel, and its ``.info`` says so. The kernel takes the batch count as one more argument (the target's ABI:
  targets/cpu/runtime_batch.py); nodes touching no batched value keep their static kernels;
* memory is planned per row (:func:`plan_rows`): batched values in a *rows* arena at their batch-1 sizes
  (bytes per row), the others and the workspaces in a *fixed* arena. At batch ``n`` every rows offset and size
  is multiplied by ``n``: a packing stays valid when every size scales by one factor (disjoint ranges stay
  disjoint, 64-byte alignment stays), so one plan serves every batch size exactly. An output is written over
  a dead input (``reuse_input``) or aliases it (views) only when both are batched or both are not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.dtypes import BY_NAME
from ..core.ir import Graph, KernelSpec, Node, TensorType, Value
from ..ops.registry import get
from .memplan import Buffer, Location, _place, last_reads, nbytes

RUNTIME_BATCH = "runtime_batch"  # the attribute of a run-time-batch descriptor
BATCH_DIM = -1  # the batch dimension's entry in a run-time-batch descriptor's shapes (times its rows per batch row)
# The plan's identity, joined to the pipeline's in the graph manifest key of a run-time-batch graph.
IDENTITY = "rowplan@2"


def outer(t: TensorType, axis: int | None) -> bool:
    """Whether a value of batch-1 type ``t`` batched along ``axis`` keeps each row contiguous (every dim before
    the batch dim has size 1); an unbatched value (``axis`` None) trivially does."""
    return axis is None or math.prod(t.shape[:axis]) == 1


def _free(t: TensorType, dim: tuple[int, int] | None) -> TensorType:
    if dim is None:
        return t
    axis, rows = dim
    return TensorType((*t.shape[:axis], BATCH_DIM * rows, *t.shape[axis + 1:]), t.dtype)


def row_scratch(op_workspace: int, types: Sequence[TensorType], axes: Sequence[int | None]) -> tuple[list, int]:
    """The workspace of a run-time-batch kernel whose batch-1 operands are ``types`` (inputs then outputs) batched
    along ``axes`` (None: not batched) and whose op declares ``op_workspace`` bytes: the op's own workspace first
    (the batch-1 body reads it at offset 0), then one scratch row (a cache line aligned) for each operand whose
    batch dim lies inside other dims, which the kernel copies each row into or out of. Returns each operand's
    scratch row offset (None: read in place) and the workspace's bytes (0: the kernel takes no workspace).
    The graph plans these bytes in its fixed arena (:func:`plan_rows`), so the kernel allocates nothing."""
    at = -(-op_workspace // 64) * 64
    offsets: list = []
    for t, axis in zip(types, axes, strict=True):
        if axis is None or outer(t, axis):
            offsets.append(None)
            continue
        offsets.append(at)
        at += -(-max(t.size * BY_NAME[t.dtype].np_dtype.itemsize, 1) // 64) * 64
    return offsets, (at if at > 0 else 0)


def runtime_spec(spec: KernelSpec, in_dims: list, out_dims: list, tag: str) -> KernelSpec:
    """The run-time-batch descriptor of the batch-1 kernel ``spec`` whose operands are batched as
    ``in_dims``/``out_dims`` say ((batch dim, rows per batch row), None: not batched): the batch dim written
    ``-rows`` (``-1`` for the batch itself, ``-s`` for ``s`` rows per batch row); ``tag`` is the target's
    run-time-batch generator tag."""
    return KernelSpec(spec.op, {**spec.attrs, RUNTIME_BATCH: {"generator": tag}},
                      tuple(_free(t, d) for t, d in zip(spec.inputs, in_dims)),
                      tuple(_free(t, d) for t, d in zip(spec.outputs, out_dims)))


def is_runtime(spec: KernelSpec) -> bool:
    """Whether ``spec`` is a run-time-batch descriptor."""
    return isinstance(spec.attrs, dict) and RUNTIME_BATCH in spec.attrs


def batch_axes(spec: KernelSpec) -> list:
    """The batch dimension of each input then output of a run-time-batch descriptor (None: not batched)."""
    return [next((i for i, d in enumerate(t.shape) if d < 0), None) for t in (*spec.inputs, *spec.outputs)]


def row_spec(spec: KernelSpec) -> KernelSpec:
    """The batch-1 kernel a run-time-batch descriptor runs once per row (its shapes with the batch dim 1)."""
    attrs = {k: v for k, v in spec.attrs.items() if k != RUNTIME_BATCH}

    def one(t: TensorType) -> TensorType:
        return TensorType(tuple(-d if d < 0 else d for d in t.shape), t.dtype)

    return KernelSpec(spec.op, attrs, tuple(map(one, spec.inputs)), tuple(map(one, spec.outputs)))


@dataclass
class RowPlan:
    """Where each value of a batch-1 graph lives at any batch size: ``locations`` of kind ``rows`` (offset of
    row 0 in the rows arena; at batch n the value starts at ``where * n``), ``fixed``, ``input`` or
    ``capture``; ``row_bytes`` (the rows arena per row), ``fixed_bytes``, each kernel's workspace (fixed
    arena offset, bytes), and which values are batched."""

    locations: dict[Value, Location]
    kernel_nodes: list[Node]
    row_bytes: int
    fixed_bytes: int
    workspaces: dict[Node, tuple[int, int]] = field(default_factory=dict)
    batched: set[int] = field(default_factory=set)  # ids of the batched values
    views: int = 0
    reused_inputs: int = 0

    def summary(self, n: int = 1) -> dict:
        """JSON-able figures (the build report's ``memory``) at batch ``n``."""
        return {"arena_bytes": self.row_bytes * n + self.fixed_bytes, "row_bytes": self.row_bytes,
                "fixed_bytes": self.fixed_bytes, "views": self.views, "reused_inputs": self.reused_inputs,
                "kernels": len(self.kernel_nodes), "workspaces": len(self.workspaces),
                "workspace_bytes": sum(size for _, size in self.workspaces.values())}


def plan_rows(graph: Graph, axes: Mapping[int, tuple[int, int]]) -> RowPlan:
    """Plan the memory of ``graph`` (traced at batch 1; ``axes``: the batch dim and rows per batch row of each
    batched value, by id) as the module docstring says: buffers shared by liveness in two arenas, views and
    reused inputs within a class, each kernel's workspace (:func:`row_scratch`) in the fixed arena.
    Raises ValueError for an in-place update (a row-wise graph has none)."""
    batched = set(axes)
    last = last_reads(graph)
    locations: dict[Value, Location] = {v: Location("input", j) for j, v in enumerate(graph.inputs)}
    locations.update({v: Location("capture", j) for j, (v, _) in enumerate(graph.captures)})
    buffer_of: dict[Value, Buffer] = {}
    rows: list[Buffer] = []
    fixed: list[Buffer] = []
    kernel_nodes: list[Node] = []
    scratch: dict[Node, Buffer] = {}
    views = reused = 0

    def new(y: Value, i: int) -> None:
        b = Buffer(-(-nbytes(y) // 64) * 64, i, last.get(y, i), [y])
        (rows if id(y) in batched else fixed).append(b)
        buffer_of[y] = b

    def join(b: Buffer, y: Value, i: int) -> None:
        b.values.append(y)
        b.end = max(b.end, last.get(y, i))
        buffer_of[y] = b

    for i, n in enumerate(graph.nodes):
        op = get(n.op)
        if any(y.alias_of is not None for y in n.outputs):
            raise ValueError(f"{n.op} updates a value in place")
        if op.view and len(n.inputs) == 1 and len(n.outputs) == 1 and nbytes(n.inputs[0]) == nbytes(n.outputs[0]) \
                and (id(n.inputs[0]) in batched) == (id(n.outputs[0]) in batched):
            x, y = n.inputs[0], n.outputs[0]
            views += 1
            if x in buffer_of:
                join(buffer_of[x], y, i)
            else:
                locations[y] = locations[x]
            continue
        kernel_nodes.append(n)
        operands = [*n.inputs, *n.outputs]
        dims = [axes[id(v)][0] if id(v) in axes else None for v in operands]
        if op.workspace is not None or any(d is not None for d in dims):
            spec = n.spec or op.spec(n.attrs, [v.type for v in n.inputs])
            # A kernel touching no batched value is static (no row copied): its own workspace only.
            size = row_scratch(op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs),
                               [*spec.inputs, *spec.outputs], dims)[1]
            if size:
                scratch[n] = Buffer(-(-size // 64) * 64, i, i)
                fixed.append(scratch[n])
        if op.reuse_input and len(n.outputs) == 1:
            y = n.outputs[0]
            target = next((buffer_of[x] for x in n.inputs if x in buffer_of and buffer_of[x].end == i
                           and nbytes(x) == nbytes(y) and x.type.dtype == y.type.dtype
                           and (id(x) in batched) == (id(y) in batched)), None)
            if target is not None:
                join(target, y, i)
                reused += 1
                continue
        for y in n.outputs:
            new(y, i)
    row_bytes, fixed_bytes = _place(rows, True), _place(fixed, True)
    for kind, group in (("rows", rows), ("fixed", fixed)):
        for b in group:
            for v in b.values:
                locations[v] = Location(kind, b.offset)
    workspaces = {n: (b.offset, b.nbytes) for n, b in scratch.items()}
    return RowPlan(locations, kernel_nodes, row_bytes, fixed_bytes, workspaces, set(batched), views, reused)


__all__ = ["BATCH_DIM", "IDENTITY", "RUNTIME_BATCH", "RowPlan", "batch_axes", "is_runtime", "outer", "plan_rows",
           "row_scratch", "row_spec", "runtime_spec"]
