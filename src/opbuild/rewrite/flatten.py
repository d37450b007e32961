"""``SymbolTree.flatten_static_if_control_flow``: an ``if`` whose test is known before the network runs (an
attribute of the network such as ``self.include_top`` or ``self.training``, a constant, or ``not`` of one) is
replaced by the statements of the branch it takes, as MindSpore's rewrite does."""

from __future__ import annotations

import ast
import re
from typing import Any

from ..nn.cell import Cell
from .api.node import Node
from .api.node_type import NodeType
from .api.scoped_value import ScopedValue, ValueType
from .parser import Namer

_UNKNOWN = object()
_STATIC = (bool, int, float, str, type(None), tuple, list)


def _static(value: ScopedValue, before: list[Node], network: Cell) -> Any:
    """The value ``value`` has when the statements ``before`` have run, if it is known without running."""
    if value.type == ValueType.ConstantValue:
        return value.value
    if value.type != ValueType.NamingValue:
        return _UNKNOWN
    if value.scope == "self":
        attr = getattr(network, value.value, _UNKNOWN)
        return attr if isinstance(attr, _STATIC) else _UNKNOWN
    for i in range(len(before) - 1, -1, -1):
        node = before[i]
        if value.value in node.writes():
            if node.node_type == NodeType.MathOps and isinstance(node.op, ast.Not) and len(node.targets) == 1:
                operand = _static(node.args[0], before[:i], network)
                return _UNKNOWN if operand is _UNKNOWN else not operand
            return _UNKNOWN
    return _UNKNOWN


def _renamed(nodes: list[Node], names: Namer) -> list[Node]:
    """The branch's statements, renamed as new nodes of the tree (``return`` becomes ``return_2``)."""
    for node in nodes:
        node.name = names.get(re.sub(r"_\d+$", "", node.name))
    return nodes


def flatten_static_ifs(nodes: list[Node], network: Cell, names: Namer) -> None:
    """Inline, in place, every ``if``/``else`` of ``nodes`` (and of its loops) whose test is static."""
    i = 0
    while i < len(nodes):
        node = nodes[i]
        if node.node_type != NodeType.ControlFlow:
            i += 1
            continue
        if node.callee != "if":
            flatten_static_ifs(node.body, network, names)
            flatten_static_ifs(node.orelse, network, names)
            i += 1
            continue
        test = _static(node.args[0], nodes[:i], network)
        if test is _UNKNOWN:
            flatten_static_ifs(node.body, network, names)
            i += 1
            continue
        has_else = i + 1 < len(nodes) and nodes[i + 1].callee == "else"
        taken = node.body if test else (nodes[i + 1].body if has_else else [])
        taken = _renamed(list(taken), names)
        nodes[i:i + (2 if has_else else 1)] = taken
        end = next((k for k, n in enumerate(taken) if n.node_type == NodeType.Output), None)
        if end is not None:  # the branch returns: what follows it cannot run
            del nodes[i + end + 1:]
    return None


def flatten_node(nodes: list[Node], node: Node, names: Namer, erase_nodes_after_return: bool) -> None:
    """Put the statements of the control-flow ``node`` (an element of ``nodes``) in its place, whatever its
    test (a loop's body once); with ``erase_nodes_after_return`` those after a ``return`` among them go."""
    body = list(node.body)
    if erase_nodes_after_return:
        end = next((k for k, n in enumerate(body) if n.node_type == NodeType.Output), None)
        body = body if end is None else body[:end + 1]
    index = [id(n) for n in nodes].index(id(node))
    if node.callee == "if" and index + 1 < len(nodes) and nodes[index + 1].callee == "else":
        # As MindSpore's: an if with an else keeps the else (written after an empty if) and its statements go
        # after it.
        nodes[index + 2:index + 2] = _renamed(body, names)
        del nodes[index]
        return
    nodes[index:index + 1] = _renamed(body, names)
