"""Tracing with values: control flow over tensor values inside a function being differentiated.

A gradient needs the whole forward computation in one graph (the autodiff pass walks it backwards), so a
function being differentiated is not broken into pieces as GRAPH_MODE functions are (core/graph_breaks.py).
Instead :class:`ConcreteTracer` knows the call's input arrays: when the function's Python code asks for the
value of a traced tensor (``if x.sum() > 0:``, ``while``, ``int(n)``), the nodes traced since the last such
question are compiled and run on the values known so far (ordinary cache entries), and the trace goes on
along the branch that value takes. The graph is the function specialised to the path this call took, which
is what MindSpore differentiates too: the gradient of the branch taken, a loop unrolled as many times as it
ran.

Each question is a *guard*: the traced tensor, the conversion and the value it gave. The gradient graph
returns the guards' tensors beside its results, and a later call whose guards come out differently is traced
again (autograd.py keeps one compiled graph per path). Nodes marked ``effect`` (Print) are not run while
tracing, and in-place updates (BatchNorm's statistics, a random generator's counter) are computed on copies:
the real run does them once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .ir import Graph, Node, Value
from .tensor import PYTHON_VALUE, Tensor
from .trace import Tracer, engine


def _standalone(nodes: Sequence[Node], external: Sequence[Value]) -> Graph:
    """A graph computing every output of ``nodes`` from the values ``external`` (its inputs), with its own
    nodes and values (the passes edit what they compile) and no in-place aliasing (updates land in the
    copies the caller passes, not in Parameters)."""
    twins: dict[int, Value] = {}
    graph = Graph()
    for v in external:
        twins[id(v)] = Value(v.type, name=v.name)
        graph.inputs.append(twins[id(v)])
    for n in nodes:
        node = Node(n.op, n.attrs, [twins[id(v)] for v in n.inputs], name=n.name, spec=n.spec)
        for k, o in enumerate(n.outputs):
            twins[id(o)] = Value(o.type, node, k, o.name)
            node.outputs.append(twins[id(o)])
        graph.nodes.append(node)
    graph.outputs = [twins[id(o)] for n in nodes for o in n.outputs]
    return graph


class ConcreteTracer(Tracer):
    """A tracer that can answer a conversion of a traced tensor from the call's values (see the module
    docstring). ``arrays``: the values of the graph's inputs, in order, as the trace creates them."""

    def __init__(self, arrays: Sequence[np.ndarray]):
        super().__init__()
        self._arrays = list(arrays)
        self._env: dict[int, np.ndarray] = {}
        self._done = 0
        self.guards: list[tuple[Tensor, str, Any]] = []
        # Set when the graph holds values of this call only (saved-tensor hooks' packed values): not reused.
        self.volatile = False

    def concretize(self, t: Tensor, kind: str) -> Any:
        """The Python value ``kind`` of traced ``t``, computed now; recorded as a guard."""
        value = PYTHON_VALUE[kind](self.array_of(t))
        self.guards.append((t, kind, value))
        return value

    def array_of(self, t: Tensor) -> np.ndarray:
        """The value of traced (or captured) ``t`` on this call's inputs."""
        return self.array_of_value(self.value_of(t))

    def array_of_value(self, v: Value) -> np.ndarray:
        """The value of ``v`` (an input, capture or node output of this trace) on this call's inputs."""
        self._evaluate()
        return self._env[id(v)]

    def _evaluate(self) -> None:
        """Run the nodes traced since the last evaluation (all but the effects) on the values known."""
        g = self.graph
        for v, a in zip(g.inputs, self._arrays):
            self._env.setdefault(id(v), a)
        for v, t in g.captures:
            if id(v) not in self._env:
                self._env[id(v)] = np.array(t.asnumpy())  # a copy: updates in place must not reach t
        new = g.nodes[self._done:]
        self._done = len(g.nodes)
        runnable = []
        for n in new:
            if n.attrs.get("effect"):  # printing: done by the real run, not by the trace
                for o in n.outputs:
                    self._env[id(o)] = np.zeros(o.type.shape, o.type.dtype)
            else:
                runnable.append(n)
        if not runnable:
            return
        made = {id(o) for n in runnable for o in n.outputs}
        external: list[Value] = []
        seen: set[int] = set()
        for n in runnable:
            for v in n.inputs:
                if id(v) not in made and id(v) not in seen:
                    seen.add(id(v))
                    external.append(v)
        compiled = engine().compile_graph(_standalone(runnable, external))
        outs = compiled([np.array(self._env[id(v)]) for v in external])
        self._env.update({id(o): a for o, a in zip((o for n in runnable for o in n.outputs), outs)})


def guard_holds(kind: str, value: Any, array: np.ndarray) -> bool:
    """Whether ``array`` converts (``kind``) to the ``value`` a guard recorded."""
    got = PYTHON_VALUE[kind](np.asarray(array))
    if isinstance(value, np.ndarray):
        return got.dtype == value.dtype and np.array_equal(got, value, equal_nan=got.dtype.kind in "fc")
    if isinstance(value, float) and isinstance(got, float):
        return got == value or (np.isnan(got) and np.isnan(value))
    return bool(got == value) and type(got) is type(value)
