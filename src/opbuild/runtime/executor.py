"""Executes a built graph: one arena allocated per its memory plan, one precomputed pointer array per kernel
node, one FFI call each (view nodes run nothing: their output is their input's bytes).

Graph inputs and captured parameters are not copied: their data pointers are patched into the pointer
arrays at each call (a few stores), so large weights are read in place and a parameter whose array is
replaced (``set_data``) is picked up at the next call.

In-place outputs (``Value.alias_of``: optimizer updates, Assign) get no buffer of their own: the memory plan
gives them the location of the value they update, for a captured Parameter its current array, patched at
each call like a read of it. The kernel then writes the Parameter's own data; nodes after it in graph order read the
new values, nodes before it the old ones (the trace recorded them in that order: MindSpore's program order).

Kernels whose op declares a status (``OpDef.status``: an index out of range) get status words outside the
arena; a kernel's report stops the graph after that kernel and raises the op's error (kernel_status.py).
"""

from __future__ import annotations

import ctypes
import operator
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..core.ir import Graph, Node, Value
from ..ops.registry import HostFn, get
from ..passes.memplan import ALIGN, Location, MemoryPlan, nbytes, plan_memory
from ..targets.base import Kernel
from .addresses import data_address
from .kernel_status import KernelStatus, checked_nodes
from .memory import track as track_memory

Allocate = Callable[[Sequence[int], str], np.ndarray]


class CompiledGraph:
    """A graph whose kernels are loaded; call it with the input arrays to get the output arrays (copies).

    Memory follows the graph's :class:`~opbuild.passes.memplan.MemoryPlan` (``graph.memory_plan``, set by the
    memory-planning pass; a graph that skipped it gets a plan with one buffer per node output): one arena
    allocated through the target, each value at its planned offset (and each kernel's workspace at its own),
    inputs and captures read in place."""

    def __init__(self, graph: Graph, kernels: Sequence[Kernel], allocate: Allocate = np.empty):
        """``kernels`` are those of ``plan.kernel_nodes`` that are not host nodes, in order;
        ``allocate(shape, dtype)`` makes the arena (the target's: ``Target.allocate``)."""
        self.graph = graph
        self.plan: MemoryPlan = graph.memory_plan or plan_memory(graph, share=False)
        self.kernels = list(kernels)
        ops = [get(n.op) for n in self.plan.kernel_nodes]
        hosts = [op.host for op in ops]
        n_kernels = sum(h is None for h in hosts)
        if len(self.kernels) != n_kernels:
            raise ValueError(f"{len(self.kernels)} kernels for {n_kernels} kernel nodes")
        self._lock = threading.Lock()
        raw = allocate((self.plan.arena_bytes + ALIGN,), "uint8")
        skip = -raw.ctypes.data % ALIGN
        self._arena = raw[skip:skip + self.plan.arena_bytes]
        track_memory(self, raw.nbytes)  # mindspore.runtime.memory_allocated and the other figures (memory.py)
        base = self._arena.ctypes.data
        locations = self.plan.locations
        # slots[(kind, position)] = every (pointer array, index) that holds the address of that input/capture
        slots: dict[tuple[str, int], list[tuple[ctypes.Array, int]]] = {}
        self._calls: list[tuple[Callable[[ctypes.Array], object], ctypes.Array]] = []
        compiled = iter(self.kernels)
        checked_ = checked_nodes(self.plan.kernel_nodes, ops)
        self._status = KernelStatus(checked_) if checked_ else None
        checked = 0
        for node, op, host in zip(self.plan.kernel_nodes, ops, hosts):
            args = [*node.inputs, *node.outputs]
            workspace = self.plan.workspaces.get(node)
            status = host is None and op.status is not None
            ptrs = (ctypes.c_void_p * (len(args) + (workspace is not None) + status))()
            if workspace is not None:  # the kernel's scratch: after the outputs (kernel ABI 2)
                ptrs[len(args)] = base + workspace[0]
            if status:  # its status words: after the workspace (kernel ABI 3)
                ptrs[len(ptrs) - 1] = self._status.address(checked)
                checked += 1
            for i, v in enumerate(args):
                loc = locations[v]
                if loc.kind == "arena":
                    ptrs[i] = base + loc.where
                else:
                    slots.setdefault((loc.kind, loc.where), []).append((ptrs, i))
            self._calls.append((next(compiled).fn if host is None else _host_call(node, host), ptrs))
        # With kernels that report: each call with its flag word, read right after it (kernel_status.py).
        self._steps = self._status.steps(self.plan.kernel_nodes, self._calls) if self._status else []
        self._input_slots = [slots.get(("input", j), []) for j in range(len(graph.inputs))]
        self._captures = [(t, slots.get(("capture", j), [])) for j, (_, t) in enumerate(graph.captures)]
        # The array each capture's slots were last patched with: an unchanged array (the same object, whose
        # data pointer cannot move while this list holds it) needs no new pointer, and reading an array's
        # address (``ndarray.ctypes``) costs about a microsecond, a visible share of a small graph's call.
        self._patched: list[np.ndarray | None] = [None] * len(self._captures)
        self._outputs = [(v, locations[v]) for v in graph.outputs]
        # An arena output's view never moves (the arena lives as long as this graph): made once, copied per call.
        self._views = [self._arena_view(v, loc) if loc.kind == "arena" else None for v, loc in self._outputs]

    @staticmethod
    def _patch(slots: list[tuple[ctypes.Array, int]], address: int) -> None:
        for ptrs, i in slots:
            ptrs[i] = address

    def _arena_view(self, v: Value, loc: Location) -> np.ndarray:
        return self._arena[loc.where:loc.where + nbytes(v)].view(v.type.dtype).reshape(v.type.shape)

    def _output(self, v: Value, loc: Location, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """A copy of output ``v`` (not in the arena): inputs and parameters belong to the caller."""
        owner = np.asarray(arrays[loc.where]) if loc.kind == "input" else self.graph.captures[loc.where][1].asnumpy()
        return np.array(owner.reshape(v.type.shape), copy=True)

    def __call__(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the graph. ``arrays`` must match the traced input types (C-contiguous, same dtype/shape)."""
        with self._lock:
            for slots, arr in zip(self._input_slots, arrays):
                self._patch(slots, data_address(arr))
            # Parameters may have had their array replaced since the last call (set_data): re-read pointers.
            # Captured tensors keep their data alive, so the addresses stay valid during the call.
            current = [t.asnumpy() for t, _ in self._captures]
            if any(map(operator.is_not, current, self._patched)):  # one C-level pass when none changed
                for (_, slots), data, last in zip(self._captures, current, self._patched):
                    if data is not last:
                        self._patch(slots, data_address(data))
                self._patched = current
            if self._status is None:
                for fn, ptrs in self._calls:
                    fn(ptrs)
            else:
                self._status.run(self._steps)
            # Copies: the arena is overwritten by the next call.
            return [view.copy() if view is not None else self._output(v, loc, arrays)
                    for view, (v, loc) in zip(self._views, self._outputs)]


def _host_call(node: Node, host: HostFn) -> Callable[[ctypes.Array], None]:
    """A node's host function as a call like a kernel's: it takes the node's pointer array (inputs, then
    outputs, patched at each run like a kernel's) and views those addresses as arrays of the node's types."""
    types = [v.type for v in (*node.inputs, *node.outputs)]
    n_in, attrs = len(node.inputs), node.attrs
    sizes = [nbytes(v) for v in (*node.inputs, *node.outputs)]

    def call(ptrs: ctypes.Array) -> None:
        arrays = [np.frombuffer((ctypes.c_char * size).from_address(ptrs[i]), dtype=t.dtype).reshape(t.shape)
                  if size else np.empty(t.shape, t.dtype) for i, (t, size) in enumerate(zip(types, sizes))]
        host(attrs, arrays[:n_in], arrays[n_in:])

    return call
