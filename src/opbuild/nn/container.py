"""Containers of cells."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .cell import Cell


class SequentialCell(Cell):
    """Runs its cells in order: ``SequentialCell([a, b])`` or ``SequentialCell(OrderedDict(name=cell))``."""

    def __init__(self, *args: Any):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple, OrderedDict, dict)) else args
        items = cells.items() if isinstance(cells, dict) else ((str(i), c) for i, c in enumerate(cells))
        for name, cell in items:
            if not isinstance(cell, Cell):
                raise TypeError(f"SequentialCell items must be Cells, got {type(cell).__name__} at {name!r}")
            setattr(self, name, cell)

    def __len__(self) -> int:
        return len(self._cells)

    def __getitem__(self, i: int) -> Cell:
        return list(self._cells.values())[i]

    def append(self, cell: Cell) -> SequentialCell:
        setattr(self, str(len(self._cells)), cell)
        return self

    def construct(self, x: Any) -> Any:
        for cell in self._cells.values():
            x = cell(x)
        return x
