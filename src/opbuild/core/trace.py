"""Tracing: run ``Cell.construct`` on symbolic tensors and record the primitives it applies into a Graph."""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from . import config, parameter_shapes, providers
from . import tensor as tensor_module
from .dtypes import np_name
from .ir import Graph, KernelSpec, Value
from .tensor import Tensor

_tracer: contextvars.ContextVar[Tracer | None] = contextvars.ContextVar("opbuild_tracer", default=None)


class ValueNeeded(RuntimeError):
    """A plain trace (one graph without values, such as a gradient traced inside another graph) was asked for
    the value of a traced tensor. core/graph_breaks.py catches it when nothing has run yet and runs the call
    as Python instead."""


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

    def rebind(self, old: Value, new: Value) -> None:
        """``new`` is an in-place update of ``old`` (a captured Parameter or an earlier update of one): reads of
        that Parameter traced from now on get ``new``, so they run after the write and see the new data."""
        for tid, v in self._captured.items():
            if v is old:
                self._captured[tid] = new
                return
        raise RuntimeError("an in-place update of a value that is not a captured Parameter")

    def updates_parameter(self, t: Tensor) -> bool:
        """Whether symbolic ``t`` is the latest in-place update of a captured Parameter."""
        return t._value is not None and any(v is t._value for v in self._captured.values())

    def inline(self, graph: Graph, inputs: Sequence[Tensor], shared: tuple[int, dict[int, Value]] = (0, {})
               ) -> list[Tensor]:
        """Append the nodes of ``graph`` (traced separately, e.g. a function and its gradients) to this trace,
        with ``inputs`` (Tensors of this trace or concrete ones) for its inputs and this trace's values of its
        captured objects; returns its outputs as symbolic Tensors. In-place updates stay in place.
        ``shared``: (n, values): the first n nodes are already in this trace, their outputs' values by id
        (core/forward_share.py)."""
        env: dict[int, Value] = {id(v): self.value_of(t) for v, t in zip(graph.inputs, inputs, strict=True)}
        env.update({id(v): self.value_of(t) for v, t in graph.captures})
        n_shared, values = shared
        env.update(values)
        for n in graph.nodes[n_shared:]:
            node = self.graph.add_node(n.op, n.attrs, [env[id(v)] for v in n.inputs], [o.type for o in n.outputs],
                                       n.spec)
            self.own(node.outputs)
            for old, new in zip(n.outputs, node.outputs):
                env[id(old)] = new
                if old.alias_of is not None:
                    new.alias_of = env[id(old.alias_of)]
                    self.rebind(new.alias_of, new)
        return [Tensor._symbolic(env[id(v)]) for v in graph.outputs]

    def concretize(self, t: Tensor, kind: str) -> Any:
        """The Python value ``kind`` (bool, int, float, item) of traced ``t``. This tracer records one graph
        without values: refused. Graph-mode calls use graph_breaks.BreakTracer, gradients called from Python
        concrete_trace.ConcreteTracer."""
        raise ValueNeeded(
            f"{kind}() of a tensor being traced: its value exists only when the graph runs. Control flow over "
            "tensor values is supported in GRAPH_MODE construct and @jit functions and in a function "
            "differentiated from Python (grad/value_and_grad), not in a function differentiated inside a "
            "compiled graph (@jit, a TrainOneStepCell in GRAPH_MODE); compute the condition outside it, call "
            "the gradient from Python, or use ops.select/where.")

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
        # Parameters updated in place are read at their latest update, as during the original trace.
        for n in graph.nodes:
            for o in n.outputs:
                if o.alias_of is not None:
                    tracer.rebind(o.alias_of, o)
        return tracer


_in_jit: contextvars.ContextVar[bool] = contextvars.ContextVar("opbuild_in_jit", default=False)


@contextlib.contextmanager
def jit_scope() -> Iterator[None]:
    """Mark the block as a ``@jit`` function's compilation or run (a graph whatever the context's mode)."""
    token = _in_jit.set(True)
    try:
        yield
    finally:
        _in_jit.reset(token)


def in_jit() -> bool:
    """Whether a ``@jit`` function is being compiled or run (see :func:`jit_scope`)."""
    return _in_jit.get()


_graph_print: Callable[..., None] | None = None
_builtin_print = builtins.print


def install_graph_print(fn: Callable[..., None]) -> None:
    """Install ``fn(*values)`` (ops.print_), which the built-in ``print`` becomes for Tensor arguments while
    a graph is traced: MindSpore's graph mode prints their values when the graph runs, not at compile time."""
    global _graph_print
    _graph_print = fn


def _print(*args: Any, sep: str | None = " ", end: str | None = "\n", file: Any = None, flush: bool = False) -> None:
    # Only what the graph's print takes (str, numbers, None, tuples/lists, Tensors); anything else, or a print
    # to a file, prints as Python does, at trace time.
    if (_graph_print is not None and file is None and current() is not None
            and any(isinstance(a, Tensor) for a in args)
            and all(isinstance(a, (Tensor, str, int, float, bool, tuple, list)) or a is None for a in args)):
        _graph_print(*args)
        return
    _builtin_print(*args, sep=sep, end=end, file=file, flush=flush)


@contextlib.contextmanager
def tracing(tracer: Tracer) -> Iterator[Tracer]:
    """Make ``tracer`` the active one for the duration of the block (primitives applied inside add nodes)."""
    token = _tracer.set(tracer)
    # The traced code's built-in print is routed to the graph's print (``_print``) for the block; other
    # threads' prints, outside any trace, go to Python's print unchanged.
    saved, builtins.print = builtins.print, _print
    try:
        yield tracer
    finally:
        builtins.print = saved
        _tracer.reset(token)


def _concretize(t: Tensor, kind: str) -> Any:
    tracer = current()
    if tracer is None:  # a tensor of a finished trace: it has no values
        raise RuntimeError(
            f"{kind}() was called on a tensor being traced in GRAPH_MODE; its values exist only when the graph "
            "runs. Return it from construct, or use PYNATIVE_MODE to inspect intermediate values.")
    return tracer.concretize(t, kind)


tensor_module.install_concretizer(_concretize)


def current() -> Tracer | None:
    """The active tracer, or None outside a trace."""
    return _tracer.get()


# Python values a graph may return beside its Tensors, as MindSpore's graph mode returns them: constants of the
# trace (a shape's length, a loop counter), the same on every call that takes the same path.
_PY_CONSTANTS = (bool, int, float, complex, str, type(None), np.generic)


def flatten_outputs(out: Any, op_name: str = "construct") -> tuple[list[Tensor], Callable[[list], Any]]:
    """Flatten a (possibly nested) tuple/list/dict of tensors and Python scalars; return the tensor leaves and
    a function rebuilding the structure from new leaves (the scalars as the trace computed them)."""
    if isinstance(out, Tensor):
        return [out], lambda leaves: leaves[0]
    if isinstance(out, np.generic):  # NumPy scalars of JIT Fallback come back as Python's, as in MindSpore
        scalar = out.item()
        return [], lambda leaves, value=scalar: value
    if isinstance(out, _PY_CONSTANTS):
        return [], lambda leaves, value=out: value
    if isinstance(out, (tuple, list, dict)):
        items = list(out.values()) if isinstance(out, dict) else list(out)
        leaves: list[Tensor] = []
        builders = []
        for item in items:
            sub, rebuild = flatten_outputs(item, op_name)
            builders.append((len(leaves), len(sub), rebuild))
            leaves.extend(sub)
        if isinstance(out, dict):
            keys = list(out)
            return leaves, lambda new: dict(zip(keys, (rb(new[s:s + n]) for s, n, rb in builders), strict=True))
        kind = type(out)
        return leaves, lambda new: kind(rb(new[s:s + n]) for s, n, rb in builders)
    if isinstance(out, (np.ndarray, type)):  # JIT Fallback's NumPy results and type objects are constants
        return [], lambda leaves, value=out: value
    seq = _materialized(out)
    if seq is not None:
        return flatten_outputs(seq, op_name)
    raise TypeError(f"{op_name} must return Tensors, Python scalars, or tuples/lists/dicts of them, got "
                    f"{type(out).__name__}")


_LIST_ITERATOR = type(iter([]))


def _materialized(out: Any) -> tuple | list | None:
    """The sequence MindSpore's graph mode returns for a lazy Python iterable: ``zip``, ``range`` and
    ``enumerate`` as tuples, ``filter`` and generators as lists, ``map`` as a list when it maps lists and a
    tuple otherwise (map keeps the container kind of its arguments); None for anything else."""
    if isinstance(out, (zip, range, enumerate)):
        return tuple(out)
    if isinstance(out, (filter, types.GeneratorType)):
        return list(out)
    if isinstance(out, map):
        iterators = out.__reduce__()[1][1:]  # (function, *iterators) of the map
        as_list = bool(iterators) and all(isinstance(i, _LIST_ITERATOR) for i in iterators)
        return list(out) if as_list else tuple(out)
    return None


def trace(fn: Callable[..., Any], args: Sequence[Any],
          tracer: Tracer | None = None) -> tuple[Graph, Callable[[list], Any]]:
    """Trace ``fn(*args)``: Tensor arguments become graph inputs, other arguments are constants. ``tracer``:
    a fresh Tracer (subclass) to record with (default: a plain Tracer)."""
    tracer = tracer if tracer is not None else Tracer()
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

    def state(self, owner: str) -> dict: ...

    def graph_reused(self, compiled: Callable[[Sequence[np.ndarray]], list[np.ndarray]]) -> None: ...


def engine() -> Engine:
    """The process's engine: the runtime session, looked up through core/providers.py (the one place core
    names a layer above it), so ops and cells run kernels without importing the runtime that imports them."""
    return providers.engine()


def arg_signature(args: Sequence[Any], who: str) -> tuple:
    """What a compiled graph depends on in ``args``: each Tensor's shape and dtype, each other argument's value
    (it is a constant of the trace, so it must be hashable; ``who`` names the caller in the error), and last
    the device target (a Cell called again after ``set_device`` runs a graph built for the new target) with the
    count of Parameter reshapes (a graph built before one would read its Parameters at their old shapes)."""
    sig = []
    for a in args:
        if isinstance(a, Tensor):
            v = a._value  # the type's fields read directly: this runs on every graph-mode call
            sig.append(("T", v.type.shape, v.type.dtype) if v is not None else
                       ("T", a._data.shape, np_name(a._data.dtype)))
        else:
            try:
                hash(a)
            except TypeError:
                raise TypeError(f"{who}: arguments must be Tensors or hashable constants, got "
                                f"{type(a).__name__}") from None
            sig.append(("C", a))
    sig.append(("target", config.device_target(), parameter_shapes.generation()))
    return tuple(sig)



def graph_inputs(fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
                 who: str) -> tuple[Callable[..., Any], tuple, tuple]:
    """A graph-mode call ``fn(*args, **kwargs)`` as a call of flat inputs, which is what a compiled graph takes:
    keyword values follow the positional ones, and tuples and lists (nested too) are opened into their items,
    so that a Tensor inside one is a graph input like any other (were the tuple a constant of the key, each
    call with new Tensors would compile, and keep, a new graph). Returns the function to trace (it rebuilds the
    call), the inputs and what belongs in the graph's key besides the inputs' signature (the keyword names and
    the sequences' layout); ``fn``, ``args`` and ``()`` when there is nothing to open."""
    if not kwargs and not any(isinstance(a, (tuple, list)) for a in args):
        return fn, args, ()
    call, inputs, names = with_keywords(fn, args, kwargs, who)
    leaves: list[Any] = []
    layout = tuple(_open(a, leaves) for a in inputs)

    def rebuilt(*flat: Any) -> Any:
        it = iter(flat)
        return call(*(_close(shape, it) for shape in layout))
    return rebuilt, tuple(leaves), (names, layout)


def _open(value: Any, leaves: list[Any]) -> Any:
    """``value``'s layout (None for a leaf, appended to ``leaves``; (type, item layouts) for a tuple or list)."""
    if type(value) in (tuple, list):  # not namedtuples and other subclasses: those stay constants
        return (type(value), tuple(_open(v, leaves) for v in value))
    leaves.append(tensor_module.Tensor(value) if isinstance(value, np.ndarray) else value)
    return None


def _close(shape: Any, it: Iterator[Any]) -> Any:
    if shape is None:
        return next(it)
    kind, items = shape
    return kind(_close(s, it) for s in items)


def with_keywords(fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any],
                  who: str) -> tuple[Callable[..., Any], tuple, tuple]:
    """A graph-mode call ``fn(*args, **kwargs)`` as a call of positional inputs only, which is what a compiled
    graph takes: returns the function to trace (it passes the trailing inputs back by their keywords), the
    inputs (``args`` then the keyword values, in the call's order: a Tensor passed by keyword is a graph
    input like any other) and the keyword names, which belong in the graph's key (``f(x, b=y)`` and
    ``f(x, y)`` may bind differently, so each gets its own graph)."""
    names = tuple(kwargs)
    for name in names:
        if not isinstance(name, str):  # only reachable through **{...}; Python itself checks the rest
            raise TypeError(f"{who}: keyword names must be str, got {type(name).__name__}")
    n = len(args)

    def call(*inputs: Any) -> Any:
        return fn(*inputs[:n], **dict(zip(names, inputs[n:])))
    return call, tuple(args) + tuple(kwargs.values()), names
