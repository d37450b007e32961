"""MindSpore's window functions (``bartlett_window``, ``blackman_window``, ``hamming_window``, ``hann_window``,
``kaiser_window``): constant tensors of the window's samples. Without ``dtype`` they are float32, except
``hann_window`` and ``kaiser_window``, which MindSpore 2.10 computes in float64.

A window depends only on its length and parameters, never on a traced value, so it is computed once in
float64 and enters the graph as a constant.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor

_FLOATS = ("float16", "float32", "float64", "bfloat16")


def _length(name: str, window_length) -> int:
    if isinstance(window_length, Tensor):
        if window_length.ndim != 0 or window_length.dtype.is_float or window_length.dtype.name == "bool":
            raise TypeError(f"{name}: window_length must be a 0-D integer Tensor, got "
                            f"{window_length.dtype}{list(window_length.shape)}")
        window_length = int(window_length.asnumpy())
    elif not isinstance(window_length, numbers.Integral) or isinstance(window_length, bool):
        raise TypeError(f"{name}: window_length must be an int, got {type(window_length).__name__}")
    if window_length < 0:
        raise ValueError(f"{name}: window_length must be non-negative, got {window_length}")
    return int(window_length)


def _out(name: str, w: np.ndarray, dtype, default: str = "float32") -> Tensor:
    dt = dtype_of(dtype if dtype is not None else default)
    if dt.name not in _FLOATS:
        raise TypeError(f"{name}: dtype must be a float type, got {dt}")
    return Tensor(w.astype(np.float64)).astype(dt)


def _cosine_sum(n: int, periodic: bool, coeffs: tuple[float, ...]) -> np.ndarray:
    if n <= 1:
        return np.ones(n)
    m = n if periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    return sum((-1) ** i * c * np.cos(2 * np.pi * i * k / m) for i, c in enumerate(coeffs))


def bartlett_window(window_length, periodic: bool = True, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.bartlett_window(window_length, periodic=True, *, dtype=None)``: the triangular window."""
    n = _length("bartlett_window", window_length)
    if n <= 1:
        return _out("bartlett_window", np.ones(n), dtype)
    m = n if periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    return _out("bartlett_window", 1 - np.abs(2 * k / m - 1), dtype)


def blackman_window(window_length, periodic: bool = True, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.blackman_window(window_length, periodic=True, *, dtype=None)``."""
    n = _length("blackman_window", window_length)
    return _out("blackman_window", _cosine_sum(n, periodic, (0.42, 0.5, 0.08)), dtype)


def hamming_window(window_length, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: DType | str | None = None) -> Tensor:
    """``ops.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None)``."""
    n = _length("hamming_window", window_length)
    return _out("hamming_window", _cosine_sum(n, periodic, (float(alpha), float(beta))), dtype)


def hann_window(window_length, periodic: bool = True, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.hann_window(window_length, periodic=True, *, dtype=None)`` (float64 by default)."""
    n = _length("hann_window", window_length)
    return _out("hann_window", _cosine_sum(n, periodic, (0.5, 0.5)), dtype, "float64")


def kaiser_window(window_length, periodic: bool = True, beta: float = 12.0, *,
                  dtype: DType | str | None = None) -> Tensor:
    """``ops.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None)`` (float64 by default)."""
    n = _length("kaiser_window", window_length)
    if n <= 1:
        return _out("kaiser_window", np.ones(n), dtype, "float64")
    m = n if periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    w = np.i0(float(beta) * np.sqrt(np.clip(1 - (2 * k / m - 1) ** 2, 0, None))) / np.i0(float(beta))
    return _out("kaiser_window", w, dtype, "float64")


__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]
