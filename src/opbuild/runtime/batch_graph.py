"""Executes a graph whose kernels take the batch size at run time (passes/row_plan.py, docs/dynamic-batch.md).

One :class:`BatchGraph` runs every batch size: each call reads ``n`` from the batched inputs' dim 0, places
the batched values at ``offset * n`` in a rows arena of ``row_bytes * n`` bytes (allocated for the largest
``n`` seen, kept for smaller ones), the others in a fixed arena, and passes ``n`` to each run-time-batch
kernel after its pointers (targets/cpu/runtime_batch.py: the ABI); kernels that report bad input have status
words (kernel_status.py). The pointer arrays are recomputed when
``n`` changes; calls at the same size patch the input and capture addresses only, as
runtime/executor.py does.
"""

from __future__ import annotations

import ctypes
import operator
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..core.ir import Graph, KernelSpec, Value
from ..ops.registry import get
from ..passes.memplan import ALIGN, nbytes
from ..passes.row_plan import RowPlan, plan_rows, runtime_spec
from ..targets.base import Kernel
from .addresses import data_address
from .kernel_status import KernelStatus, checked_nodes

Allocate = Callable[[Sequence[int], str], np.ndarray]


def kernel_specs(graph: Graph, plan: RowPlan, axes: dict[int, tuple[int, int]], tag: str) -> list[KernelSpec] | str:
    """The spec of each kernel node of ``plan``: a run-time-batch descriptor for a node touching a batched
    value (``axes``: its batch dim and rows per batch row, by id), the static batch-1 spec for the others; or
    why a node cannot take the batch at run time."""
    specs = []
    for n in plan.kernel_nodes:
        op = get(n.op)
        if op.host is not None:
            return f"{n.op} runs on the host (a collective)"
        spec = n.spec or op.spec(n.attrs, [v.type for v in n.inputs])
        ins = [axes.get(id(v)) for v in n.inputs]
        outs = [axes.get(id(v)) for v in n.outputs]
        if all(a is None for a in (*ins, *outs)):
            specs.append(spec)
            continue
        specs.append(runtime_spec(spec, ins, outs, tag))
    return specs


class BatchGraph:
    """A row-planned graph (traced at batch 1) whose kernels are loaded; call it with input arrays of any batch
    size ``n`` (the batched inputs share their dim 0) to get the output arrays (copies)."""

    def __init__(self, graph: Graph, plan: RowPlan, kernels: Sequence[Kernel], runtime: Sequence[bool],
                 allocate: Allocate = np.empty):
        """``kernels`` and ``runtime`` (whether each takes the batch count) follow ``plan.kernel_nodes``."""
        self.graph, self.plan = graph, plan
        self.kernels = list(kernels)
        self._allocate = allocate
        self._lock = threading.Lock()
        self._fixed = self._aligned(plan.fixed_bytes)
        self._rows: np.ndarray | None = None
        self._capacity = 0
        self._n: int | None = None
        loc = plan.locations
        batched = plan.batched
        self._batch_inputs = [j for j, v in enumerate(graph.inputs) if id(v) in batched]
        slots: dict[tuple[str, int], list[tuple[ctypes.Array, int]]] = {}
        # Per node: the pointer array and what to write in it for a batch size: (index, kind, offset).
        self._calls: list[tuple[Callable, ctypes.Array]] = []
        self._layout: list[tuple[ctypes.Array, list[tuple[int, str, int]], int | None]] = []
        ops = [get(node.op) for node in plan.kernel_nodes]
        checked = checked_nodes(plan.kernel_nodes, ops)
        self._status = KernelStatus(checked) if checked else None
        reporting = 0
        for node, op, kernel, rt in zip(plan.kernel_nodes, ops, kernels, runtime, strict=True):
            args = [*node.inputs, *node.outputs]
            ws = plan.workspaces.get(node)
            status = op.status is not None
            ptrs = (ctypes.c_void_p * (len(args) + (ws is not None) + status + bool(rt)))()
            if status:  # the status words: after the workspace, before the batch count (kernel ABI 3)
                ptrs[len(args) + (ws is not None)] = self._status.address(reporting)
                reporting += 1
            places = []
            for i, v in enumerate(args):
                where = loc[v]
                if where.kind in ("rows", "fixed"):
                    places.append((i, where.kind, where.where))
                else:
                    slots.setdefault((where.kind, where.where), []).append((ptrs, i))
            if ws is not None:
                places.append((len(args), "fixed", ws[0]))
            self._layout.append((ptrs, places, len(args) + (ws is not None) + status if rt else None))
            self._calls.append((kernel.fn, ptrs))
        self._steps = self._status.steps(plan.kernel_nodes, self._calls) if self._status else []
        self._input_slots = [slots.get(("input", j), []) for j in range(len(graph.inputs))]
        self._captures = [(t, slots.get(("capture", j), [])) for j, (_, t) in enumerate(graph.captures)]
        self._patched: list[np.ndarray | None] = [None] * len(self._captures)
        self._outputs = [(v, loc[v], id(v) in batched) for v in graph.outputs]

    def _aligned(self, size: int) -> np.ndarray:
        raw = self._allocate((size + ALIGN,), "uint8")
        skip = -raw.ctypes.data % ALIGN
        return raw[skip:skip + size]

    def _place(self, n: int) -> None:
        """Point every kernel at its values' places for batch size ``n`` (growing the rows arena if needed)."""
        if n > self._capacity or self._rows is None:
            self._rows = self._aligned(self.plan.row_bytes * max(n, 1))
            self._capacity = max(n, 1)
        bases = {"rows": self._rows.ctypes.data, "fixed": self._fixed.ctypes.data}
        for ptrs, places, count in self._layout:
            for i, kind, off in places:
                ptrs[i] = bases[kind] + (off * n if kind == "rows" else off)
            if count is not None:
                ptrs[count] = n
        self._n = n

    def _output(self, v: Value, kind: str, where: int, batched: bool, n: int,
                arrays: Sequence[np.ndarray]) -> np.ndarray:
        t = v.type
        shape = (n, *t.shape[1:]) if batched else t.shape
        if kind in ("rows", "fixed"):
            scale = n if kind == "rows" else 1
            arena = self._rows if kind == "rows" else self._fixed
            data = arena[where * scale:where * scale + nbytes(v) * scale].view(t.dtype)
        elif kind == "input":
            data = np.asarray(arrays[where])
        else:
            data = self.graph.captures[where][1].asnumpy()
        return np.array(data.reshape(shape), copy=True)

    def batch_size(self, arrays: Sequence[np.ndarray]) -> int:
        """The batch size of a call's inputs (dim 0 of the batched ones, which must agree)."""
        sizes = {arrays[j].shape[0] for j in self._batch_inputs}
        if len(sizes) != 1:
            raise ValueError(f"the batched inputs of a dynamic-batch graph have different sizes {sorted(sizes)}")
        return sizes.pop()

    def __call__(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the graph on C-contiguous ``arrays`` of the traced dtypes and trailing shapes, any batch size."""
        n = self.batch_size(arrays)
        with self._lock:
            if n != self._n:
                self._place(n)
            for slots, arr in zip(self._input_slots, arrays):
                address = data_address(arr)
                for ptrs, i in slots:
                    ptrs[i] = address
            current = [t.asnumpy() for t, _ in self._captures]
            if any(map(operator.is_not, current, self._patched)):
                for (_, slots), data, last in zip(self._captures, current, self._patched):
                    if data is not last:
                        address = data_address(data)
                        for ptrs, i in slots:
                            ptrs[i] = address
                self._patched = current
            if self._status is None:
                for fn, ptrs in self._calls:
                    fn(ptrs)
            else:
                self._status.run(self._steps)
            return [self._output(v, loc.kind, loc.where, b, n, arrays) for v, loc, b in self._outputs]


def prepare(graph: Graph, axes: dict[int, tuple[int, int]], tag: str) -> tuple[RowPlan, list[KernelSpec]] | str:
    """The row plan and kernel specs of ``graph`` (traced at batch 1 and through the passes; ``axes``: the
    batch dim and rows per batch row of each batched value by id), or why it cannot run with a run-time
    batch."""
    try:
        plan = plan_rows(graph, axes)
    except ValueError as e:
        return str(e)
    specs = kernel_specs(graph, plan, axes, tag)
    if isinstance(specs, str):
        return specs
    return plan, specs


__all__ = ["BatchGraph", "kernel_specs", "prepare"]
