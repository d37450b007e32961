"""The process's runtime session: the kernel builder, eager (PyNative) execution and the build report."""

from __future__ import annotations

import ctypes
import functools
import threading
from collections.abc import Sequence

import numpy as np

from ..builder import Builder
from ..builder.memory import scope
from ..core.errors import OpbuildError
from ..core.ir import Graph, KernelSpec
from ..ops.registry import STATUS_WORDS, get
from ..passes import DEFAULT_PIPELINE, Pipeline
from ..passes.memplan import plan_memory
from ..passes.row_plan import IDENTITY as ROW_PLAN
from ..passes.row_plan import is_runtime
from ..report import BuildReport, KernelRecord
from ..targets.base import Target
from .addresses import data_address
from .batch_graph import BatchGraph, prepare
from .device_eager import run_on_device
from .device_graph import DeviceGraph, NoDevice
from .executor import CompiledGraph

_LOCAL_HOST_OPS = frozenset({"PyCall", "CustomGradient"})


# The host memory allocator of Target (np.empty), which the CPU target keeps.
_HOST_ALLOCATE = Target.allocate
# Kernel specs whose _EagerCall a session keeps (cleared when full, like the specs of ops/eager_specs.py).
_EAGER_CALLS = 4096


class _EagerCall:
    """What a PyNative call of one kernel spec needs beside its kernel, read from its OpDef once: the host
    function (collectives), in-place pairs, status reader, scratch bytes, output shapes and dtypes, and the
    ctypes type of its pointer array."""

    __slots__ = ("host", "inplace", "status", "status_error", "workspace", "outputs", "np_outputs", "pointers")

    def __init__(self, spec: KernelSpec) -> None:
        op = get(spec.op)
        self.host = op.host
        self.inplace = op.inplace
        self.status = op.status
        self.status_error = op.status_error
        self.workspace = 0 if op.host is not None else op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
        self.outputs = [(t.shape, t.dtype) for t in spec.outputs]
        try:
            self.np_outputs = [(t.shape, np.dtype(t.dtype)) for t in spec.outputs]
        except TypeError:  # a name NumPy does not know: the target's allocate reads it
            self.np_outputs = None
        n = len(spec.inputs) + len(spec.outputs) + (self.workspace > 0) + (op.status is not None)
        self.pointers = ctypes.c_void_p * n


class Session:
    """Owns the Builder (memory tier, toolchain identity, target instances), the most recent build report and
    the state operators keep between calls (:meth:`state`)."""

    def __init__(self) -> None:
        self.builder = Builder()
        self._states: dict[str, dict] = {}
        self._last: BuildReport | None = None
        self._pynative: BuildReport | None = None
        self._lock = threading.Lock()
        # PyNative: what a kernel spec's call needs besides the kernel (memo key -> _EagerCall), made once.
        self._eager: dict[bytes, _EagerCall] = {}

    def compile_graph(self, graph: Graph,
                      pipeline: Pipeline = DEFAULT_PIPELINE) -> CompiledGraph | DeviceGraph | NoDevice:
        """Run the graph passes over ``graph``, build every kernel of the result and return it ready to run;
        records the build report. The pipeline's identity is part of the graph manifest key. A target with
        device memory (``Target.device()``: the GPU) gets a :class:`DeviceGraph`, the CPU a
        :class:`CompiledGraph`; both are called with host arrays and return host arrays. Without the device
        (no GPU here) the kernels are built all the same and the graph's call raises the one-line error."""
        graph = pipeline.run(graph)
        if graph.memory_plan is None:  # a pipeline without memory planning: one buffer per node output
            graph.memory_plan = plan_memory(graph, share=False)
        plan = graph.memory_plan
        # Only the nodes the plan runs get a kernel: views are their input's bytes, built and called never, and
        # host nodes (collectives) are run by the executor itself.
        specs = [n.spec or get(n.op).spec(n.attrs, [v.type for v in n.inputs]) for n in plan.kernel_nodes
                 if get(n.op).host is None]
        announce = None
        # Python callbacks (PyCall: Print, hooks, Custom; CustomGradient: a Cell's bprop) are host nodes of this
        # process alone: a graph of them may compile on one rank only (an evaluation on rank 0), which must not
        # wait for the others.
        collectives = [n for n in plan.kernel_nodes if get(n.op).host is not None and n.op not in _LOCAL_HOST_OPS]
        if collectives:
            # A graph with collectives compiles on every rank of its first collective's group: those ranks tell
            # each other who builds what.
            from ..communication import build_plans

            announce = functools.partial(build_plans.exchange, group=collectives[0].attrs.get("group"))
        kernels, report = self.builder.build(specs, pipeline.identity, announce)
        report.memory = plan.summary()
        with self._lock:
            self._last = report
            self._pynative = None
        target = self.builder.target
        try:
            dev = target.device()
        except OpbuildError as e:
            if not getattr(e, "environment", False):
                raise
            # No such device here (a GPU build on a machine without one): the kernels are in kernel_meta; the
            # graph raises the one-line error when called, so Cell.compile can warm a cache without a GPU.
            compiled = NoDevice(graph, e)
        else:
            compiled = (CompiledGraph(graph, kernels, target.allocate) if dev is None
                        else DeviceGraph(graph, kernels, dev))
        # What build_report() says when this graph runs again without a build: every kernel reused from memory.
        compiled.reuse_report = BuildReport([KernelRecord(k.name, k.op, "reused", 0.0, "memory")
                                             for k in report.kernels], 0.0, report.memory, rerun=True)
        return compiled

    def compile_batch_graph(self, graph: Graph, axes: dict[int, tuple[int, int]],
                            pipeline: Pipeline = DEFAULT_PIPELINE) -> BatchGraph | str:
        """Build ``graph`` (traced at batch 1, already through ``pipeline``; ``axes``: the batch dim and rows
        per batch row of each batched value by id) with kernels that take the batch size at run time
        (runtime/batch_graph.py); records the build report. Returns why not (a string) where the target or a
        node cannot."""
        tag = getattr(self.builder.target, "runtime_batch_tag", None)
        if tag is None:
            return f"the {self.builder.target.name} target has no run-time-batch kernels"
        prepared = prepare(graph, axes, tag())
        if isinstance(prepared, str):
            return prepared
        plan, specs = prepared
        kernels, report = self.builder.build(specs, f"{pipeline.identity},{ROW_PLAN}")
        report.memory = plan.summary()
        with self._lock:
            self._last = report
            self._pynative = None
        compiled = BatchGraph(graph, plan, kernels, [is_runtime(s) for s in specs], self.builder.target.allocate)
        compiled.reuse_report = BuildReport([KernelRecord(k.name, k.op, "reused", 0.0, "memory")
                                             for k in report.kernels], 0.0, report.memory, rerun=True)
        return compiled

    def graph_reused(self, compiled: CompiledGraph | BatchGraph) -> None:
        """A compiled graph kept by its Cell (or jit function) runs again: build_report() reports it, not
        whichever graph was built last."""
        reuse = getattr(compiled, "reuse_report", None)
        if reuse is not None and self._last is not reuse:
            with self._lock:
                self._last = reuse
                self._pynative = None

    def run_eager(self, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run one kernel now (PyNative). Builds it on first use; later uses skip the builder entirely. On a
        target with device memory (the GPU) the inputs are uploaded and the outputs downloaded
        (``device_eager.py``); an in-place output is its input's own array, updated, on either."""
        mk = spec.memo_key()
        call = self._eager.get(mk)
        if call is None:
            call = _EagerCall(spec)
            if len(self._eager) >= _EAGER_CALLS:
                self._eager.clear()
            self._eager[mk] = call
        if call.host is not None:  # a collective: MPI on the arrays themselves, nothing to build
            ins = [np.ascontiguousarray(a).reshape(np.shape(a)) for a in arrays]  # 0-d stays 0-d
            outs = [np.empty(t.shape, t.dtype) for t in spec.outputs]
            call.host(spec.attrs, ins, outs)
            return outs
        # The builder's memory tier, in the scope of no store (builder/memory.py): the toolchain settings and
        # the target are part of it, a kernel built with other CC/OPBUILD_CFLAGS is other code.
        builder = self.builder
        target = builder.target
        where = scope(target.name, None)
        kernel = builder.memory.get(where, mk)
        if kernel is None:
            (kernel,), report = builder.build([spec])
            builder.memory.put(where, mk, kernel)
            with self._lock:
                if self._pynative is None:
                    self._pynative = BuildReport()
                    self._last = self._pynative
                self._pynative.extend(report)
        args = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
        inplace = call.inplace
        for _, i in inplace:
            # An in-place output is the updated input's own array (a Parameter's data, C-contiguous).
            if args[i] is not arrays[i]:
                raise ValueError(f"{spec.op}: input {i} is updated in place and must be C-contiguous")
        dev = target.device()
        if dev is not None:
            return run_on_device(dev, kernel, spec, args, inplace)
        # The host allocator is np.empty: given the NumPy dtypes rather than names to parse.
        if call.np_outputs is not None and type(target).allocate is _HOST_ALLOCATE:
            outs = [np.empty(shape, dtype) for shape, dtype in call.np_outputs]
        else:
            outs = [target.allocate(shape, dtype) for shape, dtype in call.outputs]
        for o, i in inplace:
            outs[o] = args[i]
        addresses = [*map(data_address, args), *map(data_address, outs)]
        if call.workspace:
            scratch = target.allocate((call.workspace + 64,), "uint8")  # + 64: room to align it
            addresses.append(-(-data_address(scratch) // 64) * 64)
        if call.status is None:
            kernel.fn(call.pointers(*addresses))
            return outs
        status = (ctypes.c_int64 * STATUS_WORDS)()  # the kernel's bad-input report (kernel ABI 3)
        kernel.fn(call.pointers(*addresses, ctypes.addressof(status)))
        if status[0]:
            raise call.status_error(spec.attrs, spec.inputs, status)
        return outs

    def state(self, owner: str) -> dict:
        """The dict where ``owner`` (e.g. ``"dropout"``: ops.dropout's generator states by seed) keeps what it
        needs between calls; the session holds it, so the state lives and dies with the session."""
        with self._lock:
            return self._states.setdefault(owner, {})

    def adopt_report(self, report: BuildReport) -> None:
        """Make ``report`` the most recent build's (a call that compiled several graph pieces sums theirs)."""
        with self._lock:
            self._last = report
            self._pynative = None

    def build_report(self) -> BuildReport:
        """The most recent graph build's report, or the PyNative builds since the last call."""
        with self._lock:
            report = self._last if self._last is not None else BuildReport()
            if report is self._pynative:
                # PyNative builds are reported once: the next call reports only the builds made after this
                # one (an empty report if the ops called since then were all built already).
                self._pynative = None
                self._last = None
            return report


_session: Session | None = None
_session_lock = threading.Lock()


def session() -> Session:
    """The process-wide session (created on first use)."""
    global _session
    if _session is None:
        with _session_lock:
            if _session is None:
                _session = Session()
    return _session



def build_report() -> BuildReport:
    """Report of the most recent graph build (or of the PyNative kernel builds since the last call):
    ``built``, ``reused``, ``repaired``, ``seconds``, ``kernels`` (name, op, status, seconds),
    ``as_dict()``."""
    return session().build_report()
