"""MindSpore's matrix-diagonal family with several diagonals: ``ops.matrix_diag``, ``ops.matrix_diag_part`` and
``ops.matrix_set_diag`` (and the ``MatrixDiagV3``, ``MatrixDiagPartV3``, ``MatrixSetDiagV3`` classes over them).

``k`` is one diagonal or a pair ``(low, high)`` (0 the main diagonal, positive above it); a band of diagonals
is stored one per row, the highest first, each ``max_diag_len`` long. A diagonal shorter than that is padded
on one side, chosen by ``align``: its first word for the diagonals on and above the main one, its second for
those below, ``RIGHT`` meaning the values sit at the right end (padding on the left).

Each is a composition: which element of the source lands where depends only on the shapes, ``k`` and
``align``, so NumPy computes that map when the call is traced and one ``Gather`` with a ``Select`` for the
padding does the rest (their gradients give the family's). ``k``, ``num_rows`` and ``num_cols`` therefore
need known values (ints, or Tensors outside a GRAPH_MODE trace or created in it), as they shape the output;
``padding_value`` may be any 0-D tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply

ALIGNS = ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _known(name: str, arg: str, value: Any) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._data is None:
            raise ValueError(f"{name}: {arg} must have a known value (it shapes the output); pass an int or a "
                             f"Tensor made inside construct, not a graph input")
        value = value.asnumpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: {arg} must be an int or an int tensor, got {arr.dtype}")
    return arr.reshape(-1)


def _band(name: str, k: Any) -> tuple[int, int]:
    kk = _known(name, "k", k)
    if kk.size not in (1, 2):
        raise ValueError(f"{name}: k must be one int or a pair (low, high), got {kk.size} values")
    lo, hi = int(kk[0]), int(kk[-1])
    if lo > hi:
        raise ValueError(f"{name}: k[0] must not exceed k[1], got {lo} > {hi}")
    return lo, hi


def _align(name: str, align: str) -> tuple[bool, bool]:
    """(super diagonals right-aligned, sub diagonals right-aligned)."""
    if align not in ALIGNS:
        raise ValueError(f"{name}: align must be one of {', '.join(ALIGNS)}, got {align!r}")
    upper, lower = align.split("_")
    return upper == "RIGHT", lower == "RIGHT"


def _diag_len(rows: int, cols: int, d: int) -> int:
    return max(0, min(rows + min(0, d), cols - max(0, d)))


def _band_map(rows: int, cols: int, lo: int, hi: int, align: tuple[bool, bool]) -> tuple[np.ndarray, int]:
    """For each (diagonal row, position) of the stored band, the flat index ``i * cols + j`` of the matrix
    element it holds, or -1 for padding; and the band's length."""
    max_len = max(_diag_len(rows, cols, d) for d in range(lo, hi + 1))
    out = np.full((hi - lo + 1, max_len), -1, np.int64)
    for d in range(lo, hi + 1):
        n = _diag_len(rows, cols, d)
        shift = max_len - n if align[0 if d >= 0 else 1] else 0
        for p in range(n):
            i, j = (p, p + d) if d >= 0 else (p - d, p)
            out[hi - d, p + shift] = i * cols + j
    return out, max_len


def _pick(src: Tensor, flat_index: np.ndarray, lead: tuple[int, ...]) -> Tensor:
    """``src`` (lead + (n,)) gathered at ``flat_index`` (-1 read as 0) along its last axis."""
    idx = Tensor(np.maximum(flat_index, 0).reshape(-1).astype(np.int64))
    return apply("Gather", {"axis": len(lead)}, [src, idx])


def _fill(name: str, value: Any, x: Tensor) -> Tensor:
    v = as_tensor(value)
    if v.ndim != 0:
        raise ValueError(f"{name}: padding_value must be a 0-D tensor or a number, got shape {tuple(v.shape)}")
    return v if v.dtype == x.dtype else apply("Cast", {"dtype": x.dtype.name}, [v])


def _select(mask: np.ndarray, shape: tuple[int, ...], values: Tensor, other: Tensor) -> Tensor:
    m = Tensor(np.broadcast_to(mask, shape).copy())
    if tuple(other.shape) != shape:
        other = apply("BroadcastTo", {"shape": shape}, [other])
    return apply("Select", {}, [m, values, other])


def matrix_diag_part(x: Any, k: Any, padding_value: Any, align: str = "RIGHT_LEFT") -> Tensor:
    """``ops.matrix_diag_part(x, k, padding_value, align='RIGHT_LEFT')``: the diagonals ``k`` (one or a pair)
    of the last two axes of ``x``, one per row, the highest first, padded with ``padding_value`` as
    ``align`` says; one diagonal drops the band axis."""
    name = "matrix_diag_part"
    t = as_tensor(x)
    if t.ndim < 2:
        raise ValueError(f"{name}: x must be at least 2-D, got {t.ndim}-D")
    lo, hi = _band(name, k)
    rows, cols = t.shape[-2:]
    if not (-rows < lo and hi < cols) and not (rows == 0 or cols == 0):
        raise ValueError(f"{name}: k must lie in ({-rows}, {cols}) for {rows}x{cols} matrices, got ({lo}, {hi})")
    band, max_len = _band_map(rows, cols, lo, hi, _align(name, align))
    lead = tuple(t.shape[:-2])
    flat = apply("Reshape", {"shape": (*lead, rows * cols)}, [t])
    shape = (*lead, hi - lo + 1, max_len)
    got = apply("Reshape", {"shape": shape}, [_pick(flat, band, lead)])
    out = _select(band >= 0, shape, got, _fill(name, padding_value, t))
    return apply("Reshape", {"shape": (*lead, max_len)}, [out]) if lo == hi else out


def _sizes(name: str, max_len: int, lo: int, hi: int, num_rows: Any, num_cols: Any) -> tuple[int, int]:
    rows = int(_known(name, "num_rows", num_rows)[0])
    cols = int(_known(name, "num_cols", num_cols)[0])
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows or cols < min_cols:
        raise ValueError(f"{name}: num_rows and num_cols must be at least {min_rows} and {min_cols} for "
                         f"diagonals {lo}..{hi} of length {max_len}, got {rows} and {cols}")
    return rows, cols


def _scatter_map(rows: int, cols: int, lo: int, hi: int, align: tuple[bool, bool]) -> np.ndarray:
    """For each matrix element, the flat index into the stored band (diagonal row * max_len + position) of
    the value it takes, or -1 outside the band."""
    band, max_len = _band_map(rows, cols, lo, hi, align)
    out = np.full(rows * cols, -1, np.int64)
    pos = np.nonzero(band >= 0)
    out[band[pos]] = pos[0] * band.shape[1] + pos[1]
    return out.reshape(rows, cols)


def matrix_diag(x: Any, k: Any = 0, num_rows: Any = -1, num_cols: Any = -1, padding_value: Any = 0,
                align: str = "RIGHT_LEFT") -> Tensor:
    """``ops.matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align='RIGHT_LEFT')``: matrices
    with the diagonals ``k`` taken from ``x`` (its last axis one diagonal, or its last two a band, the
    highest diagonal first) and ``padding_value`` elsewhere; -1 sizes are the smallest that fit (square)."""
    name = "matrix_diag"
    t = as_tensor(x)
    lo, hi = _band(name, k)
    if t.ndim < (1 if lo == hi else 2):
        raise ValueError(f"{name}: x must be at least {'1' if lo == hi else '2'}-D for k={lo, hi}, got {t.ndim}-D")
    if lo == hi:
        t = apply("ExpandDims", {"axis": t.ndim - 1}, [t])
    if t.shape[-2] != hi - lo + 1:
        raise ValueError(f"{name}: x holds {t.shape[-2]} diagonals, k=({lo}, {hi}) needs {hi - lo + 1}")
    max_len = t.shape[-1]
    rows, cols = _sizes(name, max_len, lo, hi, num_rows, num_cols)
    where = _scatter_map(rows, cols, lo, hi, _align(name, align))
    lead = tuple(t.shape[:-2])
    flat = apply("Reshape", {"shape": (*lead, (hi - lo + 1) * max_len)}, [t])
    shape = (*lead, rows, cols)
    got = apply("Reshape", {"shape": shape}, [_pick(flat, where, lead)])
    return _select(where >= 0, shape, got, _fill(name, padding_value, t))


def matrix_set_diag(x: Any, diagonal: Any, k: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """``ops.matrix_set_diag(x, diagonal, k=0, align='RIGHT_LEFT')``: ``x`` with its diagonals ``k``
    replaced by ``diagonal`` (stored as :func:`matrix_diag_part` returns them)."""
    name = "matrix_set_diag"
    t, dg = as_tensor(x), as_tensor(diagonal)
    if t.ndim < 2:
        raise ValueError(f"{name}: x must be at least 2-D, got {t.ndim}-D")
    lo, hi = _band(name, k)
    rows, cols = t.shape[-2:]
    where = _scatter_map(rows, cols, lo, hi, _align(name, align))
    band, max_len = _band_map(rows, cols, lo, hi, _align(name, align))
    lead = tuple(t.shape[:-2])
    want = (*lead, max_len) if lo == hi else (*lead, hi - lo + 1, max_len)
    if tuple(dg.shape) != want:
        raise ValueError(f"{name}: diagonal must have shape {want} for x of shape {tuple(t.shape)} and k=({lo}, "
                         f"{hi}), got {tuple(dg.shape)}")
    if dg.dtype != t.dtype:
        raise TypeError(f"{name}: diagonal must have x's dtype {t.dtype}, got {dg.dtype}")
    flat = apply("Reshape", {"shape": (*lead, (hi - lo + 1) * max_len)}, [dg])
    got = apply("Reshape", {"shape": tuple(t.shape)}, [_pick(flat, where, lead)])
    return _select(where >= 0, tuple(t.shape), got, t)


__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag"]
