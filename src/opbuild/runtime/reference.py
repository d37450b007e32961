"""Run a traced graph with every op's NumPy reference instead of its kernel (the oracle for tests)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.ir import Graph
from ..ops.registry import get


def run_reference(graph: Graph, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Evaluate ``graph`` on ``arrays`` (one per graph input) with NumPy; returns the output arrays."""
    env: dict[int, np.ndarray] = {id(v): np.asarray(a) for v, a in zip(graph.inputs, arrays)}
    env.update({id(v): t.asnumpy() for v, t in graph.captures})
    for node in graph.nodes:
        opdef = get(node.op)
        spec = opdef.spec(node.attrs, [v.type for v in node.inputs])
        outs = opdef.run_reference(spec, [env[id(v)] for v in node.inputs])
        env.update({id(v): o for v, o in zip(node.outputs, outs)})
    return [np.array(env[id(v)]) for v in graph.outputs]
