"""Bicubic resampling as OpenCV's INTER_CUBIC (which MindSpore's ``Resize(..., Inter.CUBIC)`` uses): Keys'
kernel with a = -0.75 at half-pixel centres, borders replicated; uint8 images in OpenCV's fixed point
(11-bit weights per pass, rounded and saturated)."""

from __future__ import annotations

import numpy as np

_A = -0.75


def _coefficients(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output position: the four clamped source indices and their weights."""
    scale = n_in / n_out
    fx = ((np.arange(n_out) + 0.5) * scale - 0.5).astype(np.float32).astype(np.float64)
    sx = np.floor(fx)
    t = fx - sx
    w0 = ((_A * (t + 1) - 5 * _A) * (t + 1) + 8 * _A) * (t + 1) - 4 * _A
    w1 = ((_A + 2) * t - (_A + 3)) * t * t + 1
    w2 = ((_A + 2) * (1 - t) - (_A + 3)) * (1 - t) * (1 - t) + 1
    w3 = 1 - w0 - w1 - w2
    idx = np.clip(sx.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    return idx, np.stack([w0, w1, w2, w3], axis=1)


def resize_cubic(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """``img`` (H, W[, C]) resized to (h, w) bicubically, in its dtype."""
    xi, xw = _coefficients(w, img.shape[1])
    yi, yw = _coefficients(h, img.shape[0])
    tail = (None,) * (img.ndim - 2)
    if img.dtype == np.uint8:
        ax = np.rint(xw * 2048).astype(np.int64)
        ay = np.rint(yw * 2048).astype(np.int64)
        src = img.astype(np.int64)
        rows = sum(src[:, xi[:, k]] * ax[:, k][(None, slice(None)) + tail] for k in range(4))
        acc = sum(rows[yi[:, k]] * ay[:, k][(slice(None), None) + tail] for k in range(4))
        return np.clip((acc + (1 << 21)) >> 22, 0, 255).astype(np.uint8)
    src = img.astype(np.float64)
    rows = sum(src[:, xi[:, k]] * xw[:, k][(None, slice(None)) + tail] for k in range(4))
    out = sum(rows[yi[:, k]] * yw[:, k][(slice(None), None) + tail] for k in range(4))
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype)


__all__ = ["resize_cubic"]
