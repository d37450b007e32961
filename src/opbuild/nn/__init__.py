"""Neural-network building blocks: Cell, SequentialCell and layers."""

from __future__ import annotations

from ..parameter import Parameter
from .cell import Cell
from .container import SequentialCell

__all__ = ["Cell", "SequentialCell", "Parameter"]
