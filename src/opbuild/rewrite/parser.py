"""Parse a Cell's ``construct`` source (Python's ``ast``) into rewrite nodes.

Each statement becomes one node; a call or operator nested in an argument becomes a node of its own before it,
writing a new variable (``x = self.relu(self.fc1(x))`` is ``fc1_var = self.fc1(x)`` then
``x = self.relu(fc1_var)``), as MindSpore's rewrite splits it. A statement of another shape is kept as written
(a ``NodeType.Python`` node). The branches of an ``if`` are parsed the same way into the ``if`` node.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..nn.cell import Cell
from ..nn.container import SequentialCell
from ..nn.layers.containers import CellDict, CellList
from ..ops.primitive_api import Primitive
from .api.node import Node
from .api.node_type import NodeType
from .api.scoped_value import ScopedValue


def cell_kind(obj: Any) -> NodeType:
    """How a call of the sub-cell ``obj`` is classified: a container, one of the framework's own layers (a
    ``CallCell``, not expanded) or a user-defined cell (a ``Tree``, itself rewritable)."""
    if isinstance(obj, (SequentialCell, CellList, CellDict)):
        return NodeType.CellContainer
    if isinstance(obj, Primitive):
        return NodeType.CallPrimitive
    module = type(obj).__module__ or ""
    if module.split(".")[0] in ("opbuild", "mindspore"):
        return NodeType.CallCell
    return NodeType.Tree


class Namer:
    """Unique names: ``relu``, then ``relu_1``, ``relu_2``, ..."""

    def __init__(self, taken=()):
        self.taken: set[str] = set(taken)

    def get(self, base: str) -> str:
        name, i = base, 0
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
        self.taken.add(name)
        return name


class ConstructParser:
    """Turns ``construct``'s statements into nodes. ``net`` resolves ``self.<attr>`` callees, ``globals_`` the
    module-level ones (``ops.abs``); ``sub_tree`` makes the SymbolTree of a user-defined sub-cell."""

    def __init__(self, net: Cell, globals_: dict, names: Namer, variables: Namer,
                 sub_tree: Callable[[Cell], Any]):
        self.net = net
        self.globals = globals_
        self.names = names          # node names
        self.variables = variables  # variable names of construct (new ones for split expressions)
        self.sub_tree = sub_tree
        self.locals: set[str] = set()

    def inputs(self, fn: ast.FunctionDef) -> list[Node]:
        """One Input node per parameter of ``construct`` (after ``self``)."""
        a = fn.args
        params = [(p, "") for p in a.posonlyargs + a.args][1:]
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        out = []
        for (p, _), d in zip(params, defaults):
            out.append(self._input(p.arg, "", d))
        if a.vararg is not None:
            out.append(self._input(a.vararg.arg, "*", None))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            out.append(self._input(p.arg, "", d))
        if a.kwarg is not None:
            out.append(self._input(a.kwarg.arg, "**", None))
        return out

    def _input(self, name: str, star: str, default: ast.expr | None) -> Node:
        node = Node.create_input(name)
        node.name = self.names.get(node.name)
        node.callee = star  # an Input's callee is its star prefix ("*args", "**kwargs")
        if default is not None:
            node.default = self._const(default) or ScopedValue.create_naming_value(ast.unparse(default))
        self.locals.add(name)
        return node

    def statements(self, body: list[ast.stmt]) -> list[Node]:
        out: list[Node] = []
        for i, stmt in enumerate(body):
            if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue  # the docstring
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt: ast.stmt) -> list[Node]:
        """The nodes of one statement: those split out of its arguments, then its own."""
        saved = (set(self.names.taken), set(self.variables.taken), set(self.locals))
        out: list[Node] = []
        node = self._structured(stmt, out)
        if node is None:
            # Not a shape the nodes describe: kept as written; forget what a partial split named.
            self.names.taken, self.variables.taken, self.locals = saved
            out, node = [], self._python(stmt)
        out.append(node)
        for t in node.writes():
            self.locals.add(t)
        return out

    def _structured(self, stmt: ast.stmt, out: list[Node]) -> Node | None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            targets = self._targets(stmt.targets[0])
            return None if targets is None else self._value_node(stmt.value, targets, out)
        if isinstance(stmt, ast.Expr):
            return self._value_node(stmt.value, [], out)
        if isinstance(stmt, ast.Return):
            args = [] if stmt.value is None else [self._simple(stmt.value, out, "return")]
            if any(a is None for a in args):
                return None
            return Node(NodeType.Output, self.names.get("return"), [], args)
        if isinstance(stmt, (ast.If, ast.For, ast.While)):
            return self._control(stmt, out)
        return None

    def _control(self, stmt: ast.If | ast.For | ast.While, out: list[Node]) -> Node | None:
        """An ``if``/``for``/``while`` node; its head (``callee``) says which, with a for loop's variables."""
        kind = type(stmt).__name__.lower()
        if isinstance(stmt, ast.While):
            # A while test is evaluated before every pass: only a plain value can stand for it.
            simple = isinstance(stmt.test, ast.Name) or (isinstance(stmt.test, ast.Attribute)
                                                        and isinstance(stmt.test.value, ast.Name))
            head = self._simple(stmt.test, out, kind) if simple else None
        else:  # an if test, a for iterable: evaluated once, before, so they can be split out
            head = self._simple(stmt.iter if isinstance(stmt, ast.For) else stmt.test, out, kind)
        if head is None:
            return None
        node = Node(NodeType.ControlFlow, self.names.get(f"{kind}_node"), [], [head])
        node.callee = f"for {ast.unparse(stmt.target)}" if isinstance(stmt, ast.For) else kind
        if isinstance(stmt, ast.For):
            self.locals.update(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name))
        node.body = self.statements(stmt.body)
        if isinstance(stmt, ast.If) and stmt.orelse:
            # As MindSpore's: the else branch is a node of its own ("else_node", reading the same test) right
            # after the if node.
            out.append(node)
            node = Node(NodeType.ControlFlow, self.names.get("else_node"), [], [head])
            node.callee = "else"
            node.body = self.statements(stmt.orelse)
        else:
            node.orelse = self.statements(stmt.orelse)
        return node

    def _targets(self, target: ast.expr) -> list[ScopedValue] | None:
        elts = target.elts if isinstance(target, ast.Tuple) else [target]
        if not all(isinstance(e, ast.Name) for e in elts):
            return None
        return [ScopedValue.create_naming_value(e.id) for e in elts]

    def _python(self, stmt: ast.stmt) -> Node:
        stored = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        loaded = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in self.locals
                  and (isinstance(n.ctx, ast.Load) or isinstance(stmt, ast.AugAssign))]
        node = Node(NodeType.Python, self.names.get(type(stmt).__name__),
                    ScopedValue.create_name_values(list(dict.fromkeys(stored))),
                    ScopedValue.create_name_values(list(dict.fromkeys(loaded))))
        node.raw = stmt
        return node

    # ---- expressions -----------------------------------------------------------------------------
    def _value_node(self, expr: ast.expr, targets: list[ScopedValue], out: list[Node]) -> Node | None:
        if isinstance(expr, ast.Call):
            return self._call(expr, targets, out)
        if isinstance(expr, (ast.Tuple, ast.List)):
            # As MindSpore's: a tuple/list display is a node of its own (a CallMethod named "tuple"/"list").
            items = [self._simple(e, out, "item") for e in expr.elts]
            if any(i is None for i in items):
                return None
            kind = type(expr).__name__.lower()
            node = Node(NodeType.CallMethod, self.names.get(kind), targets, items)
            node.callee = "()" if kind == "tuple" else "[]"
            return node
        if isinstance(expr, (ast.BinOp, ast.UnaryOp)):
            operands = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else [expr.operand]
            args = [self._simple(o, out, "operand") for o in operands]
            if any(a is None for a in args):
                return None
            kind = "binop" if isinstance(expr, ast.BinOp) else "unaryop"
            node = Node(NodeType.MathOps, self.names.get(f"{kind}_{type(expr.op).__name__.lower()}"),
                        targets, args)
            node.op = expr.op
            return node
        return None

    def _call(self, call: ast.Call, targets: list[ScopedValue], out: list[Node]) -> Node | None:
        func = call.func
        kind, name, instance = self._callee(func)
        if kind is None:
            return None
        args = [self._simple(a, out, name) for a in call.args]
        if any(a is None for a in args) or any(k.arg is None for k in call.keywords):
            return None
        kwargs = {k.arg: self._simple(k.value, out, name) for k in call.keywords}
        if any(v is None for v in kwargs.values()):
            return None
        node = Node(kind, self.names.get(name), targets, args, kwargs, instance)
        node.callee = ast.unparse(func)
        if kind == NodeType.Tree:
            node.sub_tree = self.sub_tree(instance)
            if node.sub_tree is None:  # no source to parse: called as it is
                node.node_type = NodeType.CallCell
        return node

    def _callee(self, func: ast.expr) -> tuple[NodeType | None, str, Any]:
        chain = []
        cur = func
        while isinstance(cur, ast.Attribute):
            chain.insert(0, cur.attr)
            cur = cur.value
        if not isinstance(cur, ast.Name) or not (chain or cur.id not in self.locals):
            return None, "", None
        if cur.id == "self" and len(chain) == 1:
            obj = getattr(self.net, chain[0], None)
            if isinstance(obj, (Cell, Primitive)):
                return cell_kind(obj), chain[0], obj
            return NodeType.CallMethod, chain[0], None
        if cur.id in self.locals or cur.id == "self":
            return NodeType.CallMethod, chain[-1], None
        obj = self.globals.get(cur.id, self.globals.get("__builtins__", {}))
        if cur.id not in self.globals:
            builtins = obj if isinstance(obj, dict) else vars(obj)
            obj = builtins.get(cur.id)
        for part in chain:
            obj = getattr(obj, part, None)
        return NodeType.CallFunction, (chain[-1] if chain else cur.id), obj

    def _const(self, expr: ast.expr) -> ScopedValue | None:
        try:
            value = ast.literal_eval(expr)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
        return ScopedValue.create_variable_value(value)

    def _simple(self, expr: ast.expr, out: list[Node], hint: str) -> ScopedValue | None:
        """``expr`` as a value; a nested call or operator is split out first into a new variable."""
        if isinstance(expr, ast.Name):
            return ScopedValue.create_naming_value(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return ScopedValue.create_naming_value(expr.attr, "self")
        const = self._const(expr) if not isinstance(expr, (ast.Call, ast.BinOp)) else None
        if const is not None:
            return const
        if isinstance(expr, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List)):
            base = (self._callee(expr.func)[1] or hint if isinstance(expr, ast.Call) else
                    type(expr).__name__.lower() if isinstance(expr, (ast.Tuple, ast.List)) else
                    type(expr.op).__name__.lower())
            var = ScopedValue.create_naming_value(self.variables.get(f"{base}_var"))
            node = self._value_node(expr, [var], out)
            if node is None:
                return None
            out.append(node)
            self.locals.add(var.value)
            return var
        return None
