"""Memory planning: every intermediate of a graph gets a place in one arena, planned once per compiled graph.

The plan is data the executor follows (runtime/executor.py), not code in the kernels:

* **Views.** A node whose op is declared ``view`` (Reshape, Flatten, Squeeze, ExpandDims: the output is the
  input's bytes in a new shape) runs no kernel: its output aliases its input's location, which may be a graph
  input or a capture (read-only) or an arena buffer.
* **Reused inputs.** A single-output node whose op is declared ``reuse_input`` (an elementwise map: ``out0[o]`` is
  computed from the inputs' elements at ``o`` alone, each read before ``out0[o]`` is stored) writes into the
  buffer of an input of the same dtype and size when nothing reads that buffer afterwards. Same size under
  broadcasting means the input's index map is the identity, so element ``o`` is read and then overwritten by
  the same iteration and by no other. (The kernels declare their pointers ``restrict``; this exact same-index
  overlap is the one that holds under every reordering a compiler may apply to such a loop: no iteration
  reads an element another iteration stores.)
* **Sharing by liveness.** Each arena buffer lives from the step of the node that first writes it to the last
  step that reads any value placed in it (graph outputs live to the end: the executor copies them out after
  the last kernel). Buffers whose lifetimes overlap get disjoint byte ranges; the others may share. Offsets
  come from a greedy best-fit over buffers sorted by size (largest first), which is deterministic: the same
  graph gives the same plan in every process. Its cost grows with the pairs of buffers live together, so a
  graph with more than ``_GREEDY_PAIRS`` of them (a train step whose forward activations wait for the
  backward) is placed by a first-fit linear scan in time instead, as deterministic, arena within a few
  tenths of a percent on such graphs.

* **Workspaces.** A kernel whose op declares scratch memory (``OpDef.workspace``: a convolution's im2col
  column block, a half-precision convolution's float32 copies) gets a buffer live at its own step only, so it
  overlaps nothing the node reads or writes and shares bytes with every buffer dead at that step; the
  executor passes its address after the node's outputs (``MemoryPlan.workspaces``).

Graph inputs and captures (parameters, constants) are never written by planning: they are never a buffer, so
neither input reuse nor sharing can reach them. The one writer of a capture is an op that declares it
(``OpDef.inplace``: optimizer updates, Assign), whose outputs the trace marked ``alias_of`` the Parameter they
update: they take its location, and nothing else does. :meth:`MemoryPlan.verify` checks these invariants.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

from ..core.ir import Graph, Node, Value
from ..ops.registry import get
from .base import GraphPass

ALIGN = 64  # bytes: every buffer starts on a cache line (and on any SIMD width the kernels use)


class PlanError(AssertionError):
    """A memory plan that breaks one of its invariants (raised by :meth:`MemoryPlan.verify`)."""


@dataclass(frozen=True)
class Location:
    """Where a value's bytes live: ``kind`` is "arena" (``where``: byte offset in the arena), "input"
    (``where``: position in ``graph.inputs``) or "capture" (``where``: position in ``graph.captures``)."""

    kind: str
    where: int


@dataclass(eq=False)
class Buffer:
    """One arena region shared by ``values`` (a node output, its views, the results computed in place over
    it), live over the node steps ``start`` to ``end`` inclusive."""

    nbytes: int
    start: int
    end: int
    values: list[Value] = field(default_factory=list)
    offset: int = -1


def nbytes(v: Value) -> int:
    """Bytes of a value's data (C-contiguous)."""
    return v.type.size * np.dtype(v.type.dtype).itemsize


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


@dataclass
class MemoryPlan:
    """Where each value lives and which nodes run a kernel. ``arena_bytes`` is the one allocation the
    executor makes; ``intermediate_bytes`` is what a buffer per node output would take (the sum of all
    intermediates, views included, as they were copies before planning)."""

    locations: dict[Value, Location]
    kernel_nodes: list[Node]
    buffers: list[Buffer]
    arena_bytes: int
    intermediate_bytes: int
    views: int = 0
    reused_inputs: int = 0  # outputs written over a dead input's buffer (``reuse_input``, not ``OpDef.inplace``)
    workspaces: dict[Node, tuple[int, int]] = field(default_factory=dict)  # node -> (arena offset, bytes)

    def summary(self) -> dict:
        """JSON-able figures of the plan (what the build report shows)."""
        ratio = self.arena_bytes / self.intermediate_bytes if self.intermediate_bytes else 0.0
        return {"arena_bytes": self.arena_bytes, "intermediate_bytes": self.intermediate_bytes,
                "ratio": round(ratio, 4), "buffers": len(self.buffers), "views": self.views,
                "reused_inputs": self.reused_inputs, "kernels": len(self.kernel_nodes),
                "workspaces": len(self.workspaces),
                "workspace_bytes": sum(size for _, size in self.workspaces.values())}

    def verify(self, graph: Graph) -> None:
        """Check the plan's invariants against ``graph``; raises :class:`PlanError` naming the first broken one.

        Every value a kernel reads or writes, and every graph output, has a location inside the arena or an
        input/capture slot; kernels write only arena locations; a kernel's write never overlaps the bytes of
        another value that is live across it (defined before and read after, or a graph output), unless the
        writer's op is declared ``reuse_input`` and that value is one of its same-size inputs that nothing reads
        later."""
        steps = {id(n): i for i, n in enumerate(graph.nodes)}
        last = last_reads(graph)
        placed: list[tuple[Value, int, int, int, int]] = []  # value, first byte, end byte, defined, last read
        for v, loc in self.locations.items():
            if loc.kind == "arena":
                lo, hi = loc.where, loc.where + nbytes(v)
                if lo < 0 or hi > self.arena_bytes:
                    raise PlanError(f"{v.name or v.type} lies outside the arena ({lo}..{hi} of {self.arena_bytes})")
                if v.producer is None:
                    raise PlanError(f"graph input or capture {v.name or v.type} placed in the arena")
                placed.append((v, lo, hi, steps[id(v.producer)], last.get(v, steps[id(v.producer)])))
        for v in [*graph.outputs, *(x for n in self.kernel_nodes for x in (*n.inputs, *n.outputs))]:
            if v not in self.locations:
                raise PlanError(f"value {v.name or v.type} has no location")
        for n, (lo, size) in self.workspaces.items():
            i = steps[id(n)]
            if lo < 0 or lo + size > self.arena_bytes:
                raise PlanError(f"{n.name}'s workspace lies outside the arena ({lo}..{lo + size})")
            for v, vlo, vhi, d, u in placed:
                if vlo < lo + size and lo < vhi and d <= i <= u and vlo != vhi:
                    raise PlanError(f"{n.name}'s workspace overlaps {v.name or v.type} (live from step {d} to {u})")
        for n in self.kernel_nodes:
            i = steps[id(n)]
            for y in n.outputs:
                loc = self.locations[y]
                if loc.kind != "arena":
                    if y.alias_of is not None and loc == self.locations.get(y.alias_of) and loc.kind == "capture":
                        continue  # an in-place update of a captured Parameter: its declared purpose
                    raise PlanError(f"{n.name} writes its output into {loc.kind} {loc.where}")
                lo, hi = loc.where, loc.where + nbytes(y)
                for v, vlo, vhi, d, u in placed:
                    if v is y or vhi <= lo or hi <= vlo or not (d <= i <= u) or vlo == vhi or lo == hi:
                        continue
                    if d == i:  # another output of the same node
                        raise PlanError(f"{n.name}: outputs overlap")
                    legal = (get(n.op).reuse_input and len(n.outputs) == 1 and u == i and vlo == lo
                             and nbytes(v) == nbytes(y) and v.type.dtype == y.type.dtype
                             and any(self.locations.get(x) == self.locations[v] for x in n.inputs))
                    if not legal:
                        raise PlanError(f"{n.name} overwrites {v.name or v.type} (live from step {d} to {u})")


def last_reads(graph: Graph) -> dict[Value, int]:
    """The step of the last node reading each value; graph outputs are read after the last step (the executor
    copies them out at the end)."""
    last: dict[Value, int] = {}
    for i, n in enumerate(graph.nodes):
        for v in n.inputs:
            last[v] = i
    for v in graph.outputs:
        last[v] = len(graph.nodes)
    return last


def plan_memory(graph: Graph, share: bool = True) -> MemoryPlan:
    """Plan ``graph``'s memory. ``share=False`` gives every node output its own buffer and runs every node as a
    kernel (no views, nothing in place): what execution looked like before planning, kept as the executor's
    plan for graphs that did not go through :class:`MemoryPlanning`."""
    last = last_reads(graph)
    locations: dict[Value, Location] = {v: Location("input", j) for j, v in enumerate(graph.inputs)}
    locations.update({v: Location("capture", j) for j, (v, _) in enumerate(graph.captures)})
    buffer_of: dict[Value, Buffer] = {}
    buffers: list[Buffer] = []
    kernel_nodes: list[Node] = []
    views = reused_inputs = 0
    scratch: dict[Node, Buffer] = {}

    def join(b: Buffer, y: Value, i: int) -> None:
        b.values.append(y)
        b.end = max(b.end, last.get(y, i))
        buffer_of[y] = b

    for i, n in enumerate(graph.nodes):
        op = get(n.op)
        if share and op.view and len(n.inputs) == 1 and len(n.outputs) == 1 \
                and nbytes(n.inputs[0]) == nbytes(n.outputs[0]):
            x, y = n.inputs[0], n.outputs[0]
            views += 1
            if x in buffer_of:
                join(buffer_of[x], y, i)
            else:  # a view of a graph input or capture: read-only, like what it aliases
                locations[y] = locations[x]
            continue
        kernel_nodes.append(n)
        size = 0
        if op.workspace is not None:  # sized from the kernel's own spec, as its emitter lays it out
            spec = n.spec or op.spec(n.attrs, [v.type for v in n.inputs])
            size = op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
        if size:
            scratch[n] = Buffer(_aligned(size), i, i)
            buffers.append(scratch[n])
        if any(y.alias_of is not None for y in n.outputs):
            # An in-place update (OpDef.inplace: optimizers, Assign): its outputs are the buffers of the values
            # they update, a captured Parameter's array or an arena value; it gets no buffer of its own.
            for y in n.outputs:
                if y.alias_of is None:
                    b = Buffer(_aligned(nbytes(y)), i, i)
                    buffers.append(b)
                    join(b, y, i)
                elif y.alias_of in buffer_of:
                    join(buffer_of[y.alias_of], y, i)
                else:
                    locations[y] = locations[y.alias_of]
            continue
        if share and op.reuse_input and len(n.outputs) == 1:
            y = n.outputs[0]
            # b.end is already final for the values placed so far: a later view of them reads one of them
            # after this step, so b.end == i means nothing reads this buffer after this node.
            target = next((buffer_of[x] for x in n.inputs if x in buffer_of and buffer_of[x].end == i
                           and nbytes(x) == nbytes(y) and x.type.dtype == y.type.dtype), None)
            if target is not None:
                join(target, y, i)
                reused_inputs += 1
                continue
        for y in n.outputs:
            b = Buffer(_aligned(nbytes(y)), i, i)
            buffers.append(b)
            join(b, y, i)
    arena = _place(buffers, share)
    for b in buffers:
        for v in b.values:
            locations[v] = Location("arena", b.offset)
    total = sum(nbytes(y) for n in graph.nodes for y in n.outputs)
    workspaces = {n: (b.offset, b.nbytes) for n, b in scratch.items()}
    return MemoryPlan(locations, kernel_nodes, buffers, arena, total, views, reused_inputs, workspaces)


# Steps per bucket of the placed-buffer index in _place.
_BUCKET = 64


# Above this many pairs of buffers live at the same time, _place uses the linear scan: the greedy rule reads
# every placed buffer live with the one it places, so its cost grows with these pairs (a train graph's
# forward activations live until the backward reads them: SentimentNet's unrolled LSTM train step has
# tens of thousands live together, hours of placement).
_GREEDY_PAIRS = 1_000_000


def _overlapping_pairs(buffers: list[Buffer]) -> int:
    """How many pairs of buffers are live at the same time (inclusive spans), by counting, for each buffer,
    those that start after it ends or end before it starts."""
    starts = sorted(b.start for b in buffers)
    ends = sorted(b.end for b in buffers)
    n = len(buffers)
    live = sum(n - (n - bisect.bisect_right(starts, b.end)) - bisect.bisect_left(ends, b.start) for b in buffers)
    return (live - n) // 2


def _place_linear_scan(buffers: list[Buffer]) -> int:
    """Offsets by a linear scan in time: each buffer takes, when it starts, the lowest free range of the arena
    large enough (first fit), and gives it back after its last step; returns the arena size. The cost is
    about the buffers times the free ranges, not the buffers live together; the arena can be larger than
    the greedy rule's."""
    free: list[list[int]] = []  # [offset, size] ranges below top, sorted by offset, never adjacent
    ending: list[tuple[int, int, Buffer]] = []
    top = 0
    for i, b in sorted(enumerate(buffers), key=lambda ib: (ib[1].start, ib[0])):
        while ending and ending[0][0] < b.start:
            _, _, done = heapq.heappop(ending)
            _release(free, done.offset, done.nbytes)
        if not b.nbytes:
            b.offset = 0
            continue
        at = next((k for k, (_, size) in enumerate(free) if size >= b.nbytes), None)
        if at is not None:
            b.offset = free[at][0]
            free[at][0] += b.nbytes
            free[at][1] -= b.nbytes
            if not free[at][1]:
                del free[at]
        elif free and free[-1][0] + free[-1][1] == top:  # the last free range grows to fit, at the top
            b.offset = free.pop()[0]
        else:
            b.offset = top
        top = max(top, b.offset + b.nbytes)
        heapq.heappush(ending, (b.end, i, b))
    return top


def _release(free: list[list[int]], offset: int, size: int) -> None:
    """Return [offset, offset + size) to the sorted free list, merged with free neighbours."""
    k = bisect.bisect_left(free, [offset, 0])
    if k and free[k - 1][0] + free[k - 1][1] == offset:
        k -= 1
        free[k][1] += size
    else:
        free.insert(k, [offset, size])
    if k + 1 < len(free) and free[k][0] + free[k][1] == free[k + 1][0]:
        free[k][1] += free.pop(k + 1)[1]


def _place(buffers: list[Buffer], share: bool) -> int:
    """Give each buffer an offset; returns the arena size. Greedy by size: the largest buffers are placed
    first, each at the lowest offset whose range is free of every placed buffer live at the same time (ties
    broken by the order of definition, so the result is deterministic). Where more than ``_GREEDY_PAIRS``
    pairs of buffers are live together, :func:`_place_linear_scan` instead.

    The placed buffers are indexed by the ``_BUCKET``-step spans of time they are live in, so finding those
    live with a buffer reads only its spans' lists, not every placed buffer (an unrolled LSTM's 64k buffers took
    seconds when each was compared with all placed before it). The candidates are then filtered and ordered by
    offset as before: among buffers at the same offset, the order does not change the result."""
    if share and _overlapping_pairs(buffers) > _GREEDY_PAIRS:
        return _place_linear_scan(buffers)
    top = 0
    spans: dict[int, list[Buffer]] = {}
    for b in sorted(buffers, key=lambda b: (-b.nbytes, b.start)):
        off = 0
        if share:
            seen: set[int] = set()
            busy = []
            for k in range(b.start // _BUCKET, b.end // _BUCKET + 1):
                for p in spans.get(k, ()):
                    if id(p) not in seen and p.start <= b.end and b.start <= p.end:
                        seen.add(id(p))
                        busy.append(p)
            busy.sort(key=lambda p: p.offset)
            for p in busy:
                if off + b.nbytes <= p.offset:
                    break
                off = max(off, p.offset + p.nbytes)
        else:
            off = top
        b.offset = off
        top = max(top, off + b.nbytes)
        if b.nbytes and share:
            for k in range(b.start // _BUCKET, b.end // _BUCKET + 1):
                spans.setdefault(k, []).append(b)
    return top


class MemoryPlanning(GraphPass):
    """Attaches a :class:`MemoryPlan` to the graph (``graph.memory_plan``); nodes are left as they are (the plan
    says which of them run kernels). Runs last: any pass after it would invalidate the plan."""

    name = "memplan"
    version = 2  # 2: kernel workspaces in the arena

    def run(self, graph: Graph) -> Graph:
        graph.memory_plan = plan_memory(graph)
        return graph
