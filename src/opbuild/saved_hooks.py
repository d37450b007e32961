"""``mindspore.saved_tensors_hooks`` and ``mindspore.register_saved_tensors_hooks``: hooks on the tensors the
backward pass reads.

Inside the context, every float tensor an operation's gradient may read (its inputs) is handed to
``pack_hook`` when the forward computes it, and the backward reads ``unpack_hook(packed)`` in its place.
opbuild differentiates a traced graph, so the hooks work where the trace knows values: a gradient called from
Python (core/concrete_trace.py). ``pack_hook`` runs while the function is traced, on the values of this call
(the packed values become constants of a graph traced again at every call), and ``unpack_hook`` is a
``PyCall`` (ops/python_calls.py) in the backward part, run when the backward runs. Inside a compiled graph
(``@jit``, GRAPH_MODE) there are no values while it is traced: the call runs as Python instead when nothing
has run yet (core/graph_breaks.py), and is refused otherwise.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import trace
from .core.concrete_trace import ConcreteTracer
from .core.dtypes import ALL_FLOATS
from .core.tensor import Tensor
from .ops.python_calls import Callback, pycall


def _unpacker(unpack_hook: Callable[[Any], Any], packed: dict[int, Tensor]) -> Callable[[list], list]:
    """The node's ``saved_inputs``: its gradient rule's inputs, each saved one read through ``unpack_hook``."""

    def saved_inputs(ins: list[Tensor]) -> list[Tensor]:
        out = []
        for t in ins:
            p = packed.get(id(t._value))
            if p is None:
                out.append(t)
                continue

            def unpack(arrays: list[np.ndarray], p: Tensor = p) -> list[Any]:
                return [unpack_hook(p)]

            out.append(pycall(Callback("unpack_hook", unpack), [], [(tuple(t.shape), t._type.dtype)])[0])
        return out

    return saved_inputs


class saved_tensors_hooks:  # noqa: N801 - MindSpore's name
    """``with saved_tensors_hooks(pack_hook, unpack_hook):`` the tensors saved for the backward inside the
    block go through ``pack_hook`` (forward) and ``unpack_hook`` (backward); see the module docstring."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook
        self._tracer: trace.Tracer | None = None
        self._start = 0

    def __enter__(self) -> saved_tensors_hooks:
        self._tracer = trace.current()
        if self._tracer is not None and not isinstance(self._tracer, ConcreteTracer):
            # Caught by core/graph_breaks.py before anything ran: the call then runs as Python, its gradient
            # traced with values.
            raise trace.ValueNeeded(
                "saved_tensors_hooks inside a compiled graph (@jit, GRAPH_MODE): the hooks need the saved "
                "tensors' values, which exist only when the graph runs; call the gradient from Python")
        self._start = len(self._tracer.graph.nodes) if self._tracer is not None else 0
        return self

    def __exit__(self, *exc: Any) -> None:
        tracer = self._tracer
        if tracer is None or exc[0] is not None or not isinstance(tracer, ConcreteTracer):
            return  # no gradient is being taken: nothing is saved for a backward
        for node in tracer.graph.nodes[self._start:]:
            packed: dict[int, Tensor] = {}
            for v in node.inputs:
                if v.type.dtype in ALL_FLOATS and id(v) not in packed:
                    value = Tensor(tracer.array_of_value(v))
                    with trace.tracing(None):  # type: ignore[arg-type] - the hook computes on values, now
                        got = self.pack_hook(value)
                    packed[id(v)] = got if isinstance(got, Tensor) else Tensor(np.asarray(got))
            if packed:
                node.saved_inputs = _unpacker(self.unpack_hook, packed)  # read by passes/autodiff.py
                tracer.volatile = True


def register_saved_tensors_hooks(pack_hook: Callable[[Any], Any],
                                 unpack_hook: Callable[[Any], Any]) -> Callable[[Callable], Callable]:
    """Decorator: the decorated function runs inside ``saved_tensors_hooks(pack_hook, unpack_hook)``."""
    hooks = saved_tensors_hooks(pack_hook, unpack_hook)  # checks the hooks now

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with saved_tensors_hooks(hooks.pack_hook, hooks.unpack_hook):
                return fn(*args, **kwargs)

        return wrapper

    return decorate
