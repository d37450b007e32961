"""``Node``: one statement of a rewritten network's ``construct`` (a call, an operator, an input, the return),
with what it reads (args, kwargs) and writes (targets)."""

from __future__ import annotations

import ast
import keyword
import types
from typing import Any

from ...nn.cell import Cell
from ...ops.primitive_api import Primitive
from .node_type import NodeType
from .scoped_value import ScopedValue, ValueType, as_value

_CELL_TYPES = {NodeType.CallCell, NodeType.CallPrimitive, NodeType.Tree, NodeType.CellContainer}


def _targets(targets: Any) -> list[ScopedValue]:
    if not isinstance(targets, (list, tuple)):
        raise TypeError("For 'Node', the type of 'targets' should be one of ['list', 'tuple'], but got type "
                        f"'{type(targets).__name__}'.")
    values = [as_value(t, "targets") for t in targets]
    for v in values:
        # A target becomes the left side of an assignment in generated code: anything but a plain new variable
        # is a SyntaxError there, or (``self``, a keyword-free expression) rebinds something silently.
        if (v.type != ValueType.NamingValue or v.scope or not isinstance(v.value, str) or not v.value.isidentifier()
                or keyword.iskeyword(v.value) or v.value == "self"):
            raise ValueError(f"For 'Node', each target must name a variable (a Python identifier other than "
                             f"'self' and the keywords, with no scope), got '{v}'; the node's result is assigned "
                             "to it in construct")
    return values


def _call_args(args: Any, kwargs: Any) -> tuple[list[ScopedValue], dict[str, ScopedValue]]:
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"For 'Node', the type of 'args' should be list, but got type '{type(args).__name__}'.")
    for a in args:
        if not isinstance(a, ScopedValue):
            raise TypeError(f"For 'Node', the type of 'args' should be ScopedValue, but got {a!r} with type "
                            f"'{type(a).__name__}'. Wrap names with ScopedValue.create_naming_value('x') and "
                            "constants with ScopedValue.create_variable_value(1).")
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) and isinstance(v, ScopedValue)
                                               for k, v in kwargs.items()):
        raise TypeError("For 'Node', 'kwargs' should be a dict of str to ScopedValue, got "
                        f"{kwargs!r}")
    return list(args), dict(kwargs)


class Node:
    """A statement of a :class:`~opbuild.rewrite.SymbolTree`. Create new ones with :meth:`create_call_cell`,
    :meth:`create_call_function` or :meth:`create_input` and add them with ``SymbolTree.insert``."""

    def __init__(self, node_type: NodeType, name: str = "", targets=(), args=(), kwargs=None,
                 instance: Any = None):
        self.name = name
        self.node_type = node_type
        self.targets: list[ScopedValue] = list(targets)
        self.args: list[ScopedValue] = list(args)
        self.kwargs: dict[str, ScopedValue] = dict(kwargs or {})
        self.instance = instance
        self.callee = ""            # the code that is called: "self.conv", "ops.abs", "x.mean"
        self.op: ast.AST | None = None            # MathOps: the ast operator
        self.raw: ast.stmt | None = None          # Python: the statement as written
        self.body: list[Node] = []                   # ControlFlow: the branches' statements
        self.orelse: list[Node] = []
        self.default: ScopedValue | None = None   # Input: the parameter's default
        self.tree = None                             # the SymbolTree holding it
        self.sub_tree = None                         # Tree: the sub-cell's SymbolTree
        self.attributes: dict[str, Any] = {}

    # ---- creation ----------------------------------------------------------------------------------
    @staticmethod
    def create_call_cell(cell: Any, targets: list, args: list | None = None, kwargs: dict | None = None,
                         name: str = "", is_sub_net: bool = False) -> Node:
        """A new node ``targets = self.<name>(*args, **kwargs)`` calling ``cell`` (a Cell or a Primitive),
        which becomes an attribute of the rewritten network named after the node. With ``is_sub_net`` the
        cell is rewritable in turn (``get_sub_tree``)."""
        if not isinstance(cell, (Cell, Primitive)):
            raise TypeError("For 'Node', the type of 'cell' should be one of ['Cell', 'Primitive'], but got "
                            f"type '{type(cell).__name__}'.")
        if not isinstance(name, str):
            raise TypeError(f"For 'Node', the type of 'name' should be 'str', but got type '{type(name).__name__}'.")
        if name and not name.isidentifier():
            raise ValueError(f"Node.create_call_cell: name {name!r} is not a Python identifier; the cell becomes "
                             f"the attribute self.<name> of the rewritten network")
        args, kwargs = _call_args(args, kwargs)
        kind = NodeType.CallPrimitive if isinstance(cell, Primitive) else (
            NodeType.Tree if is_sub_net else NodeType.CallCell)
        return Node(kind, name, _targets(targets), args, kwargs, cell)

    @staticmethod
    def create_call_function(function: Any, targets: list, args: list | None = None,
                             kwargs: dict | None = None) -> Node:
        """A new node ``targets = function(*args, **kwargs)``."""
        if not isinstance(function, (types.FunctionType, types.BuiltinFunctionType)) and not callable(function):
            raise TypeError("For 'Node', the type of 'function' should be a function, but got type "
                            f"'{type(function).__name__}'.")
        args, kwargs = _call_args(args, kwargs)
        return Node(NodeType.CallFunction, "", _targets(targets), args, kwargs, function)

    @staticmethod
    def create_input(param_name: str, default: ScopedValue | None = None) -> Node:
        """A new input: a parameter ``param_name`` of ``construct`` (with ``default`` if given)."""
        if not isinstance(param_name, str):
            raise TypeError("For 'Node', the type of 'param_name' should be 'str', but got type "
                            f"'{type(param_name).__name__}'.")
        if default is not None and not isinstance(default, ScopedValue):
            raise TypeError("For 'Node', the type of 'default' should be ScopedValue, but got type "
                            f"'{type(default).__name__}'.")
        node = Node(NodeType.Input, f"input_{param_name}", [ScopedValue.create_naming_value(param_name)])
        node.default = default
        return node

    # ---- reading -----------------------------------------------------------------------------------
    def get_handler(self) -> Node:
        """The node itself (MindSpore returns its implementation object; here they are one)."""
        return self

    def get_name(self) -> str:
        """The node's name, unique in its SymbolTree (``conv1``, ``relu_1``)."""
        return self.name

    def get_node_type(self) -> NodeType:
        """What the statement does (:class:`NodeType`)."""
        return self.node_type

    def get_targets(self) -> list[ScopedValue]:
        """The values the statement writes (``x`` of ``x = self.conv(x)``)."""
        return list(self.targets)

    def get_args(self) -> list[ScopedValue]:
        """The positional arguments the statement reads."""
        return list(self.args)

    def get_kwargs(self) -> dict[str, ScopedValue]:
        """The keyword arguments the statement reads."""
        return dict(self.kwargs)

    def get_instance(self) -> Any:
        """The Cell, Primitive or function the node calls (None for other nodes)."""
        return self.instance

    def get_instance_type(self) -> Any:
        """The class of the called Cell/Primitive; for a function call the function itself (as MindSpore)."""
        if self.node_type == NodeType.CallFunction and self.instance is not None:
            return self.instance
        return type(self.instance)

    def get_symbol_tree(self):
        """The SymbolTree holding this node (None before it is inserted)."""
        return self.tree

    def get_sub_tree(self):
        """The SymbolTree of a ``NodeType.Tree`` node's sub-cell."""
        if self.node_type != NodeType.Tree:
            raise TypeError(f"For get_sub_tree, the type of node should be 'NodeType.Tree', but got "
                            f"{self.node_type}")
        if self.sub_tree is None:
            raise RuntimeError(f"get_sub_tree: node {self.name!r} gets its SymbolTree when it is inserted")
        return self.sub_tree

    def get_inputs(self) -> list[Node]:
        """The nodes whose targets this node's arguments read (in argument order, each once)."""
        return self._tree_or_raise("get_inputs").providers_of(self)

    def get_users(self) -> list[Node]:
        """The nodes that read a target of this node (before it is assigned again)."""
        return [n for n, _ in self._tree_or_raise("get_users").users_of(self)]

    def get_arg_providers(self) -> dict:
        """``{argument index: (providing node, index of its target)}`` for the arguments that read a target."""
        return self._tree_or_raise("get_arg_providers").arg_providers(self)

    def get_target_users(self, index: int = -1) -> dict | list:
        """``{target index: [(user node, argument index), ...]}``, or that list for target ``index`` alone."""
        users = self._tree_or_raise("get_target_users").target_users(self)
        if index == -1:
            return users
        if not isinstance(index, int) or not 0 <= index < len(self.targets):
            raise ValueError(f"get_target_users: index must be in [0, {len(self.targets)}) or -1, got {index!r}")
        return users.get(index, [])

    def get_attributes(self) -> dict[str, Any]:
        """The called cell's plain attributes (with a ``cls`` entry) and those set by :meth:`set_attribute`."""
        out: dict[str, Any] = {}
        if isinstance(self.instance, (Cell, Primitive)):
            out.update({k: v for k, v in vars(self.instance).items()
                        if not k.startswith("_") and not isinstance(v, Cell)})
            out["cls"] = type(self.instance)
        out.update(self.attributes)
        return out

    def get_attribute(self, key: str) -> Any:
        """One entry of :meth:`get_attributes` (None if absent)."""
        return self.get_attributes().get(key)

    def set_attribute(self, key: str, value: Any) -> None:
        """Attach ``value`` under ``key`` to the node (returned by :meth:`get_attributes`)."""
        if not isinstance(key, str):
            raise TypeError(f"set_attribute: key must be a str, got {type(key).__name__}")
        self.attributes[key] = value

    # ---- editing -----------------------------------------------------------------------------------
    def set_arg(self, index: int, arg: ScopedValue | str) -> None:
        """Make argument ``index`` read ``arg`` (a ScopedValue, or a str naming a variable)."""
        value = as_value(arg, "arg")
        self._check_index(index, len(self.args))
        self.args[index] = value

    def set_arg_by_node(self, arg_idx: int, src_node: Node, out_idx: int | None = None) -> None:
        """Make argument ``arg_idx`` read target ``out_idx`` (default 0) of ``src_node``."""
        if not isinstance(src_node, Node):
            raise TypeError(f"For 'Node', the type of 'src_node' should be 'Node', but got type "
                            f"'{type(src_node).__name__}'.")
        self._check_index(arg_idx, len(self.args))
        out = 0 if out_idx is None else out_idx
        if not src_node.targets:
            raise ValueError(f"set_arg_by_node: node {src_node.name!r} has no target to read")
        self._check_index(out, len(src_node.targets), "out_idx")
        self.args[arg_idx] = src_node.targets[out]

    def _check_index(self, index: int, size: int, what: str = "index") -> None:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"For 'Node', the type of '{what}' should be 'int', but got type "
                            f"'{type(index).__name__}'.")
        if not 0 <= index < size:
            raise ValueError(f"The '{what}' must be in range of [0, {size}), but got {index} with type 'int'.")

    def _tree_or_raise(self, what: str):
        if self.tree is None:
            raise RuntimeError(f"Node.{what}: node {self.name!r} is in no SymbolTree yet; insert it first")
        return self.tree

    def reads(self) -> list[str]:
        """The local names the statement reads (arguments, and for a branch what its statements read)."""
        names = [n for a in [*self.args, *self.kwargs.values()] for n in a.names()]
        receiver = self.callee.split(".")[0]
        if self.node_type == NodeType.CallMethod and "." in self.callee and receiver != "self":
            names.insert(0, receiver)
        return names

    def writes(self) -> list[str]:
        return [t.value for t in self.targets if t.type == ValueType.NamingValue and not t.scope]

    def __repr__(self) -> str:
        return f"Node({self.node_type.name}, {self.name!r}, targets={self.targets}, args={self.args})"
