"""The graph-pass interface: a pass rewrites a traced :class:`~opbuild.core.ir.Graph` before it is lowered to kernels.

A pass is deterministic (the same graph gives the same result in every process: kernels, and therefore cache
keys, depend on it) and names itself with a ``name`` and a ``version``. The :class:`Pipeline` that runs the
passes has an ``identity`` made of those names and versions, which the build adds to the graph-manifest key:
changing what a pass does means bumping its version, so no manifest written by the old pass is trusted.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar

from ..cache.identity import pipeline_identity
from ..core import config
from ..core.ir import Graph, Node, Value


class GraphPass(ABC):
    """One graph -> graph transform. Subclasses set ``name`` (unique, lower-case) and ``version``.

    Contract: ``run`` returns a graph computing the same outputs from the same inputs (it may edit ``graph`` in
    place and return it), keeps the order of ``graph.inputs`` and ``graph.outputs`` (the executor binds them
    positionally), never touches the data of captured parameters (they change between calls), and is
    deterministic.
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1

    @abstractmethod
    def run(self, graph: Graph) -> Graph:
        """Transform ``graph``; returns the transformed graph."""

    @property
    def identity(self) -> str:
        """``name@version``: what the pipeline identity (and the manifest key) records of this pass."""
        return f"{self.name}@{self.version}"


class FusionPass(GraphPass):
    """A pass that replaces groups of nodes by one fused node each (elementwise, row-reduction and epilogue
    fusion): bounded by ``max_members``, off under ``OPBUILD_FUSION=0`` (then its identity says ``off``, so
    graph manifests of fused and unfused builds never mix). Subclasses find the groups (:meth:`groups`, each
    in graph order, the node taking the group's place last) and build a group's node (:meth:`fuse`)."""

    def __init__(self, max_members: int = 64):
        """``max_members`` bounds a group's recipe (a longer chain becomes several kernels): very long
        expressions only cost compile time, and keep a one-op change from rebuilding a huge kernel."""
        self.max_members = max_members

    @property
    def identity(self) -> str:
        """``<name>@<version>:<max members>``, or ``<name>@<version>:off`` under ``OPBUILD_FUSION=0``."""
        return f"{self.name}@{self.version}:{self.max_members if config.fusion_enabled() else 'off'}"

    def groups(self, graph: Graph) -> list[list[Node]]:
        """The groups to fuse, each in graph order with the node whose place it takes last."""
        raise NotImplementedError

    def fuse(self, group: list[Node]) -> Node:
        """The one node replacing ``group``."""
        raise NotImplementedError

    def run(self, graph: Graph) -> Graph:
        """Replace each group by its fused node at the position of the group's last node."""
        if not config.fusion_enabled():
            return graph
        groups = self.groups(graph)
        if not groups:
            return graph
        fused: dict[int, Node] = {}
        absorbed: set[int] = set()
        for group in groups:
            fused[id(group[-1])] = self.fuse(group)
            absorbed.update(id(n) for n in group[:-1])
        graph.nodes = [fused.get(id(n), n) for n in graph.nodes if id(n) not in absorbed]
        return graph


class Pipeline:
    """An ordered list of passes, run one after the other. ``identity`` names them all (and the settings they
    follow)."""

    def __init__(self, passes: Iterable[GraphPass]):
        self.passes: tuple[GraphPass, ...] = tuple(passes)
        names = [p.name for p in self.passes]
        if len(set(names)) != len(names):
            raise ValueError(f"a pipeline runs each pass once; got {names}")

    @property
    def identity(self) -> str:
        """The passes' identities, comma-separated. Read at every build: a pass whose behaviour follows an
        environment setting (fusion: OPBUILD_FUSION) names that setting in its identity."""
        return pipeline_identity(p.identity for p in self.passes)

    def run(self, graph: Graph) -> Graph:
        """Run every pass in order."""
        for p in self.passes:
            graph = p.run(graph)
        return graph

    def __repr__(self) -> str:
        return f"Pipeline({self.identity})"


def consumers(nodes: Sequence[Node]) -> dict[int, list[Node]]:
    """``id(value) -> [nodes reading it]`` over ``nodes`` (values are compared by identity, as in the IR)."""
    users: dict[int, list[Node]] = {}
    for n in nodes:
        for v in n.inputs:
            users.setdefault(id(v), []).append(n)
    return users


def live_values(graph: Graph) -> set[int]:
    """ids of the values the graph's outputs depend on (walking producers backwards). In-place updates of
    Parameters (``Value.alias_of``) are effects: they and what they read are live though no output reads them,
    and so are the nodes whose attrs set ``effect`` (a host call that prints, ops/python_calls.py)."""
    live: set[int] = set()
    stack: list[Value] = list(graph.outputs)
    stack += [o for n in graph.nodes for o in n.outputs if o.alias_of is not None or n.attrs.get("effect")]
    while stack:
        v = stack.pop()
        if id(v) in live:
            continue
        live.add(id(v))
        if v.producer is not None:
            live.update(id(o) for o in v.producer.outputs)
            stack.extend(v.producer.inputs)
    return live
