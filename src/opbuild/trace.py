"""Tracing: run ``Cell.construct`` on symbolic tensors and record the primitives it applies into a Graph."""

from __future__ import annotations

import contextlib
import contextvars
import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from .ir import Graph, KernelSpec, Value
from .tensor import Tensor

_tracer: contextvars.ContextVar[Tracer | None] = contextvars.ContextVar("opbuild_tracer", default=None)


class Tracer:
    """Records primitive applications into ``graph``. Concrete tensors met while tracing (parameters,
    constants) become captures: the executor reads their live data at every run, without copying."""

    def __init__(self) -> None:
        self.graph = Graph()
        self._captured: dict[int, Value] = {}
        self._own: set[int] = set()  # ids of the values this trace created (inputs and node outputs)

    def own(self, values: Sequence[Value]) -> None:
        """Record values created by this trace."""
        self._own.update(id(v) for v in values)

    def value_of(self, t: Tensor) -> Value:
        if t._value is not None:
            if id(t._value) not in self._own:
                raise RuntimeError(
                    "a traced tensor from another graph was used (for example a tensor from an earlier trace "
                    "stored on self); keep intermediate results local to construct, or store a Tensor of "
                    "concrete values instead")
            return t._value
        v = self._captured.get(id(t))
        if v is None:
            v = Value(t._type, name=f"capture{len(self._captured)}")
            self._captured[id(t)] = v
            self.graph.captures.append((v, t))
        return v


    @classmethod
    def extending(cls, graph: Graph) -> Tracer:
        """A tracer that appends to an existing ``graph`` (autodiff adds the backward nodes this way): every
        value of the graph is its own, and its captures are reused rather than captured twice."""
        tracer = cls()
        tracer.graph = graph
        tracer.own(graph.inputs)
        tracer.own([v for v, _ in graph.captures])
        tracer.own([o for n in graph.nodes for o in n.outputs])
        for v, t in graph.captures:
            tracer._captured[id(t)] = v
        return tracer


@contextlib.contextmanager
def tracing(tracer: Tracer) -> Iterator[Tracer]:
    """Make ``tracer`` the active one for the duration of the block (primitives applied inside add nodes)."""
    token = _tracer.set(tracer)
    try:
        yield tracer
    finally:
        _tracer.reset(token)


def current() -> Tracer | None:
    """The active tracer, or None outside a trace."""
    return _tracer.get()


def flatten_outputs(out: Any, op_name: str = "construct") -> tuple[list[Tensor], Callable[[list], Any]]:
    """Flatten a (possibly nested) tuple/list of tensors; return the leaves and a function rebuilding the
    structure from new leaves."""
    if isinstance(out, Tensor):
        return [out], lambda leaves: leaves[0]
    if isinstance(out, (tuple, list)):
        leaves: list[Tensor] = []
        builders = []
        for item in out:
            sub, rebuild = flatten_outputs(item, op_name)
            builders.append((len(leaves), len(sub), rebuild))
            leaves.extend(sub)
        kind = type(out)
        return leaves, lambda new: kind(rb(new[s:s + n]) for s, n, rb in builders)
    raise TypeError(f"{op_name} must return a Tensor or a tuple/list of Tensors, got {type(out).__name__}")


def assign(target: Any, value: Tensor) -> None:
    """Write ``value`` into ``target`` (a Parameter: anything with ``set_data``) once the computation has run:
    the state updates of training (BatchNorm's moving statistics, Dropout's counter), as MindSpore's
    ``ops.Assign``. Outside a trace (PyNative) it writes now. Inside a trace it records the update in the
    graph (``Graph.assigns``; a later assign to the same target replaces an earlier one); the caller that
    compiles the graph seals the updates as its last outputs (:func:`seal_assigns`) and writes them back
    after each run (:func:`write_back`). The values are computed inside the compiled graph; only the
    write-back is a copy, which an executor that updates captures in place can drop without changing a
    caller."""
    tracer = current()
    if tracer is None:
        target.set_data(value.asnumpy())
        return
    v = tracer.value_of(value)
    tracer.graph.assigns = [(u, t) for u, t in tracer.graph.assigns if t is not target] + [(v, target)]


def seal_assigns(graph: Graph) -> list[Any]:
    """Append the values of the graph's state updates (:func:`assign`) to its outputs, after every other
    output, and return their targets in that order (for :func:`write_back`)."""
    graph.outputs = [*graph.outputs, *(v for v, _ in graph.assigns)]
    return [t for _, t in graph.assigns]


def write_back(targets: Sequence[Any], outs: list[np.ndarray]) -> list[np.ndarray]:
    """Write the last ``len(targets)`` output arrays of a run of a sealed graph into their targets and return
    the other outputs."""
    if not targets:
        return outs
    n = len(outs) - len(targets)
    for t, arr in zip(targets, outs[n:], strict=True):
        t.set_data(arr)
    return outs[:n]


def trace(fn: Callable[..., Any], args: Sequence[Any]) -> tuple[Graph, Callable[[list], Any]]:
    """Trace ``fn(*args)``: Tensor arguments become graph inputs, other arguments are constants."""
    tracer = Tracer()
    sym_args = []
    for a in args:
        if isinstance(a, Tensor):
            v = Value(a._type, name=f"input{len(tracer.graph.inputs)}")
            tracer.graph.inputs.append(v)
            tracer.own([v])
            sym_args.append(Tensor._symbolic(v))
        else:
            sym_args.append(a)
    token = _tracer.set(tracer)
    try:
        out = fn(*sym_args)
    finally:
        _tracer.reset(token)
    leaves, rebuild = flatten_outputs(out)
    tracer.graph.outputs = [tracer.value_of(t) for t in leaves]
    return tracer.graph, rebuild


# ---- the engine: how applied ops and traced graphs get run ----------------------------------------------------
class Engine(Protocol):
    """What ops and cells call to run: the runtime session (runtime/session.py) implements it."""

    def run_eager(self, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    def compile_graph(self, graph: Graph) -> Callable[[Sequence[np.ndarray]], list[np.ndarray]]: ...


_engine: Callable[[], Engine] | None = None  # installed by runtime/session.py when it is imported


def install_engine(get: Callable[[], Engine]) -> None:
    """Install the function returning the process's engine. The runtime installs its session here, so ops
    (ops/primitive.py) and cells (nn/cell.py) run kernels without importing the runtime that imports them."""
    global _engine
    _engine = get


def engine() -> Engine:
    """The process's engine. ``import opbuild`` imports the runtime, which installs it; a process that imports
    only submodules gets it installed here on first use."""
    if _engine is None:
        importlib.import_module("opbuild.runtime.session")
    return _engine()
