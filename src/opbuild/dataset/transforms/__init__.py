"""``mindspore.dataset.transforms``: callables on NumPy arrays (in ``Dataset.map`` or eagerly): ``Compose``,
``TypeCast``, ``OneHot``, the random compositions (``RandomApply``, ``RandomChoice``, ``RandomOrder``) and
tensor operations (``Mask``/``Relational``, ``Fill``, ``Slice``, ``PadEnd``, ``Concatenate``, ``Duplicate``,
``Unique``)."""

from __future__ import annotations

from .basic import Compose, OneHot, TypeCast
from .random_ops import RandomApply, RandomChoice, RandomOrder
from .tensor_ops import Concatenate, Duplicate, Fill, Mask, PadEnd, Relational, Slice, Unique

__all__ = ["Compose", "TypeCast", "OneHot", "RandomApply", "RandomChoice", "RandomOrder", "Relational", "Mask",
           "Fill", "Slice", "PadEnd", "Concatenate", "Duplicate", "Unique"]
