"""Independent NumPy formulas of the nn layers (NCHW), the references of tests/nn and tests/e2e.

Written from the textbook definitions with explicit padding and loops over kernel taps, sharing nothing
with the ops' own reference implementations.
"""

from __future__ import annotations

import math

import numpy as np


def same_pads(size: int, k: int, stride: int, dilation: int = 1) -> tuple[int, int]:
    """'same' padding (output = ceil(size / stride)); the odd cell goes after, as TF/MindSpore do."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _pads(pad_mode: str, hw, k, stride, dilation, padding) -> tuple[int, int, int, int]:
    if pad_mode == "valid":
        return 0, 0, 0, 0
    if pad_mode == "same":
        return (*same_pads(hw[0], k[0], stride[0], dilation[0]), *same_pads(hw[1], k[1], stride[1], dilation[1]))
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * 4


def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)


def _windows(xp: np.ndarray, k, stride, dilation, out_hw):
    """Yield the (N, C, oh, ow) slab of every kernel tap (i, j) of a padded input."""
    oh, ow = out_hw
    for i in range(k[0]):
        for j in range(k[1]):
            r, c = i * dilation[0], j * dilation[1]
            yield i, j, xp[:, :, r:r + stride[0] * (oh - 1) + 1:stride[0], c:c + stride[1] * (ow - 1) + 1:stride[1]]


def conv2d(x, w, bias=None, stride=1, pad_mode="same", padding=0, dilation=1, group=1) -> np.ndarray:
    """Cross-correlation of x (N, C, H, W) with w (O, C/group, kh, kw), in float64."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    k, s, d = w.shape[2:], _pair(stride), _pair(dilation)
    t, b, l, r = _pads(pad_mode, x.shape[2:], k, s, d, padding)
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    oh = (xp.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    n_out, cg = w.shape[0], w.shape[1]
    og = n_out // group
    out = np.zeros((x.shape[0], n_out, oh, ow))
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i, j, slab in _windows(xs, k, s, d, (oh, ow)):
            out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", slab, w[g * og:(g + 1) * og, :, i, j])
    if bias is not None:
        out += np.asarray(bias, np.float64).reshape(1, -1, 1, 1)
    return out


def _pool_geometry(x, kernel_size, stride, pad_mode, padding):
    k, s = _pair(kernel_size), _pair(stride)
    t, b, l, r = _pads(pad_mode, x.shape[2:], k, s, (1, 1), padding)
    h, w = x.shape[2] + t + b, x.shape[3] + l + r
    out_hw = ((h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1)
    return k, s, ((0, 0), (0, 0), (t, b), (l, r)), out_hw


def max_pool2d(x, kernel_size, stride, pad_mode="valid", padding=0) -> np.ndarray:
    """Window maxima; padded cells are -inf so they never win."""
    x = np.asarray(x, np.float64)
    k, s, pads, out_hw = _pool_geometry(x, kernel_size, stride, pad_mode, padding)
    xp = np.pad(x, pads, constant_values=-np.inf)
    out = np.full((*x.shape[:2], *out_hw), -np.inf)
    for _, _, slab in _windows(xp, k, s, (1, 1), out_hw):
        out = np.maximum(out, slab)
    return out


def avg_pool2d(x, kernel_size, stride, pad_mode="valid", padding=0, count_include_pad=True) -> np.ndarray:
    """Window means. 'same' padding never counts padded cells; 'pad' counts them if count_include_pad."""
    x = np.asarray(x, np.float64)
    k, s, pads, out_hw = _pool_geometry(x, kernel_size, stride, pad_mode, padding)
    xp = np.pad(x, pads)
    ones = np.pad(np.ones((1, 1, *x.shape[2:])), pads)
    total = np.zeros((*x.shape[:2], *out_hw))
    count = np.zeros((1, 1, *out_hw))
    for (_, _, slab), (_, _, cslab) in zip(_windows(xp, k, s, (1, 1), out_hw), _windows(ones, k, s, (1, 1), out_hw)):
        total += slab
        count += cslab
    divisor = k[0] * k[1] if (pad_mode == "pad" and count_include_pad) else count
    return total / divisor


def batch_norm(x, gamma, beta, mean, var, eps) -> np.ndarray:
    """Per-channel normalisation of an NCHW tensor with the given statistics."""
    sh = (1, -1, 1, 1)
    x = np.asarray(x, np.float64)
    return (x - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * gamma.reshape(sh) + beta.reshape(sh)


def layer_norm(x, gamma, beta, begin_norm_axis=-1, eps=1e-7) -> np.ndarray:
    """Normalise over axes begin_norm_axis.. (biased variance), then scale and shift (broadcast on the right)."""
    x = np.asarray(x, np.float64)
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def dense(x, w, b=None) -> np.ndarray:
    """x @ w.T (+ b) over the last axis."""
    y = np.asarray(x, np.float64) @ np.asarray(w, np.float64).T
    return y + b if b is not None else y


def relu(x):
    return np.maximum(x, 0)


def gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
