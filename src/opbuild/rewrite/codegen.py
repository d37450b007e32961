"""Write a rewritten network's code from its nodes, and build the network from that code.

The new class subclasses the original one (so its other methods and attributes stay), takes over the original
instance's state (the same Parameters and sub-cells) and has the edited ``construct``. Objects the code refers
to that are not names of the original module (an inserted function, an object value) are bound in the
namespace the class is executed in, under the names the code shows.
"""

from __future__ import annotations

import ast
import builtins
import linecache
from collections import OrderedDict
from typing import Any

from ..nn.cell import Cell
from .api.node import Node
from .api.node_type import NodeType
from .api.scoped_value import ScopedValue, ValueType

_CALLS = {NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree, NodeType.CellContainer,
          NodeType.CallFunction, NodeType.CallMethod, NodeType.CallModule}


def copy_cell_state(new: Cell, obj: Cell) -> None:
    """Give the rewritten network ``new`` the state of the original ``obj``: the same Parameters, sub-cells and
    attributes, in containers of its own (so cells assigned to ``new`` later do not appear in ``obj``)."""
    Cell.__init__(new, obj.__dict__.get("_auto_prefix", True))
    for key, value in obj.__dict__.items():
        if key == "_graphs":
            continue  # compiled graphs belong to the original's construct
        if key == "_version":
            continue
        if type(value) in (dict, OrderedDict, list, set):
            value = type(value)(value)
        object.__setattr__(new, key, value)


class CodeWriter:
    """Renders nodes as Python source; ``namespace`` is what the code's names refer to."""

    def __init__(self, namespace: dict, used: set):
        self.namespace = namespace
        self.used = used  # the names construct's code reads: a builtin among them is not shadowed
        self.bound: dict[str, Any] = {}

    def bind(self, obj: Any, base: str) -> str:
        """A name for ``obj`` in the generated code: its own name where the namespace already has it there."""
        base = base if base.isidentifier() else "obj"
        name, i = base, 0
        while True:
            builtin = getattr(builtins, name, None) if name in self.used else None
            known = self.bound.get(name, self.namespace.get(name, builtin))
            if known is obj:
                break
            if known is None and name not in self.bound and name not in self.namespace:
                self.bound[name] = obj
                break
            i += 1
            name = f"{base}_{i}"
        return name

    def value(self, v: ScopedValue) -> str:
        if v.type == ValueType.NamingValue:
            return str(v)
        if v.type == ValueType.ConstantValue:
            return repr(v.value)
        if v.type == ValueType.TupleValue:
            items = [self.value(x) for x in v.value]
            return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        if v.type == ValueType.ListValue:
            return "[" + ", ".join(self.value(x) for x in v.value) + "]"
        if v.type == ValueType.DictValue:
            return "{" + ", ".join(f"{self.value(k)}: {self.value(x)}" for k, x in v.value.items()) + "}"
        return self.bind(v.value, type(v.value).__name__.lower())

    def expression(self, node: Node) -> str:
        """The right-hand side of ``node``'s statement."""
        if node.callee in ("()", "[]"):  # a tuple/list display
            items = [self.value(a) for a in node.args]
            if node.callee == "[]":
                return "[" + ", ".join(items) + "]"
            return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        if node.node_type in _CALLS:
            callee = node.callee or self.bind(node.instance, getattr(node.instance, "__name__", "function"))
            args = [self.value(a) for a in node.args] + [f"{k}={self.value(v)}" for k, v in node.kwargs.items()]
            return f"{callee}({', '.join(args)})"
        if node.node_type == NodeType.MathOps:
            operands = [ast.parse(self.value(a), mode="eval").body for a in node.args]
            expr = (ast.BinOp(operands[0], node.op, operands[1]) if len(operands) == 2
                    else ast.UnaryOp(node.op, operands[0]))
            return ast.unparse(expr)
        raise ValueError(f"node {node.name!r} of type {node.node_type} has no expression")

    def statement(self, node: Node, indent: str) -> list[str]:
        """``node`` as lines of code (several for a branch)."""
        if node.node_type == NodeType.Python:
            return [indent + line for line in ast.unparse(node.raw).splitlines()]
        if node.node_type == NodeType.Output:
            return [indent + ("return " + ", ".join(self.value(a) for a in node.args)).rstrip()]
        if node.node_type == NodeType.ControlFlow:
            head = self.value(node.args[0])
            head = (f"{node.callee} in {head}" if node.callee.startswith("for ") else
                    "else" if node.callee == "else" else f"{node.callee} {head}")
            lines = [f"{indent}{head}:"] + self.block(node.body, indent + "    ")
            if node.orelse:
                lines += [f"{indent}else:"] + self.block(node.orelse, indent + "    ")
            return lines
        if node.node_type == NodeType.Input:
            return []
        expr = self.expression(node)
        if not node.targets:
            return [indent + expr]
        return [f"{indent}{', '.join(self.value(t) for t in node.targets)} = {expr}"]

    def block(self, nodes: list[Node], indent: str) -> list[str]:
        lines: list[str] = []
        for i, n in enumerate(nodes):
            if n.callee == "else" and (i == 0 or nodes[i - 1].callee != "if"):
                # Its if was flattened away: an empty one keeps the else valid (as MindSpore writes it).
                lines += [f"{indent}if {self.value(n.args[0])}:", f"{indent}    pass"]
            lines += self.statement(n, indent)
        return lines or [indent + "pass"]

    def signature(self, inputs: list[Node]) -> str:
        params = ["self"]
        for n in inputs:
            text = n.callee + n.targets[0].value
            if n.default is not None:
                text += "=" + self.value(n.default)
            params.append(text)
        return ", ".join(params)

    def class_source(self, name: str, base: str, inputs: list[Node], nodes: list[Node],
                     attrs: list[str]) -> str:
        lines = [f"class {name}({base}):", "", "    def __init__(self, obj, added):",
                 "        copy_cell_state(self, obj)"]
        lines += [f"        self.{a} = added[{a!r}]" for a in attrs]
        lines += ["", f"    def construct({self.signature(inputs)}):"]
        lines += self.block(nodes, "        ")
        return "\n".join(lines) + "\n"


def execute(source: str, filename: str, namespace: dict) -> dict:
    """Run ``source`` in ``namespace``, registered with linecache so tracebacks and inspect show its lines."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 (the code this module generated)
    return namespace


def build_network(source: str, class_name: str, namespace: dict, origin: Cell, added: dict) -> Cell:
    """Run the class ``source`` (named ``class_name``) in ``namespace`` and make it from ``origin`` and the
    cells it adds (``added``: attribute name -> cell)."""
    namespace = {**namespace, "copy_cell_state": copy_cell_state}
    cls = execute(source, f"<rewrite {class_name} {id(origin):x}>", namespace)[class_name]
    # Assigning a cell to the new network prefixes its Parameters' names; those it shares with the original
    # network keep the names they have there.
    names = {id(p): p.name for _, p in origin.parameters_and_names()}
    network = cls(origin, added)
    for _, p in network.parameters_and_names():
        p.name = names.get(id(p), p.name)
    return network
