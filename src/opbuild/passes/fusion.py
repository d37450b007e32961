"""Operator fusion: groups of elementwise nodes become one ``FusedElementwise`` node, hence one kernel.

A group grows backwards from a root (an elementwise node, visited from the end of the graph): a producer
joins when it is elementwise (ops/elementwise.py ``FUSIBLE``), its output has the root's shape (so the fused
loop computes each member once per output element, never a small intermediate again and again), it is not a
graph output, and every node reading its output is already in the group (its value is needed nowhere else, so
no intermediate buffer remains), and no node between it and the root writes one of its inputs in place (an
optimizer update or Assign of a Parameter it reads: the fused kernel runs at the root's position, so the read
would move after the write and see the new value; the snapshot a loss-scaled step takes of the weights before
the update is such a read). Groups of one node stay as they are (the kernel is the op's own, shared with
unfused graphs).

The decisions depend only on the graph (its node order, ops, attributes and types), not on names, ids or
hashes: the same graph gives the same fused kernels in every process. They are local: a group never crosses a
non-elementwise node (MatMul, Conv2D, a reduction), so changing one layer changes only the fused kernels of
that layer, and equal layers share one fused kernel.

The pass runs after autodiff (which differentiates the traced, unfused graph before the session's pipeline)
and before memory planning. ``OPBUILD_FUSION=0`` turns it off; its identity then says ``off``, so graph
manifests of fused and unfused builds never mix.
"""

from __future__ import annotations

from ..core.dtypes import COMPLEX, LOWP
from ..core.ir import Graph, Node, Value
from ..ops.elementwise import FUSIBLE
from ..ops.fused import OP as FUSED_OP
from ..ops.registry import get as get_op
from .base import FusionPass, consumers


def _fusible(node: Node) -> bool:
    # A Cast to or from a storage-only format (ops/lowp.py) has table-driven code, not a member expression;
    # complex maps run as their own kernels (the fused kernels are written for real numbers).
    return (node.op in FUSIBLE and len(node.outputs) == 1 and node.outputs[0].type.size > 0
            and not any(v.type.dtype in LOWP or v.type.dtype in COMPLEX for v in (*node.inputs, *node.outputs)))


class Fusion(FusionPass):
    """Fuses groups of elementwise nodes into single ``FusedElementwise`` nodes (see the module)."""

    name = "fuse"
    version = 2  # 2: no member moves a read across an in-place write of what it reads

    def fuse(self, group: list[Node]) -> Node:
        """One ``FusedElementwise`` node at the root's position."""
        return _fuse(group)

    def groups(self, graph: Graph) -> list[list[Node]]:
        """The groups to fuse, each in graph order (the root last), in order of their roots."""
        users = consumers(graph.nodes)
        outputs = {id(v) for v in graph.outputs}
        pos = {id(n): i for i, n in enumerate(graph.nodes)}
        writes = _inplace_writes(graph.nodes)
        taken: set[int] = set()
        found: list[list[Node]] = []
        for root in reversed(graph.nodes):
            if id(root) in taken or not _fusible(root):
                continue
            shape = root.outputs[0].type.shape
            members = {id(root): root}
            grew = True
            while grew and len(members) < self.max_members:
                grew = False
                # Visit members latest first and their inputs in order: a fixed, graph-determined order.
                for m in sorted(members.values(), key=lambda n: -pos[id(n)]):
                    for v in m.inputs:
                        p = v.producer
                        if (p is None or id(p) in members or id(p) in taken or not _fusible(p)
                                or v.type.shape != shape or id(v) in outputs
                                or not all(id(u) in members for u in users.get(id(v), ()))
                                or _written_between(p, pos[id(p)], pos[id(root)], writes)):
                            continue
                        members[id(p)] = p
                        grew = True
                        if len(members) >= self.max_members:
                            break
                    if grew:
                        break  # restart from the latest member: the set (and the order) changed
            if len(members) > 1:
                group = sorted(members.values(), key=lambda n: pos[id(n)])
                taken.update(members)
                found.append(group)
        found.reverse()
        return found


def _buffer_root(v: Value) -> Value:
    """The value whose buffer ``v`` lives in: an in-place output (``alias_of``) lives in what it updates."""
    while v.alias_of is not None:
        v = v.alias_of
    return v


def _inplace_writes(nodes: list[Node]) -> dict[int, list[int]]:
    """id of a buffer's root value -> the positions of the nodes writing that buffer in place."""
    writes: dict[int, list[int]] = {}
    for i, n in enumerate(nodes):
        for o in n.outputs:
            if o.alias_of is not None:
                writes.setdefault(id(_buffer_root(o)), []).append(i)
    return writes


def _written_between(node: Node, start: int, end: int, writes: dict[int, list[int]]) -> bool:
    """Whether a node strictly between positions ``start`` and ``end`` writes one of ``node``'s inputs in place
    (moving ``node`` to ``end`` would then make it read the written data)."""
    return any(start < j < end for v in node.inputs for j in writes.get(id(_buffer_root(v)), ()))


def _fuse(group: list[Node]) -> Node:
    """One ``FusedElementwise`` node computing ``group``'s root from the group's external inputs (each once,
    in order of first use). The root's output value is kept (its consumers need no rewiring)."""
    index = {id(n.outputs[0]): j for j, n in enumerate(group)}
    ext: list[Value] = []
    ext_pos: dict[int, int] = {}
    members = []
    for n in group:
        args = []
        for v in n.inputs:
            if id(v) in index:
                args.append(f"t{index[id(v)]}")
                continue
            if id(v) not in ext_pos:
                ext_pos[id(v)] = len(ext)
                ext.append(v)
            args.append(f"i{ext_pos[id(v)]}")
        members.append({"op": n.op, "attrs": n.attrs, "args": args})
    spec = get_op(FUSED_OP).spec({"members": members}, [v.type for v in ext])
    root = group[-1]
    node = Node(FUSED_OP, spec.attrs, ext, name=f"{FUSED_OP}-{root.name}", spec=spec)
    out = root.outputs[0]
    out.producer, out.index = node, 0
    node.outputs = [out]
    return node
