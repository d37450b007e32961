"""Shared helpers of the audio transforms: input checks, MindSpore's output dtype rule, argument checks."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._random import op_rng as rng  # noqa: F401  (re-exported for the audio modules)


def waveform(who: str, data: Any, min_ndim: int = 1) -> np.ndarray:
    """``data`` as a float array: float64 stays float64, everything else (float16/32, ints) becomes float32,
    the dtype MindSpore's audio transforms return."""
    arr = np.asarray(data)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"{who}: the input must be a numeric array, got dtype {arr.dtype}")
    if arr.ndim < min_ndim:
        raise ValueError(f"{who}: the input must have at least {min_ndim} dimension(s), got shape {arr.shape}")
    return arr.astype(np.float64 if arr.dtype == np.float64 else np.float32)


def complex_input(who: str, data: Any) -> np.ndarray:
    """A complex spectrogram stored as (..., 2) real/imaginary pairs."""
    arr = waveform(who, data, 1)
    if arr.shape[-1] != 2:
        raise ValueError(f"{who}: the input must be complex as (..., 2) real/imaginary pairs, got shape {arr.shape}")
    return arr


def check_positive(who: str, name: str, value: Any, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: {name} must be a number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{who}: {name} must be {'non-negative' if allow_zero else 'positive'}, got {value!r}")
    return float(value)


def check_int(who: str, name: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{who}: {name} must be an int >= {low}, got {value!r}")
    return int(value)
