"""Rearranging and channel-dropout functions of ``mindspore.ops``: ``pixel_shuffle``, ``pixel_unshuffle``
(a Reshape, a Transpose and a Reshape) and ``dropout1d/2d/3d`` (whole channels zeroed: a mask drawn for
(N, C) by the Dropout kernel, broadcast over the spatial axes)."""

from __future__ import annotations

import numbers

from ...core.tensor import Tensor, as_tensor
from . import array as A
from . import math as M
from .nn import dropout


def _factor(fn: str, name: str, r: object) -> int:
    if isinstance(r, bool) or not isinstance(r, int) or r < 1:
        raise ValueError(f"{fn}: {name} must be a positive int, got {r!r}")
    return r


def pixel_shuffle(input, upscale_factor: int) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.pixel_shuffle(input, upscale_factor)``: (..., C r^2, H, W) to (..., C, H r, W r) with
    ``out[..., c, h r + i, w r + j] = x[..., c r^2 + i r + j, h, w]``."""
    x = as_tensor(input)
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise ValueError(f"pixel_shuffle: the input needs rank >= 3 and a channel axis (-3) divisible by "
                         f"{r * r}, got shape {x.shape}")
    *lead, c, h, w = x.shape
    y = A.transpose(A.reshape(x, (-1, c // (r * r), r, r, h, w)), (0, 1, 4, 2, 5, 3))
    return A.reshape(y, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor: int) -> Tensor:  # noqa: A002
    """``ops.pixel_unshuffle(input, downscale_factor)``: the inverse of :func:`pixel_shuffle`, (..., C, H r,
    W r) to (..., C r^2, H, W)."""
    x = as_tensor(input)
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    if x.ndim < 3 or x.shape[-1] % r or x.shape[-2] % r:
        raise ValueError(f"pixel_unshuffle: the input needs rank >= 3 and its last two axes divisible by {r}, "
                         f"got shape {x.shape}")
    *lead, c, hr, wr = x.shape
    h, w = hr // r, wr // r
    y = A.transpose(A.reshape(x, (-1, c, h, r, w, r)), (0, 1, 3, 5, 2, 4))
    return A.reshape(y, (*lead, c * r * r, h, w))


def channel_dropout(fn: str, input, p: float, training: bool, spatial: int) -> Tensor:  # noqa: A002
    """``input`` (N, C, *spatial) or (C, *spatial) with whole channels zeroed with probability ``p`` and the
    others scaled by ``1 / (1 - p)`` when ``training``."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{fn}: p must be a float in [0, 1], got {p!r}")
    x = as_tensor(input)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise ValueError(f"{fn}: the input must have rank {spatial + 1} or {spatial + 2}, got shape {x.shape}")
    if not training or p == 0.0:
        return x
    keep = (*x.shape[:x.ndim - spatial], *([1] * spatial))
    mask = dropout(A.ones(keep, x.dtype), float(p), True)
    return M.mul(x, mask)


def dropout1d(input, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """``ops.dropout1d(input, p=0.5, training=True)``: zeroes whole channels of (N, C, L) or (C, L)."""
    return channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """``ops.dropout2d(input, p=0.5, training=True)``: zeroes whole channels of (N, C, H, W)."""
    return channel_dropout("dropout2d", input, p, training, 2)


def dropout3d(input, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """``ops.dropout3d(input, p=0.5, training=True)``: zeroes whole channels of (N, C, D, H, W)."""
    return channel_dropout("dropout3d", input, p, training, 3)


__all__ = ["pixel_shuffle", "pixel_unshuffle", "dropout1d", "dropout2d", "dropout3d"]
