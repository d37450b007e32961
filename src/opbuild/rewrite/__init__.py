"""MindSpore's ``mindspore.rewrite``: edit a network's forward computation as code.

``SymbolTree.create(net)`` parses the network's ``construct`` (Python's ``ast``) into :class:`Node` objects,
one per statement, each with a :class:`NodeType`, its targets and its arguments (:class:`ScopedValue`).
Nodes can be inserted, erased and replaced and their arguments changed; ``get_code`` shows the edited code
and ``get_network`` builds a new network (a subclass of the original sharing its Parameters) that runs it.
docs/mindspore-compat.md ("Rewrite") says what differs from MindSpore 2.10.
"""

from .api.node import Node
from .api.node_type import NodeType
from .api.scoped_value import ScopedValue, ValueType
from .api.symbol_tree import SymbolTree

__all__ = ["SymbolTree", "Node", "NodeType", "ScopedValue", "ValueType"]
