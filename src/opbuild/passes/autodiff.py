"""Reverse-mode automatic differentiation as a graph pass.

Given a traced forward graph, the values to differentiate (some of its outputs) and the values to
differentiate them with respect to (graph inputs and/or captured Parameters), :func:`differentiate` appends
the backward nodes to the same graph, so one graph, built and cached like any other, computes the outputs
and the gradients:

  1. the nodes on a path from a ``wrt`` value to a differentiated output are found (others need no
     backward: their cotangent would be zero);
  2. each differentiated output is seeded with its sensitivity (a given value, or ones, as MindSpore's
     GradOperation without ``sens_param``);
  3. the nodes are walked in reverse; each op's gradient rule (registered next to its definition,
     ``OpDef.grad``, see ops/registry.py ``grad_rule``) maps its output cotangents to input cotangents,
     applying primitives that become new nodes; cotangents reaching one value from several uses are summed
     with Add. Broadcasting is undone inside the rules (ReduceSum + Reshape, ops/gradlib.py ``unbroadcast``).

Only floating-point values carry cotangents: integer and bool values (indices, masks, comparison results)
have none, and ops marked ``NO_GRADIENT`` (comparisons, ArgMax, Floor, ...) pass nothing back, which is a
zero gradient. An op with no rule at all on a differentiated path is an error naming the op (a silently
zero gradient would train nothing without saying why).

A ``wrt`` value no differentiated output depends on gets zeros (ZerosLike), as in MindSpore.

:class:`Autodiff` is the :class:`~opbuild.passes.base.GraphPass` form. Its contract differs from the other
passes' in one documented way: it *appends* the gradients to ``graph.outputs`` (the original outputs stay
first, in order), which is the point of the pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import trace
from ..core.dtypes import ALL_FLOATS, COMPLEX
from ..core.errors import OpbuildError
from ..core.ir import Graph, Node, Value
from ..core.tensor import Tensor
from ..ops import gradlib as G
from ..ops.primitive import apply
from ..ops.registry import get as get_op
from .base import GraphPass

# float16, bfloat16, float32, float64 and the complex types: the dtypes a cotangent flows through (complex
# cotangents follow the transpose convention of ops/complex_grads.py).
_FLOATS = ALL_FLOATS + COMPLEX


class GradientError(OpbuildError):
    """An op on a differentiated path has no gradient rule (or a rule returned a malformed cotangent)."""


def _differentiable(v: Value) -> bool:
    return v.type.dtype in _FLOATS


def _path_nodes(graph: Graph, wrt: Sequence[Value], outputs: Sequence[Value]) -> list[Node]:
    """Nodes (in graph order) that depend on a ``wrt`` value and that a differentiated output depends on."""
    reach = {id(v) for v in wrt}
    forward: list[Node] = []
    for n in graph.nodes:
        if any(id(v) in reach for v in n.inputs):
            forward.append(n)
            reach.update(id(o) for o in n.outputs)
    needed = {id(v) for v in outputs}
    path: list[Node] = []
    for n in reversed(forward):
        if any(id(o) in needed for o in n.outputs):
            path.append(n)
            needed.update(id(v) for v in n.inputs)
    path.reverse()
    return path


def differentiate(graph: Graph, outputs: Sequence[Value], wrt: Sequence[Value],
                  sens: Sequence[Value | None] | None = None) -> list[Value]:
    """Append to ``graph`` the nodes computing d(sum_i <outputs[i], sens[i]>)/d(wrt[j]) for every j and
    return those gradient values (not yet graph outputs). ``sens[i]`` None (or ``sens`` None) means ones.

    Raises GradientError for a non-float ``wrt`` value or an op without a gradient rule on the path.
    """
    for v in wrt:
        if not _differentiable(v):
            raise GradientError(f"cannot differentiate with respect to a {v.type} value ({v.name or 'input'}): "
                                "only float tensors have gradients")
    sens = list(sens) if sens is not None else [None] * len(outputs)
    tracer = trace.Tracer.extending(graph)
    with trace.tracing(tracer):
        cot: dict[int, Tensor] = {}

        def accumulate(v: Value, g: Tensor) -> None:
            if tuple(g.shape) != v.type.shape:
                raise GradientError(f"a gradient rule returned a cotangent of shape {g.shape} for a value of "
                                    f"type {v.type} (producer: {v.producer.op if v.producer else 'input'})")
            g = G.cast(g, v.type.dtype)
            old = cot.get(id(v))
            cot[id(v)] = g if old is None else apply("Add", {}, [old, g])

        for out, s in zip(outputs, sens, strict=True):
            if not _differentiable(out):
                continue
            o = Tensor._symbolic(out)
            accumulate(out, Tensor._symbolic(s) if s is not None else apply("OnesLike", {}, [o]))

        again = _Recomputed(graph)
        for node in reversed(_path_nodes(graph, wrt, outputs)):
            douts = [cot.get(id(o)) for o in node.outputs]
            if all(d is None for d in douts):
                continue
            rule = get_op(node.op).grad
            if rule is None:
                raise GradientError(
                    f"operator {node.op} ({node.name}) has no gradient rule, so this graph cannot be "
                    f"differentiated through it; differentiable ops register one with ops.registry.grad_rule")
            ins = [again.value(node, v) for v in node.inputs]
            saved = getattr(node, "saved_inputs", None)  # saved-tensor hooks (saved_hooks.py)
            if saved is not None:
                ins = saved(ins)
            outs = [again.value(node, v) for v in node.outputs]
            grads = list(rule(node.attrs, ins, outs, douts))
            if len(grads) != len(node.inputs):
                raise GradientError(f"the gradient rule of {node.op} returned {len(grads)} cotangents for "
                                    f"{len(node.inputs)} inputs")
            for v, g in zip(node.inputs, grads, strict=True):
                if g is not None and _differentiable(v):
                    accumulate(v, g)

        results = []
        for v in wrt:
            g = cot.get(id(v))
            results.append(g if g is not None else G.zeros_like(Tensor._symbolic(v)))
        return [tracer.value_of(g) for g in results]


class _Recomputed:
    """The backward's view of forward values: a value made inside a recomputed block (core/recompute.py) is
    read from a copy of the block's forward nodes, emitted when the backward first needs the block, so the
    forward's own value can die after the forward pass. Nodes that update Parameters in place or run on the
    host (Print, hooks) are not run twice: their forward values are read."""

    def __init__(self, graph: Graph):
        self.members: dict[object, list[Node]] = {}
        for n in graph.nodes:
            group = getattr(n, "recompute", None)
            if group is not None:
                self.members.setdefault(group, []).append(n)
        self.copies: dict[int, Tensor] = {}
        self.done: set[int] = set()

    def value(self, node: Node, v: Value) -> Tensor:
        """What the gradient rule of ``node`` reads for its input or output ``v``."""
        group = getattr(node, "recompute", None)
        if group is not None and id(group) not in self.done:
            self.done.add(id(group))
            self._emit(self.members[group])
        copy = self.copies.get(id(v))
        return copy if copy is not None else Tensor._symbolic(v)

    def _emit(self, nodes: list[Node]) -> None:
        for n in nodes:
            opdef = get_op(n.op)
            if opdef.host is not None or opdef.inplace or any(o.alias_of is not None for o in n.outputs):
                continue
            ins = [self.copies[id(v)] if id(v) in self.copies else Tensor._symbolic(v) for v in n.inputs]
            out = apply(n.op, n.attrs, ins)
            outs = list(out) if isinstance(out, tuple) else [out]
            self.copies.update({id(o): t for o, t in zip(n.outputs, outs, strict=True)})


class Autodiff(GraphPass):
    """Appends the gradients of the first ``n_outputs`` outputs (all when None) with respect to the graph
    inputs at ``positions`` and the captured objects ``weights`` (Parameters, matched by identity) to the
    graph's outputs, in that order. With ``sens_inputs`` the last ``n_outputs`` graph inputs are the
    sensitivities of the differentiated outputs (GradOperation's ``sens_param``); otherwise ones."""

    name = "autodiff"
    version = 1

    def __init__(self, positions: Sequence[int] = (0,), weights: Sequence[object] = (),
                 n_outputs: int | None = None, sens_inputs: bool = False):
        self.positions = tuple(positions)
        self.weights = tuple(weights)
        self.n_outputs = n_outputs
        self.sens_inputs = sens_inputs

    def run(self, graph: Graph) -> Graph:
        outputs = list(graph.outputs[:self.n_outputs] if self.n_outputs is not None else graph.outputs)
        sens = list(graph.inputs[len(graph.inputs) - len(outputs):]) if self.sens_inputs else None
        wrt = [graph.inputs[p] for p in self.positions]
        captured = {id(t): v for v, t in graph.captures}
        tracer_values: list[Value | None] = [captured.get(id(w)) for w in self.weights]
        # A weight the forward never read has no value in the graph: its gradient is zeros of its shape.
        wrt_weights = [v for v in tracer_values if v is not None]
        grads = differentiate(graph, outputs, wrt + wrt_weights, sens)
        in_grads, w_grads = grads[:len(wrt)], iter(grads[len(wrt):])
        weight_grads = []
        for w, v in zip(self.weights, tracer_values, strict=True):
            if v is not None:
                weight_grads.append(next(w_grads))
            else:
                with trace.tracing(trace.Tracer.extending(graph)) as tr:
                    weight_grads.append(tr.value_of(G.zeros_like(w)))  # type: ignore[arg-type]
        graph.outputs = [*graph.outputs, *in_grads, *weight_grads]
        return graph
