"""Dead-code elimination: drop nodes none of whose outputs the graph's outputs depend on.

Every registered primitive is pure (its kernel writes only its outputs), so a node nobody reads is work
without effect: a kernel to build and a call per run. Captures no remaining node reads are dropped too
(the executor would otherwise patch their pointers at every call for nothing).
"""

from __future__ import annotations

from ..core.ir import Graph
from .base import GraphPass, live_values


class DeadCodeElimination(GraphPass):
    """Removes unused nodes and captures. Graph inputs stay (they are the call signature)."""

    name = "dce"
    version = 1

    def run(self, graph: Graph) -> Graph:
        live = live_values(graph)
        graph.nodes = [n for n in graph.nodes if any(id(o) in live for o in n.outputs)]
        read = {id(v) for n in graph.nodes for v in n.inputs} | {id(v) for v in graph.outputs}
        graph.captures = [(v, t) for v, t in graph.captures if id(v) in read]
        return graph
