"""Executes a built graph on an accelerator's memory (a target whose ``device()`` is not None: the GPU).

The call interface is :class:`~opbuild.runtime.executor.CompiledGraph`'s: called with host arrays, it returns
host arrays. Memory follows the same :class:`~opbuild.passes.memplan.MemoryPlan`, on the device:

* **One allocation** per graph: the arena at the plan's offsets (views are their input's bytes, as on the
  CPU), then one buffer per graph input, then one per captured Tensor (its *mirror*). Every kernel's pointer
  list is therefore fixed when the graph is made; a call only copies.
* **A call**: the graph inputs are uploaded into their buffers, stale mirrors are uploaded (below), the kernels
  are launched in plan order on the device's one queue, the outputs are downloaded, and the host waits once.
* **Mirrors** (captured Parameters and constants, ``device_mirrors.py``): a stale mirror takes its bytes
  before the kernels run, from the host (an upload) or from another graph's mirror that holds newer ones
  (device to device); a current one is not copied.
* **In-place outputs** (``Value.alias_of``: optimizer updates, Assign) are written by their kernel into the
  mirror of the Parameter they update, on the device, and stay there: the graph becomes the owner of the
  Parameter's newest bytes (``core/host_writes.py``), downloaded only when the host reads the Parameter
  (``asnumpy``, printing, checkpoints, a CPU graph or PyNative op). A training step therefore downloads its
  outputs (the loss) and nothing else but the 24 status bytes of each gather or scatter kernel (below).
  ``OPBUILD_GPU_WRITEBACK=1`` restores the copy of every updated mirror back into its host array after every
  call.
* **Host nodes** (collectives, PyCall: Print, hooks) run on the host: their inputs are downloaded (the queue is
  waited for), their outputs uploaded.
* **Status words** of the kernels that report bad input (``OpDef.status``: an index out of range) follow the
  captures; they are downloaded with the outputs, and a set flag raises the op's error after the wait
  (kernel_status.py), the words cleared for the next call. A reporting kernel followed by an in-place update
  (a train step's Gather) is checked right after its launch, a wait on the device, so a failed step updates
  no Parameter, as on the CPU.

The allocation is freed when the graph is dropped (a finalizer: no reference to the graph is kept by it).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import numpy as np

from ..core import host_writes
from ..core.ir import Graph, KernelSpec, Node, TensorType, Value
from ..ops.registry import STATUS_WORDS, HostFn, get
from ..passes.memplan import Location, MemoryPlan, nbytes, plan_memory
from ..targets.base import DeviceMemory, Kernel
from .device_mirrors import Mirrors
from .kernel_status import checked_nodes, raise_reported

#: Alignment of the input and mirror buffers after the arena (a device allocation's own alignment).
DEVICE_ALIGN = 256


def device_aligned(n: int) -> int:
    """``n`` rounded up to :data:`DEVICE_ALIGN`."""
    return -(-n // DEVICE_ALIGN) * DEVICE_ALIGN


def launch_size(dev: DeviceMemory, spec: KernelSpec) -> int:
    """The threads ``spec``'s kernel wants on ``dev`` (``DeviceMemory.launch_size``: the target's per-op rule);
    one per element of the largest output where the device memory does not say."""
    fn = getattr(dev, "launch_size", None)
    return fn(spec) if fn is not None else max((t.size for t in spec.outputs), default=1)


class _HostStep:
    """A host node of a device graph: inputs downloaded, ``host`` run, outputs uploaded."""

    def __init__(self, node: Node, host: HostFn, ins: list[tuple[int, TensorType]],
                 outs: list[tuple[int, TensorType]]):
        self.node, self.host, self.ins, self.outs = node, host, ins, outs

    def run(self, dev: DeviceMemory) -> None:
        arrays = [np.empty(t.shape, t.dtype) for _, t in self.ins]
        for (address, _), a in zip(self.ins, arrays):
            dev.download(a, address)
        dev.synchronize()
        outs = [np.empty(t.shape, t.dtype) for _, t in self.outs]
        self.host(self.node.attrs, arrays, outs)
        for (address, _), a in zip(self.outs, outs):
            dev.upload(address, np.ascontiguousarray(a))


class DeviceGraph:
    """A graph whose kernels are loaded for a device target; call it with the input arrays to get the output
    arrays (host copies), like :class:`~opbuild.runtime.executor.CompiledGraph`."""

    def __init__(self, graph: Graph, kernels: Sequence[Kernel], dev: DeviceMemory):
        """``kernels`` are those of ``plan.kernel_nodes`` that are not host nodes, in order; ``dev`` is the
        target's device memory (``Target.device()``)."""
        self.graph, self.dev = graph, dev
        self.plan: MemoryPlan = graph.memory_plan or plan_memory(graph, share=False)
        self.kernels = list(kernels)
        hosts = [get(n.op).host for n in self.plan.kernel_nodes]
        n_kernels = sum(h is None for h in hosts)
        if len(self.kernels) != n_kernels:
            raise ValueError(f"{len(self.kernels)} kernels for {n_kernels} kernel nodes")
        arena = device_aligned(max(self.plan.arena_bytes, 1))
        input_offsets, end = [], arena
        for v in graph.inputs:
            input_offsets.append(end)
            end += device_aligned(max(nbytes(v), 1))
        capture_offsets = []
        for v, _ in graph.captures:
            capture_offsets.append(end)
            end += device_aligned(max(nbytes(v), 1))
        # Status words of the kernels that report bad input (kernel ABI 2 of targets/cuda/codegen.py), after the
        # captures; cleared now and after each report, read back with the outputs.
        self._checked = checked_nodes(self.plan.kernel_nodes, [get(n.op) for n in self.plan.kernel_nodes])
        status_offset = end
        self._status = np.zeros(STATUS_WORDS * len(self._checked), np.int64)
        end += device_aligned(max(self._status.nbytes, 1))
        self.device_bytes = end
        self._base = base = dev.alloc(end)
        self._status_address = base + status_offset
        dev.memset(self._status_address, self._status.nbytes)
        # The finalizer hands the bytes the mirrors own to the host, unwatches their arrays and frees the memory.
        self._mirrors = Mirrors(dev, graph.captures, [base + off for off in capture_offsets])
        self._lock = self._mirrors.lock
        self._finalizer = weakref.finalize(self, _release, dev, base, self._mirrors)
        self._finalizer.atexit = False  # the driver may be gone at exit; the process's memory goes with it
        self._inputs = [(base + off, v.type) for off, v in zip(input_offsets, graph.inputs)]

        def address(loc: Location) -> int:
            if loc.kind == "arena":
                return base + loc.where
            return base + (input_offsets if loc.kind == "input" else capture_offsets)[loc.where]

        locations = self.plan.locations
        self._steps: list[Callable[[], None] | _HostStep] = []
        compiled = iter(self.kernels)
        reporting = {id(n): k for k, (n, _) in enumerate(self._checked)}
        # A kernel that reports before an in-place update is checked right after it (a wait on the device):
        # the update must not apply a step that failed. The others are read once, with the outputs.
        last_update = max((i for i, n in enumerate(self.plan.kernel_nodes)
                           if any(locations[v].kind == "capture" for v in n.outputs)), default=-1)
        written: set[int] = set()
        checked_now: set[int] = set()
        for i, (node, host) in enumerate(zip(self.plan.kernel_nodes, hosts)):
            for v in node.outputs:
                if locations[v].kind == "capture":  # an in-place update of a captured Parameter
                    written.add(locations[v].where)
                elif locations[v].kind == "input":  # the trace updates captured Parameters only (ops/primitive.py)
                    raise ValueError(f"{node.op}: an in-place update of graph input {locations[v].where} cannot "
                                     "run on the device; capture the Parameter instead of passing it")
            if host is not None:
                self._steps.append(_HostStep(node, host, [(address(locations[v]), v.type) for v in node.inputs],
                                             [(address(locations[v]), v.type) for v in node.outputs]))
                continue
            # GPU kernels take no workspace pointer; status words after the outputs (targets/cuda/codegen.py).
            pointers = tuple(address(locations[v]) for v in (*node.inputs, *node.outputs))
            if id(node) in reporting:
                pointers += (self._status_address + self._status.itemsize * STATUS_WORDS * reporting[id(node)],)
            spec = node.spec or get(node.op).spec(node.attrs, [v.type for v in node.inputs])
            self._steps.append(dev.launcher(next(compiled), pointers, launch_size(dev, spec)))
            if id(node) in reporting and i < last_update:
                self._steps.append(self._check_now(reporting[id(node)]))
                checked_now.add(reporting[id(node)])
        self._written = sorted(written)
        self._read_at_end = len(checked_now) < len(self._checked)  # some words are read with the outputs
        self._outputs = [(v, locations[v], address(locations[v])) for v in graph.outputs]
        self._mirrors.written = self._written

    def __call__(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the graph on the device. ``arrays`` must match the traced input types."""
        dev = self.dev
        with self._lock:
            if not self._finalizer.alive:
                raise RuntimeError("this GPU graph's device memory was freed (DeviceGraph.free); compile it again")
            for (address, t), a in zip(self._inputs, arrays):
                dev.upload(address, np.ascontiguousarray(a, dtype=t.dtype).reshape(t.shape))
            mirrors = self._mirrors
            mirrors.refresh()
            try:
                for step in self._steps:
                    if isinstance(step, _HostStep):
                        step.run(dev)
                    else:
                        step()
                mirrors.queue_writeback()
                outs: list[np.ndarray | None] = []
                for v, loc, address in self._outputs:
                    if loc.kind == "arena":
                        out = np.empty(v.type.shape, v.type.dtype)
                        dev.download(out, address)
                        outs.append(out)
                    else:
                        outs.append(None)
                if self._read_at_end:
                    dev.download(self._status, self._status_address)
                dev.synchronize()
            except BaseException:
                mirrors.failed()  # a host node's Python raised, a launch failed: device_mirrors.py's rule
                raise
            mirrors.settle()
            if self._read_at_end and self._status.any():
                report = self._status.tolist()
                dev.memset(self._status_address, self._status.nbytes)  # queued before the next call's work
                raise_reported(self._checked, report)
            return [out if out is not None else self._host_output(v, loc, arrays)
                    for out, (v, loc, _) in zip(outs, self._outputs)]

    def _check_now(self, k: int) -> Callable[[], None]:
        """A step reading the ``k``-th reporting kernel's status words (a download and a wait): raises its error,
        the words cleared, if it reported."""
        words = np.zeros(STATUS_WORDS, np.int64)
        address = self._status_address + words.itemsize * STATUS_WORDS * k

        def check() -> None:
            self.dev.download(words, address)
            self.dev.synchronize()
            if words[0]:
                self.dev.memset(self._status_address, self._status.nbytes)
                raise_reported([self._checked[k]], words.tolist())

        return check

    def _host_output(self, v: Value, loc: Location, arrays: Sequence[np.ndarray]) -> np.ndarray:
        """A copy of an output that is a graph input or a capture (or a view of one): a capture's newest bytes
        are downloaded first if a device owns them."""
        if loc.kind == "input":
            data = np.asarray(arrays[loc.where])
        else:
            data = self.graph.captures[loc.where][1]._data
            host_writes.fetch(data)
        return np.array(np.asarray(data).reshape(v.type.shape), copy=True)

    def free(self) -> None:
        """Release the device memory now (the graph cannot run afterwards)."""
        self._finalizer()


class NoDevice:
    """A graph built for a device target on a machine without that device (``Cell.compile``, a cache warmed
    for later): its kernels are in kernel_meta; calling it raises the target's one-line error."""

    def __init__(self, graph: Graph, error: Exception):
        self.graph, self.error = graph, error

    def __call__(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        raise self.error.with_traceback(None)


def _release(dev: DeviceMemory, base: int, mirrors: Mirrors) -> None:
    mirrors.release()
    dev.free(base)


__all__ = ["DEVICE_ALIGN", "DeviceGraph", "NoDevice", "device_aligned"]
