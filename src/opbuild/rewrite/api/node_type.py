"""``NodeType``: what a rewrite node's statement does (MindSpore's names and numbering)."""

from __future__ import annotations

from enum import Enum


class NodeType(Enum):
    """The kind of statement a :class:`~opbuild.rewrite.Node` stands for."""

    Unknown = 0
    CallCell = 1        # ``y = self.conv(x)``: a sub-cell of opbuild's (or MindSpore's) nn
    CallPrimitive = 2   # ``y = self.add(x, z)``: a Primitive attribute
    CallModule = 3
    CallFunction = 4    # ``y = ops.abs(x)``: a function
    CallMethod = 5      # ``y = x.mean()``: a method of a value
    Python = 6          # any other statement, kept as written
    Input = 7           # a parameter of ``construct``
    Output = 8          # ``return ...``
    Tree = 9            # a user-defined sub-cell, itself rewritable (``get_sub_tree``)
    CellContainer = 10  # a SequentialCell/CellList
    MathOps = 11        # ``y = a + b``, ``y = not a``
    ControlFlow = 12    # ``if ...:``
