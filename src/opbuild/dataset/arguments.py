"""What every dataset module shares without importing the pipeline (core.py): the row type and the check of
an integer argument."""

from __future__ import annotations

from typing import Any

import numpy as np

Row = tuple[np.ndarray, ...]

INT32_MAX = 2**31 - 1


def _check_int(name: str, value: Any, low: int, high: int = INT32_MAX) -> int:
    """``value`` as an int in [low, high]; TypeError/ValueError naming the argument otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value}")
    return int(value)
