"""Which node writes what a node reads: the ``get_inputs``/``get_users`` relations of a SymbolTree, by the
order of the statements (a name read is the one the nearest statement before wrote)."""

from __future__ import annotations

import ast

from .api.node import Node
from .api.node_type import NodeType
from .api.scoped_value import ValueType


def owner_list(lists: list[list[Node]], node: Node) -> list[Node]:
    """The statement list (the body or a branch) that holds ``node``."""
    for nodes in lists:
        if any(n is node for n in nodes):
            return nodes
        for n in nodes:
            if n.node_type == NodeType.ControlFlow:
                found = owner_list([n.body, n.orelse], node)
                if found is not None:
                    return found
    return None


def _parents(body: list[Node], node: Node, path: list) -> bool:
    """Fill ``path`` with (list, index) from the body down to ``node``."""
    for i, n in enumerate(body):
        if n is node:
            path.append((body, i))
            return True
        if n.node_type == NodeType.ControlFlow:
            path.append((body, i))
            if _parents(n.body, node, path) or _parents(n.orelse, node, path):
                return True
            path.pop()
    return False


def visible_before(inputs: list[Node], body: list[Node], node: Node) -> list[Node]:
    """The statements that run before ``node``, nearest first, then the inputs."""
    path: list = []
    _parents(body, node, path)
    out: list[Node] = []
    for nodes, i in reversed(path):
        out.extend(reversed(nodes[:i]))
    return out + list(reversed(inputs))


def loop_variables(node: Node) -> list[str]:
    """The names a ``for`` node's loop assigns."""
    if node.node_type != NodeType.ControlFlow or not node.callee.startswith("for "):
        return []
    return [n.id for n in ast.walk(ast.parse(node.callee[4:], mode="eval")) if isinstance(n, ast.Name)]


def writer(inputs: list[Node], body: list[Node], node: Node, name: str) -> tuple:
    """(the node that wrote ``name`` last before ``node``, the index of that target), or (None, -1)."""
    for n in visible_before(inputs, body, node):
        writes = n.writes() + loop_variables(n)
        if name in writes:
            return n, writes.index(name)
    return None, -1


def arg_providers(inputs: list[Node], body: list[Node], node: Node) -> dict:
    out = {}
    for i, a in enumerate(node.args):
        if a.type == ValueType.NamingValue and not a.scope:
            src, idx = writer(inputs, body, node, a.value)
            if src is not None:
                out[i] = (src, idx)
    return out


def providers(inputs: list[Node], body: list[Node], node: Node) -> list[Node]:
    out: list[Node] = []
    for name in node.reads():
        src, _ = writer(inputs, body, node, name)
        if src is not None and all(src is not o for o in out):
            out.append(src)
    return out


def users(inputs: list[Node], body: list[Node], node: Node) -> list[tuple[Node, int]]:
    """(user, argument index) for the later statements of the same list that read what ``node`` wrote."""
    nodes = inputs if node.node_type == NodeType.Input else owner_list([body], node)
    later = body if node.node_type == NodeType.Input else nodes[[id(n) for n in nodes].index(id(node)) + 1:]
    out = []
    for m in later:
        seen = False
        for i, (src, _) in arg_providers(inputs, body, m).items():
            if src is node:
                out.append((m, i))
                seen = True
        if not seen and any(writer(inputs, body, m, r)[0] is node for r in m.reads()):
            out.append((m, -1))  # read through a keyword or a tuple
    return out


def undefined_reads(inputs: list[Node], body: list[Node], known: set) -> list[tuple[Node, str]]:
    """(node, name) for every local name a statement reads that no input or earlier statement defines."""
    defined = {n.targets[0].value for n in inputs}
    bad: list[tuple[Node, str]] = []

    def walk(nodes: list[Node]) -> None:
        for n in nodes:
            bad.extend((n, r) for r in n.reads() if r not in defined and r not in known)
            defined.update(loop_variables(n))
            if n.node_type == NodeType.ControlFlow:
                walk(n.body)
                walk(n.orelse)
            defined.update(n.writes())

    walk(body)
    return bad


def check_defined(inputs: list[Node], body: list[Node], known: set) -> None:
    """Raise a ValueError naming the first statement that reads a name nothing defines."""
    bad = undefined_reads(inputs, body, known)
    if bad:
        node, name = bad[0]
        raise ValueError(
            f"SymbolTree.get_network: node {node.name!r} reads {name!r}, which no input or earlier node "
            f"defines. Point its argument at a defined value (Node.set_arg/set_arg_by_node) or insert it "
            f"after the node that writes {name!r}.")
