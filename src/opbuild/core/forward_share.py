"""A gradient that shares the forward call already traced in the same graph, as MindSpore's graph mode does.

A hand-written train step (mindcv's ``TrainStep``, MindSpore's ``TrainOneStepCell`` before 2.x) calls the
network for the loss and then differentiates the same network on the same inputs:
``loss = self.network(x); grads = self.grad(self.network, weights)(x, sens)``. MindSpore 2.10's GRAPH_MODE
computes that forward once: BatchNorm's moving statistics are updated once per step, and a random op (Dropout)
draws one mask that both the loss and the gradient see. It does so only when the gradient's inputs are the very
values the one earlier call of that network took (a second call of the network on the same inputs, or other
inputs, leaves both forwards in the graph; scripts/record_bn_update_count.py records the cases).

The tracer records every Cell call traced into it (:func:`call_cell`: the nodes it added). When a gradient is
inlined into the trace (autograd.py), :func:`shared_forward` matches the gradient graph's forward nodes one to
one with the nodes of the only earlier call of that Cell on the same input values; when every node agrees (op,
attributes, types, and inputs: the same values, the same Parameters, equal small constants), the gradient's
forward nodes are not added again and its backward nodes read the earlier call's values.

PyNative: MindSpore 2.10 records the forward of a network marked with ``set_grad()`` (TrainOneStepCell marks
its network), and a gradient of that network called next on the very same input Tensors reuses it instead of
running the forward again. opbuild's PyNative gradient runs its compiled forward+backward graph; after such a
recorded forward (:data:`PYNATIVE_FORWARD`, :func:`pynative_forward_ran`) it puts back the Parameters its
forward wrote in place (:func:`written_captures`), so they move once. (The gradient's forward still draws its
own random numbers: a Dropout mask may differ from the recorded forward's, where MindSpore's is the same.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .ir import Graph, Node, Value
from .parameter import Parameter
from .tensor import Tensor

# Captured non-Parameter tensors (constants made afresh at every trace) up to this many elements are compared by
# value; larger ones by identity.
_CONST_BY_VALUE = 64
# The attribute of a Cell marked with set_grad() that holds the arguments of its last PyNative call.
PYNATIVE_FORWARD = "_pynative_forward_args"


def _arg_key(args: Sequence[Any]) -> tuple | None:
    """What identifies a call's inputs in one trace: the traced value of each Tensor, the object of a concrete
    one, the value of a hashable constant; None when an argument cannot be compared."""
    key: list[Any] = []
    for a in args:
        if isinstance(a, Tensor):
            key.append(("v", id(a._value)) if a._value is not None else ("t", id(a)))
        else:
            try:
                hash(a)
            except TypeError:
                return None
            key.append(("c", type(a), a))
    return tuple(key)


def call_cell(tracer: Any, cell: Any, construct: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``construct(*args, **kwargs)`` traced into ``tracer`` (None: run in PyNative), recorded as a call of
    ``cell`` (see the module docstring)."""
    if tracer is None:
        d = cell.__dict__
        if d.get("requires_grad"):  # a gradient next on these very inputs reuses this forward
            d[PYNATIVE_FORWARD] = None if kwargs else args
        return construct(*args, **kwargs)
    graph, start = tracer.graph, len(tracer.graph.nodes)
    out = construct(*args, **kwargs)
    key = None if kwargs else _arg_key(args)
    if key is not None and tracer.graph is graph:  # a graph break starts a new graph: nothing to share
        calls = tracer.__dict__.setdefault("_cell_calls", {})
        calls.setdefault((id(cell), key), []).append((graph, start, len(graph.nodes), cell))
    return out


def earlier_call(tracer: Any, fn: Any, args: Sequence[Any]) -> list[Node] | None:
    """The nodes of the one earlier call of ``fn`` on ``args``'s values in ``tracer``'s graph, or None (no
    such call, or several: MindSpore shares none then)."""
    calls = tracer.__dict__.get("_cell_calls")
    key = _arg_key(args)
    if not calls or key is None:
        return None
    found = calls.get((id(fn), key))
    if not found or len(found) != 1:
        return None
    graph, start, end, _ = found[0]
    return graph.nodes[start:end] if tracer.graph is graph else None


def _capture_roots(graph: Graph) -> dict[int, Any]:
    """id of each value of ``graph`` that holds a captured object's data (the capture or an in-place update
    of it) -> that object."""
    roots = {id(v): t for v, t in graph.captures}
    for n in graph.nodes:
        for o in n.outputs:
            if o.alias_of is not None and id(o.alias_of) in roots:
                roots[id(o)] = roots[id(o.alias_of)]
    return roots


def _same_capture(mine: Any, theirs: Any) -> bool:
    if mine is theirs:
        return True
    if not isinstance(mine, Tensor) or not isinstance(theirs, Tensor) or isinstance(mine, Parameter) \
            or isinstance(theirs, Parameter):
        return False
    a, b = mine.asnumpy(), theirs.asnumpy()
    return a.size <= _CONST_BY_VALUE and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _unwritten_since(tracer: Any, obj: Any, read: Value, earlier: set[int]) -> bool:
    """Whether captured ``obj``, which the earlier call read as ``read``, holds that data still or an update
    the earlier call itself wrote (BatchNorm's moving statistics), not one written after it."""
    current = tracer._captured.get(id(obj))
    return current is None or current is read or (current.producer is not None and id(current.producer) in earlier)


def shared_forward(tracer: Any, graph: Graph, n_forward: int, earlier: Sequence[Node],
                   inputs: Sequence[Value]) -> dict[int, Value] | None:
    """The values in ``tracer`` (by id of ``graph``'s values) of the first ``n_forward`` nodes of ``graph`` (a
    gradient graph whose inputs take ``inputs``) when they repeat ``earlier`` (nodes of ``tracer``'s graph)
    one to one, else None. A Parameter the forward read and something wrote since (``ops.assign`` between
    the forward and the gradient) leaves the forward unshared: the gradient is computed at the new value,
    where MindSpore shares the forward anyway and differentiates at the old one (docs/mindspore-compat.md)."""
    if len(earlier) != n_forward:
        return None
    env: dict[int, Value] = {id(v): o for v, o in zip(graph.inputs, inputs)}
    captured = {id(v): t for v, t in graph.captures}
    roots = _capture_roots(tracer.graph)
    earlier_ids = {id(m) for m in earlier}
    for n, m in zip(graph.nodes[:n_forward], earlier):
        if n.op != m.op or len(n.inputs) != len(m.inputs) or len(n.outputs) != len(m.outputs) \
                or n.attrs != m.attrs:
            return None
        for v, w in zip(n.inputs, m.inputs):
            if id(v) in env:
                if env[id(v)] is not w:
                    return None
            elif id(v) not in captured or id(w) not in roots or not _same_capture(captured[id(v)], roots[id(w)]) \
                    or not _unwritten_since(tracer, roots[id(w)], w, earlier_ids):
                return None
        for o, p in zip(n.outputs, m.outputs):
            if o.type != p.type:
                return None
            env[id(o)] = p
    return env


def pynative_forward_ran(fn: Any, args: Sequence[Any]) -> bool:
    """Whether ``fn``'s last PyNative call (recorded when it is marked with ``set_grad()``) took these very
    objects as its arguments; the record is used up."""
    recorded = getattr(fn, "__dict__", {}).pop(PYNATIVE_FORWARD, None)
    return recorded is not None and len(recorded) == len(args) and all(a is b for a, b in zip(recorded, args))


def written_captures(graph: Graph) -> list[Any]:
    """The captured objects (Parameters, random states) that ``graph``'s nodes update in place."""
    roots = _capture_roots(graph)
    out: dict[int, Any] = {}
    for n in graph.nodes:
        for o in n.outputs:
            if o.alias_of is not None and id(o) in roots:
                out[id(roots[id(o)])] = roots[id(o)]
    return list(out.values())
