"""``mindspore.scipy.fft``: the orthonormal DCT-II (``dct``, ``dctn``) and its inverse (``idct``, ``idctn``), the
only type and normalisation MindSpore 2.10 provides (``type=2``, ``norm=None`` or ``'ortho'``).

Each 1-D transform is a product with the N x N orthonormal DCT-II matrix along the axis (a MatMul kernel,
exact to rounding and traced in GRAPH_MODE); its inverse is the transposed matrix. int and float16 inputs give
float32, float64 gives float64; complex inputs are refused (opbuild's MatMul takes real operands).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor, as_tensor

__all__ = ["dct", "idct", "dctn", "idctn"]

_TO_FLOAT32 = ("int8", "int16", "int32", "int64", "uint8", "float16", "float32")


def _matrix(n: int, inverse: bool, dtype: str) -> Tensor:
    k, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    c = np.sqrt(2.0 / n) * np.cos(np.pi * (2 * j + 1) * k / (2 * n))
    c[0] /= np.sqrt(2.0)
    # y = x @ C^T transforms the last axis; the inverse (C orthogonal) is x @ C.
    return Tensor((c if inverse else c.T).astype(dtype))


def _check(fn: str, type: Any, norm: Any) -> None:  # noqa: A002 - MindSpore's name
    if type != 2:
        raise ValueError(f"scipy.fft.{fn}: only type=2 is supported (as in MindSpore), got type={type!r}")
    if norm not in (None, "ortho"):
        raise ValueError(f"scipy.fft.{fn}: only norm='ortho' (or None, meaning 'ortho') is supported, got {norm!r}")


def _input(fn: str, x: Any) -> Tensor:
    t = as_tensor(x)
    if t.dtype.name in _TO_FLOAT32:
        return F.cast(t, "float32") if t.dtype.name != "float32" else t
    if t.dtype.name == "float64":
        return t
    raise TypeError(f"scipy.fft.{fn}: x must be an int, float16, float32 or float64 Tensor (complex inputs are not "
                    f"supported by opbuild), got {t.dtype}")


def _resize(fn: str, t: Tensor, n: int | None, axis: int) -> Tensor:
    """Truncate or zero-pad ``t`` along ``axis`` to ``n``."""
    if n is None:
        return t
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"scipy.fft.{fn}: n must be a positive int, got {n!r}")
    size = t.shape[axis]
    if n < size:
        return F.narrow(t, axis, 0, n)
    if n > size:
        pad = [0, 0] * t.ndim
        pad[2 * (t.ndim - 1 - axis) + 1] = n - size  # ops.pad lists the last axis first
        return F.pad(t, tuple(pad))
    return t


def _along(fn: str, t: Tensor, n: int | None, axis: int, inverse: bool) -> Tensor:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -t.ndim <= axis < t.ndim:
        raise ValueError(f"scipy.fft.{fn}: axis must be an int in [{-t.ndim}, {t.ndim}), got {axis!r}")
    axis %= t.ndim
    t = _resize(fn, t, n, axis)
    moved = F.movedim(t, axis, -1)
    out = F.matmul(moved, _matrix(moved.shape[-1], inverse, t.dtype.name))
    return F.movedim(out, -1, axis)


def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """The orthonormal DCT-II of ``x`` along ``axis``, ``x`` first truncated or zero-padded to ``n`` there."""
    _check("dct", type, norm)
    return _along("dct", _input("dct", x), n, axis, inverse=False)


def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None) -> Tensor:  # noqa: A002
    """The inverse of :func:`dct` (the orthonormal DCT-III) along ``axis``, after resizing to ``n``."""
    _check("idct", type, norm)
    return _along("idct", _input("idct", x), n, axis, inverse=True)


def _axes(fn: str, t: Tensor, s: Sequence[int] | None, axes: Sequence[int] | None) -> list[tuple[int | None, int]]:
    if axes is None:
        axes = list(range(t.ndim)) if s is None else list(range(t.ndim - len(s), t.ndim))
    axes = [axes] if isinstance(axes, int) else list(axes)
    sizes = [None] * len(axes) if s is None else ([s] if isinstance(s, int) else list(s))
    if len(sizes) != len(axes):
        raise ValueError(f"scipy.fft.{fn}: s and axes must have the same length, got {sizes} and {axes}")
    return list(zip(sizes, axes))


def dctn(x: Any, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,  # noqa: A002
         norm: str | None = None) -> Tensor:
    """The orthonormal DCT-II over ``axes`` (default: all, or the last ``len(s)``), resized to ``s``."""
    _check("dctn", type, norm)
    t = _input("dctn", x)
    for size, axis in _axes("dctn", t, s, axes):
        t = _along("dctn", t, size, axis, inverse=False)
    return t


def idctn(x: Any, type: int = 2, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,  # noqa: A002
          norm: str | None = None) -> Tensor:
    """The inverse of :func:`dctn` over ``axes``, resized to ``s``."""
    _check("idctn", type, norm)
    t = _input("idctn", x)
    for size, axis in _axes("idctn", t, s, axes):
        t = _along("idctn", t, size, axis, inverse=True)
    return t
