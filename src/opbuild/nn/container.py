"""Containers of cells, and MindSpore's rule for the parameter names of cells added to a list-like one."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .cell import Cell


def list_prefix(cells: dict[str, Cell]) -> tuple[str, int]:
    """MindSpore's naming of a cell added to a SequentialCell or CellList after construction: the prefix its
    parameters get before ``<index>.``, and the position of the index among the dot-separated parts.

    Read off the current members' parameter names: the first member with parameters names its first
    parameter ``<prefix><key>.<rest>``; the parts before (the last part equal to) its key are the prefix,
    unless a second member's first parameter confirms an earlier position. A container whose members had no
    prefix when they were added (one appended to after its owner was assigned) thus adds none, as MindSpore
    does; the tests hold MindSpore's recorded names for such cases."""
    firsts = []
    for key, cell in cells.items():
        first = next(iter(cell.parameters_and_names()), None)
        if first is not None:
            firsts.append((key, first[1]))
            if len(firsts) == 2:
                break
    if not firsts:
        return "", 0
    (key, param), second = firsts[0], firsts[1] if len(firsts) > 1 else None
    parts = param.name.split(".")
    prefix, position = "", 0
    for i, part in enumerate(parts):
        if part != key:
            continue
        prefix, position = ".".join(parts[:i]) + "." if i else "", i
        if second is not None:
            other = second[1].name.split(".")
            if i < len(other) and other[i] == second[0]:
                break
    return prefix, position


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

    def append(self, cell: Cell) -> None:
        """Add ``cell`` at the end; its parameters are named as MindSpore names them (:func:`list_prefix`).
        Returns None, as MindSpore's does (so an interactive ``seq.append(cell)`` prints nothing)."""
        if not isinstance(cell, Cell):
            raise TypeError(f"SequentialCell.append: expected a Cell, got {type(cell).__name__}")
        key = str(len(self._cells))
        prefix, _ = list_prefix(self._cells)
        cell.update_parameters_name(f"{prefix}{key}.")
        self._cells[key] = cell
        object.__setattr__(self, key, cell)
        self._structure_changed()

    def construct(self, input_data: Any) -> Any:
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data
