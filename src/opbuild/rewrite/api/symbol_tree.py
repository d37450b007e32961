"""``SymbolTree``: a Cell's ``construct`` as a list of nodes that can be inspected and edited (insert, erase,
replace, change arguments), and turned back into code and a new network (``get_code``, ``get_network``)."""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
from typing import Any

from ...nn.cell import Cell
from .. import dataflow
from ..codegen import CodeWriter, build_network
from ..flatten import flatten_node, flatten_static_ifs
from ..parser import ConstructParser, Namer
from ..table import node_table
from .node import Node
from .node_type import NodeType

_CELL_NODES = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree, NodeType.CellContainer)


class Position:
    """Where ``SymbolTree.insert`` puts a node: before or after a node of a tree."""

    def __init__(self, tree: SymbolTree, node: Node, before: bool):
        self.tree, self.node, self.before = tree, node, before


def _construct_source(network: Cell) -> tuple[ast.FunctionDef, dict]:
    cls = type(network)
    fn = getattr(cls, "construct", None)
    if fn is None or fn is Cell.construct or not inspect.isfunction(fn):
        raise RuntimeError(f"SymbolTree.create: {cls.__name__} defines no construct method to rewrite")
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise TypeError(
            f"SymbolTree.create: the source of {cls.__qualname__}.construct cannot be read ({e}). Rewrite parses "
            "construct's Python source: define the Cell in a .py file (not with exec or in an interactive "
            "session).") from None
    try:
        fn_ast = ast.parse(source).body[0]
    except SyntaxError as e:  # a source that does not stand alone once dedented (a string's lines, ...)
        raise RuntimeError(f"SymbolTree.create: the source of {cls.__qualname__}.construct does not parse on its "
                           f"own ({e.msg}, line {e.lineno})") from None
    namespace = dict(fn.__globals__)
    if fn.__closure__:  # a class defined in a function: the names construct takes from there
        namespace.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
    return fn_ast, namespace


class SymbolTree:
    """The statements of a network's ``construct`` as :class:`Node` objects. Make one with :meth:`create`."""

    def __init__(self, handler: Cell):
        if not isinstance(handler, Cell):
            raise TypeError("For 'SymbolTree', the type of 'network' should be 'Cell', but got type "
                            f"'{type(handler).__name__}'.")
        self._origin = handler
        self._fn, self._namespace = _construct_source(handler)
        self._names = Namer()
        used = {n.id for n in ast.walk(self._fn) if isinstance(n, ast.Name)}
        used.update(a.arg for a in ast.walk(self._fn.args) if isinstance(a, ast.arg))
        self._variables = Namer(used)
        parser = ConstructParser(handler, self._namespace, self._names, self._variables, self._sub_tree)
        self._inputs = parser.inputs(self._fn)
        self._body = parser.statements(self._fn.body)
        self._added: dict[str, Any] = {}
        self._saved_file = "./network_define.py"
        for n in self.nodes(all_nodes=True):
            n.tree = self

    @classmethod
    def create(cls, network: Cell) -> SymbolTree:
        """The SymbolTree of ``network``'s ``construct`` (read from its source file)."""
        return cls(network)

    @staticmethod
    def _sub_tree(cell: Cell) -> SymbolTree | None:
        try:
            return SymbolTree(cell)
        except (RuntimeError, TypeError):
            return None

    def get_handler(self) -> SymbolTree:
        """The tree itself (MindSpore returns its implementation object; here they are one)."""
        return self

    def get_origin_network(self) -> Cell:
        """The network the tree was created from."""
        return self._origin

    # ---- reading -----------------------------------------------------------------------------------
    def nodes(self, all_nodes: bool = False) -> list[Node]:
        """The inputs and statements of ``construct`` in order; with ``all_nodes`` also those inside ``if``
        branches (after the others)."""
        out = self._inputs + self._body
        if all_nodes:
            pending = [n for n in self._body if n.node_type == NodeType.ControlFlow]
            while pending:
                branch = pending.pop(0)
                out = out + branch.body + branch.orelse
                pending += [n for n in branch.body + branch.orelse if n.node_type == NodeType.ControlFlow]
        return out

    def all_nodes(self, subtree_nodes: bool = True) -> list[Node]:
        """Every node, with (``subtree_nodes``) those of the sub-cells' trees after them."""
        out = self.nodes(all_nodes=True)
        if subtree_nodes:
            for n in list(out):
                if n.node_type == NodeType.Tree and n.sub_tree is not None:
                    out = out + n.sub_tree.all_nodes(True)
        return out

    def get_node(self, node_name: str) -> Node | None:
        """The node named ``node_name``, or None."""
        if not isinstance(node_name, str):
            raise TypeError(f"For 'SymbolTree', the type of 'node_name' should be 'str', but got type "
                            f"'{type(node_name).__name__}'.")
        return next((n for n in self.nodes(all_nodes=True) if n.name == node_name), None)

    def get_inputs(self) -> list[Node]:
        """The Input nodes (the parameters of ``construct``)."""
        return list(self._inputs)

    def _resolve(self, node: Node | str) -> Node:
        if isinstance(node, str):
            found = self.get_node(node)
            if found is None:
                names = [n.name for n in self.nodes(all_nodes=True)]
                raise RuntimeError(f"Node is not belong to current SymbolTree: no node named {node!r}; its "
                                   f"nodes are {names}")
            return found
        if not isinstance(node, Node):
            raise TypeError("For 'SymbolTree', the type of 'node' should be one of ['Node', 'str'], but got "
                            f"type '{type(node).__name__}'.")
        if node.tree is not self:
            raise RuntimeError(f"Node is not belong to current SymbolTree: {node.name!r} is "
                               + ("in no SymbolTree yet" if node.tree is None else "in another SymbolTree"))
        return node

    def providers_of(self, node: Node) -> list[Node]:
        return dataflow.providers(self._inputs, self._body, node)

    def users_of(self, node: Node) -> list[tuple[Node, int]]:
        return dataflow.users(self._inputs, self._body, node)

    def arg_providers(self, node: Node) -> dict:
        return dataflow.arg_providers(self._inputs, self._body, node)

    def target_users(self, node: Node) -> dict:
        out: dict[int, list] = {}
        for user, arg in self.users_of(node):
            if arg < 0:
                continue
            _, idx = dataflow.writer(self._inputs, self._body, user, user.args[arg].value)
            out.setdefault(idx, []).append((user, arg))
        return out

    # ---- editing -----------------------------------------------------------------------------------
    def before(self, node: Node | str) -> Position:
        """The position before ``node`` (a Node of this tree or its name), for :meth:`insert`."""
        return Position(self, self._resolve(node), True)

    def after(self, node: Node | str) -> Position:
        """The position after ``node`` (a Node of this tree or its name), for :meth:`insert`."""
        return Position(self, self._resolve(node), False)

    def insert(self, position: Position, node: Node) -> Node:
        """Put the new ``node`` (from ``Node.create_*``) at ``position`` and return it, named uniquely; an
        inserted cell becomes an attribute of the rewritten network named after the node."""
        if not isinstance(position, Position):
            raise TypeError("For 'SymbolTree', the type of 'position' should be 'Position', but got type "
                            f"'{type(position).__name__}'. Make one with SymbolTree.before/after.")
        if not isinstance(node, Node):
            raise TypeError(f"For 'SymbolTree', the type of 'node' should be 'Node', but got type "
                            f"'{type(node).__name__}'.")
        if position.tree is not self:
            raise RuntimeError("SymbolTree.insert: the position belongs to another SymbolTree; take it from "
                               "this tree's before()/after()")
        if node.tree is not None:
            raise ValueError(f"Node in the SymbolTree cannot be inserted into SymbolTree again: {node.name}")
        self._name_new(node)
        if node.node_type == NodeType.Input:
            if node.targets[0].value in {n.targets[0].value for n in self._inputs}:
                raise ValueError(f"SymbolTree.insert: construct already has a parameter {node.targets[0]}")
            self._inputs.append(node)
        else:
            nodes = dataflow.owner_list([self._inputs, self._body], position.node)
            if nodes is self._inputs:
                nodes, index = self._body, 0
            else:
                index = [id(n) for n in nodes].index(id(position.node)) + (0 if position.before else 1)
                if index < len(nodes) and nodes[index].callee == "else" and \
                        nodes[index].node_type == NodeType.ControlFlow:
                    raise ValueError(f"SymbolTree.insert: no statement can go between an if and its else "
                                     f"({nodes[index].name!r}); insert before the if or after the else")
            nodes.insert(index, node)
        node.tree = self
        return node

    def _name_new(self, node: Node) -> None:
        inst = node.instance
        base = node.name or (node.targets[0].value if node.node_type == NodeType.Input else
                             type(inst).__name__ if node.node_type in _CELL_NODES else
                             getattr(inst, "__name__", "function"))
        node.name = self._names.get(base)
        for t in node.writes():
            self._variables.taken.add(t)
        if node.node_type in _CELL_NODES:
            attr = node.name
            while hasattr(self._origin, attr) or attr in self._added:
                attr = self._names.get(node.name)
            self._added[attr] = inst
            node.callee = f"self.{attr}"
            if node.node_type == NodeType.Tree:
                node.sub_tree = SymbolTree.create(inst)

    def erase(self, node: Node | str) -> Node:
        """Remove ``node`` (a Node of this tree or its name) and return it. The statements reading what it
        wrote are left as they are: point them elsewhere with ``Node.set_arg``."""
        node = self._resolve(node)
        if node.node_type == NodeType.Input:
            raise RuntimeError(f"SymbolTree.erase: {node.name!r} is a parameter of construct, which cannot be "
                               "erased; erase the nodes that read it instead")
        nodes = dataflow.owner_list([self._body], node)
        index = [id(n) for n in nodes].index(id(node))
        following = nodes[index + 1] if index + 1 < len(nodes) else None
        if node.callee == "if" and following is not None and following.callee == "else":
            self.erase(following)  # an else goes with its if
        del nodes[index]
        if node.callee.startswith("self.") and node.callee[5:] in self._added:
            del self._added[node.callee[5:]]
        node.tree = None
        return node

    def replace(self, old_node: Node, new_nodes: list[Node]) -> Node:
        """Put ``new_nodes`` (in order) where ``old_node`` is, remove it, and return the last new node."""
        old_node = self._resolve(old_node)
        if not isinstance(new_nodes, (list, tuple)) or not new_nodes or \
                not all(isinstance(n, Node) for n in new_nodes):
            raise TypeError("SymbolTree.replace: new_nodes must be a non-empty list of Node, got "
                            f"{new_nodes!r}")
        anchor = old_node
        for n in new_nodes:
            anchor = self.insert(self.after(anchor), n)
        self.erase(old_node)
        return anchor

    def set_output(self, index: int, return_value: str) -> Node:
        """Make value ``index`` of ``construct``'s return ``return_value`` (a variable name)."""
        out = next((n for n in reversed(self._body) if n.node_type == NodeType.Output), None)
        if out is None:
            raise RuntimeError("SymbolTree.set_output: construct has no return statement at its end")
        out.set_arg(index, return_value)
        return out

    def unique_name(self, name: str = "output") -> str:
        """A variable name not yet used in ``construct``, from ``name``."""
        return self._variables.get(name)

    def flatten_static_if_control_flow(self) -> None:
        """Replace each ``if`` whose test is known without running (an attribute of the network such as
        ``self.training``, a constant, ``not`` of one) by the statements of the branch it takes."""
        flatten_static_ifs(self._body, self._origin, self._names)
        for n in self.nodes(all_nodes=True):
            n.tree = self

    def flatten_nodes(self, node: Node, erase_nodes_after_return: bool = False) -> None:
        """Put the statements of the control-flow ``node`` in its place (an if's whatever its test, a loop's
        body once); with ``erase_nodes_after_return``, those after a ``return`` among them are dropped."""
        node = self._resolve(node)
        if node.node_type != NodeType.ControlFlow:
            raise TypeError(f"SymbolTree.flatten_nodes: node {node.name!r} is {node.node_type}, not a "
                            "NodeType.ControlFlow node")
        flatten_node(dataflow.owner_list([self._body], node), node, self._names, bool(erase_nodes_after_return))
        node.tree = None

    # ---- output ------------------------------------------------------------------------------------
    def _writer(self) -> CodeWriter:
        used = {n.id for n in ast.walk(self._fn) if isinstance(n, ast.Name)}
        return CodeWriter(self._namespace, used)

    def _class_name(self) -> str:
        return f"{type(self._origin).__name__}Opt"

    def _sources(self, writer: CodeWriter) -> list[tuple[SymbolTree, str]]:
        """(tree, class source) for the sub-trees, then this tree."""
        out = []
        for n in self.nodes(all_nodes=True):
            if n.node_type == NodeType.Tree and n.sub_tree is not None:
                out.extend(n.sub_tree._sources(n.sub_tree._writer()))
        base = writer.bind(type(self._origin), type(self._origin).__name__)
        attrs = list(self._added) + [n.callee[5:] for n in self.nodes(all_nodes=True)
                                     if n.node_type == NodeType.Tree and n.callee[5:] not in self._added]
        source = writer.class_source(self._class_name(), base, self._inputs, self._body, attrs)
        return out + [(self, source)]

    def get_code(self) -> str:
        """The rewritten network's code: one class per rewritten (sub-)network, the top one last."""
        return "\n".join(src for _, src in self._sources(self._writer()))

    def get_network(self) -> Cell:
        """A new network running the edited ``construct``, sharing the original's Parameters and sub-cells."""
        dataflow.check_defined(self._inputs, self._body, set(self._namespace) | set(vars(builtins)))
        added = dict(self._added)
        for n in self.nodes(all_nodes=True):
            if n.node_type == NodeType.Tree and n.sub_tree is not None:
                added[n.callee[5:]] = n.sub_tree.get_network()
        writer = self._writer()
        source = self._sources(writer)[-1][1]
        return build_network(source, self._class_name(), {**self._namespace, **writer.bound}, self._origin, added)

    def print_node_tabulate(self, all_nodes: bool = False) -> None:
        """Print a table of the nodes: type, name, code, argument providers, target users."""
        print(node_table(self, self.nodes(all_nodes), self._writer()))

    def dump(self) -> None:
        """Print the table of every node (with those inside branches)."""
        self.print_node_tabulate(all_nodes=True)

    def set_saved_file_name(self, file_name: str) -> None:
        """The file :meth:`save_network_to_file` writes (``.py`` added if missing)."""
        if not isinstance(file_name, str) or not file_name:
            raise TypeError(f"set_saved_file_name: file_name must be a non-empty str, got {file_name!r}")
        self._saved_file = file_name if file_name.endswith(".py") else file_name + ".py"

    def get_saved_file_name(self) -> str:
        """The file :meth:`save_network_to_file` writes."""
        return self._saved_file

    def save_network_to_file(self) -> None:
        """Write :meth:`get_code` to the file :meth:`get_saved_file_name` names."""
        with open(self._saved_file, "w") as f:
            f.write(self.get_code())
