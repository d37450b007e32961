"""Executes a built graph: buffers allocated once, one precomputed pointer array per node, one FFI call each.

Graph inputs and captured parameters are not copied: their data pointers are patched into the pointer
arrays at each call (a few stores), so large weights are read in place and a parameter whose array is
replaced (``set_data``) is picked up at the next call.

In-place outputs (``Value.alias_of``: optimizer updates, Assign) get no buffer of their own: they are bound
to the buffer of the value they update, for a captured Parameter its current array, patched at each call
like a read of it. The kernel then writes the Parameter's own data; nodes after it in graph order read the
new values, nodes before it the old ones (the trace recorded them in that order: MindSpore's program order).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..ir import Graph, Value
from ..targets.base import Kernel

Allocate = Callable[[Sequence[int], str], np.ndarray]


class CompiledGraph:
    """A graph whose kernels are loaded; call it with the input arrays to get the output arrays (copies)."""

    def __init__(self, graph: Graph, kernels: Sequence[Kernel], allocate: Allocate = np.empty):
        """``allocate(shape, dtype)`` makes the buffers of node outputs (the target's: ``Target.allocate``)."""
        self.graph = graph
        self.kernels = list(kernels)
        self._lock = threading.Lock()
        self._buffers: dict[int, np.ndarray] = {}
        external = {id(v) for v in graph.inputs} | {id(v) for v, _ in graph.captures}
        # slots[id(value)] = every (pointer array, index) that holds the address of that external value
        slots: dict[int, list[tuple[ctypes.Array, int]]] = {vid: [] for vid in external}
        self._calls: list[tuple[ctypes._CFuncPtr, ctypes.Array]] = []
        self._root: dict[int, Value] = {}  # in-place output -> the value whose buffer it writes
        for node, kernel in zip(graph.nodes, self.kernels):
            for v in node.outputs:
                if v.alias_of is not None:
                    self._root[id(v)] = root = self._root.get(id(v.alias_of), v.alias_of)
                    if id(root) not in external:
                        self._buffers[id(v)] = self._buffers[id(root)]
                else:
                    self._buffers[id(v)] = allocate(v.type.shape, v.type.dtype)
            args = [self._root.get(id(v), v) for v in (*node.inputs, *node.outputs)]
            ptrs = (ctypes.c_void_p * len(args))()
            for i, v in enumerate(args):
                if id(v) in external:
                    slots[id(v)].append((ptrs, i))
                else:
                    ptrs[i] = self._buffers[id(v)].ctypes.data
            self._calls.append((kernel.fn, ptrs))
        self._input_slots = [slots[id(v)] for v in graph.inputs]
        self._captures = [(t, slots[id(v)]) for v, t in graph.captures]
        self._outputs = graph.outputs
        self._external_pos = {id(v): i for i, v in enumerate(graph.inputs)}
        self._capture_pos = {id(v): t for v, t in graph.captures}

    @staticmethod
    def _patch(slots: list[tuple[ctypes.Array, int]], address: int) -> None:
        for ptrs, i in slots:
            ptrs[i] = address

    def _output(self, v: Value, arrays: Sequence[np.ndarray]) -> np.ndarray:
        v = self._root.get(id(v), v)
        if id(v) in self._buffers:
            return self._buffers[id(v)].copy()
        if id(v) in self._external_pos:
            return np.array(arrays[self._external_pos[id(v)]], copy=True)
        return np.array(self._capture_pos[id(v)].asnumpy(), copy=True)

    def __call__(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the graph. ``arrays`` must match the traced input types (C-contiguous, same dtype/shape)."""
        with self._lock:
            for slots, arr in zip(self._input_slots, arrays):
                self._patch(slots, arr.ctypes.data)
            # Parameters may have had their array replaced since the last call (set_data): re-read pointers.
            # Captured tensors keep their data alive, so the addresses stay valid during the call.
            keep = [t.asnumpy() for t, _ in self._captures]
            for (_, slots), data in zip(self._captures, keep):
                self._patch(slots, data.ctypes.data)
            for fn, ptrs in self._calls:
                fn(ptrs)
            return [self._output(v, arrays) for v in self._outputs]
