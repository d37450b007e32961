"""``mindspore.dataset.transforms``: ``Compose``, ``TypeCast`` and ``OneHot``, callables on NumPy arrays (in
``Dataset.map`` or eagerly), and the data-manipulating transforms of transforms_data.py re-exported here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.dtypes import dtype_of


class Compose:
    """``Compose(transforms)``: apply ``transforms`` in order (a tuple result feeds the next one's inputs)."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        if not isinstance(transforms, (list, tuple)) or not transforms:
            raise ValueError("Compose: transforms must be a non-empty list of callables")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"Compose: every transform must be callable, got {type(t).__name__}")
        self.transforms = list(transforms)

    def __call__(self, *args: Any) -> Any:
        for t in self.transforms:
            out = t(*args)
            args = out if isinstance(out, tuple) else (out,)
        return args if len(args) > 1 else args[0]


class TypeCast:
    """``TypeCast(data_type)``: the array cast to ``data_type`` (an opbuild/MindSpore dtype or a NumPy one)."""

    def __init__(self, data_type: Any) -> None:
        try:
            self.np_dtype = dtype_of(data_type).np_dtype
        except (TypeError, ValueError, KeyError):
            self.np_dtype = np.dtype(data_type)

    def __call__(self, data: Any) -> np.ndarray:
        return np.asarray(data).astype(self.np_dtype)


class OneHot:
    """``OneHot(num_classes, smoothing_rate=0.0)``: integer labels -> one-hot rows (a new last axis) of the
    labels' dtype; with ``smoothing_rate`` s, float64 rows (MindSpore's dtype) of ``1 - s + s / num_classes`` and
    ``s / num_classes``."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes <= 0:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def __call__(self, label: Any) -> np.ndarray:
        arr = np.asarray(label)
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"OneHot: labels must be integers, got {arr.dtype}")
        if arr.size and (arr.min() < 0 or arr.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes - 1}], got {arr.min()}..{arr.max()}")
        hot = np.arange(self.num_classes) == arr[..., None]
        if self.smoothing_rate:
            s = self.smoothing_rate
            return np.where(hot, 1 - s + s / self.num_classes, s / self.num_classes).astype(np.float64)
        return hot.astype(arr.dtype)


# The data-manipulating transforms live in transforms_data.py; MindSpore's path is transforms.<Name>.
from .transforms_data import (  # noqa: E402
    Concatenate,
    Duplicate,
    Fill,
    Mask,
    PadEnd,
    RandomApply,
    RandomChoice,
    RandomOrder,
    Relational,
    Slice,
    Unique,
)

__all__ = ["Compose", "TypeCast", "OneHot", "Concatenate", "Duplicate", "Fill", "Mask", "PadEnd", "RandomApply",
           "RandomChoice", "RandomOrder", "Relational", "Slice", "Unique"]
