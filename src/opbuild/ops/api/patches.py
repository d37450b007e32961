"""Patch and neighbourhood functions of ``mindspore.ops``: ``unfold`` (im2col: one Gather of the windows per
spatial axis), ``fold`` (col2im, its adjoint: one UnsortedSegmentSum of every patch element onto its output
position), ``lrn`` (local response normalisation across channels: a Gather of the channel windows and a sum)
and ``embedding`` (a Gather of table rows), compositions whose gradients are those of the primitives used."""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .padding import pad_pairs


def _pair(fn: str, name: str, v, minimum: int) -> tuple[int, int]:
    t = (v, v) if isinstance(v, int) and not isinstance(v, bool) else tuple(v)
    if len(t) != 2 or not all(isinstance(a, int) and not isinstance(a, bool) and a >= minimum for a in t):
        raise ValueError(f"{fn}: {name} must be an int >= {minimum} or a pair of them, got {v!r}")
    return t  # type: ignore[return-value]


def _window_table(n: int, k: int, s: int, d: int, p: int) -> tuple[np.ndarray, int]:
    """(out, k) positions, in the axis padded by ``p`` on both sides, of every window's elements."""
    out = (n + 2 * p - d * (k - 1) - 1) // s + 1
    if out < 1:
        raise ValueError(f"the window (size {k}, dilation {d}) exceeds the padded axis ({n + 2 * p})")
    return np.arange(out)[:, None] * s + np.arange(k)[None, :] * d, out


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """``ops.unfold(input, kernel_size, dilation=1, padding=0, stride=1)``: the sliding (kh, kw) patches of an
    (N, C, H, W) input as columns, (N, C * kh * kw, L) with L the number of windows, channel-major."""
    fn = "unfold"
    x = as_tensor(input)
    if x.ndim != 4:
        raise ValueError(f"{fn}: the input must be (N, C, H, W), got shape {x.shape}")
    k, d = _pair(fn, "kernel_size", kernel_size, 1), _pair(fn, "dilation", dilation, 1)
    p, s = _pair(fn, "padding", padding, 0), _pair(fn, "stride", stride, 1)
    n, c, h, w = x.shape
    if any(p):
        x = pad_pairs(fn, x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    rows, oh = _window_table(h, k[0], s[0], d[0], p[0])
    cols, ow = _window_table(w, k[1], s[1], d[1], p[1])
    g = apply("Gather", {"axis": 2}, [x, Tensor(rows.astype(np.int64))])     # (N, C, OH, kh, W')
    g = apply("Gather", {"axis": 4}, [g, Tensor(cols.astype(np.int64))])     # (N, C, OH, kh, OW, kw)
    g = A.transpose(g, (0, 1, 3, 5, 2, 4))
    return A.reshape(g, (n, c * k[0] * k[1], oh * ow))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """``ops.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)``: the adjoint of
    :func:`unfold`: (N, C * kh * kw, L) columns summed back into an (N, C, H, W) image (overlaps add up,
    positions in the padding are dropped)."""
    fn = "fold"
    x = as_tensor(input)
    size = output_size.asnumpy().tolist() if isinstance(output_size, Tensor) else output_size
    hw = _pair(fn, "output_size", size, 1)
    k, d = _pair(fn, "kernel_size", kernel_size, 1), _pair(fn, "dilation", dilation, 1)
    p, s = _pair(fn, "padding", padding, 0), _pair(fn, "stride", stride, 1)
    rows, oh = _window_table(hw[0], k[0], s[0], d[0], p[0])
    cols, ow = _window_table(hw[1], k[1], s[1], d[1], p[1])
    if x.ndim != 3 or x.shape[1] % (k[0] * k[1]) or x.shape[2] != oh * ow:
        raise ValueError(f"{fn}: the input must be (N, C * {k[0] * k[1]}, {oh * ow}) for these sizes, got "
                         f"{x.shape}")
    n, ckk, _ = x.shape
    c = ckk // (k[0] * k[1])
    # target[i, j, a, b]: the output position (flat, -1 in the padding) of kernel element (i, j) of window (a, b)
    r = rows.T[:, None, :, None] - p[0]                       # (kh, 1, OH, 1)
    q = cols.T[None, :, None, :] - p[1]                       # (1, kw, 1, OW)
    inside = (r >= 0) & (r < hw[0]) & (q >= 0) & (q < hw[1])
    target = np.where(inside, r * hw[1] + q, -1).reshape(-1).astype(np.int64)
    cols_t = A.transpose(A.reshape(x, (n, c, -1)), (2, 0, 1))                  # (kh kw L, N, C)
    out = apply("UnsortedSegmentSum", {"num_segments": hw[0] * hw[1]}, [cols_t, Tensor(target)])
    return A.reshape(A.transpose(out, (1, 2, 0)), (n, c, hw[0], hw[1]))


def lrn(x, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
        norm_region: str = "ACROSS_CHANNELS") -> Tensor:
    """``ops.lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')``: for an
    (N, C, H, W) input, ``x / (bias + alpha * sum(x^2 over channels c - r .. c + r)) ^ beta``."""
    fn = "lrn"
    t = as_tensor(x)
    if t.ndim != 4 or not t.dtype.is_float:
        raise ValueError(f"{fn}: x must be a float (N, C, H, W) Tensor, got {t.dtype} {t.shape}")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
        raise ValueError(f"{fn}: depth_radius must be an int >= 0, got {depth_radius!r}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"{fn}: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    for name, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{fn}: {name} must be a float, got {v!r}")
    r, c = depth_radius, t.shape[1]
    sq = pad_pairs(fn, M.mul(t, t), [[0, 0], [r, r], [0, 0], [0, 0]])
    idx = np.arange(c)[:, None] + np.arange(2 * r + 1)[None, :]
    total = M.sum(apply("Gather", {"axis": 1}, [sq, Tensor(idx.astype(np.int64))]), 2)
    return M.div(t, M.pow(M.add(M.mul(total, float(alpha)), float(bias)), float(beta)))


def embedding(input, weight, padding_idx: int | None = None, max_norm: float | None = None,  # noqa: A002
              norm_type: float = 2.0, scale_grad_by_freq: bool = False) -> Tensor:
    """``ops.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False)``:
    the rows of ``weight`` (V, E) at the int ids ``input``; ``max_norm`` rescales each looked-up row whose
    ``norm_type``-norm exceeds it to that norm (the returned rows; the table itself is not modified).
    ``padding_idx`` (a row that gets no gradient) and ``scale_grad_by_freq=True`` change only the gradient,
    which opbuild cannot express without a stop-gradient operator: they are refused."""
    fn = "embedding"
    ids, w = as_tensor(input), as_tensor(weight)
    if ids.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{fn}: input must hold int32/int64 ids, got {ids.dtype}")
    if w.ndim != 2:
        raise ValueError(f"{fn}: weight must be (vocab, embedding_size), got shape {w.shape}")
    if padding_idx is not None or scale_grad_by_freq:
        raise NotImplementedError(f"{fn}: padding_idx and scale_grad_by_freq=True are not supported (they only "
                                  f"change the gradient); leave them at None/False")
    rows = A.gather(w, ids, 0)
    if max_norm is not None:
        norm = M.pow(M.sum(M.pow(M.abs(rows), float(norm_type)), -1, keepdim=True), 1.0 / float(norm_type))
        scale = M.where(M.gt(norm, float(max_norm)), M.div(float(max_norm), M.add(norm, 1e-7)), 1.0)
        rows = M.mul(rows, scale)
    return rows


__all__ = ["unfold", "fold", "lrn", "embedding"]
