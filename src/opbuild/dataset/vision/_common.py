"""Helpers shared by the vision transforms: image checks, dtype-preserving rounding, enums."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._random import op_rng as rng  # noqa: F401  (re-exported for the vision modules)


class Border(str, enum.Enum):
    """Padding modes (MindSpore's ``vision.Border``)."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


NP_PAD = {Border.CONSTANT: "constant", Border.EDGE: "edge", Border.REFLECT: "reflect",
          Border.SYMMETRIC: "symmetric"}


def image(who: str, img: Any, channels: tuple[int, ...] | None = None) -> np.ndarray:
    """``img`` as an (H, W) or (H, W, C) array (``channels``: the allowed C values)."""
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise TypeError(f"{who}: the input must be an image of shape (H, W) or (H, W, C), got {arr.shape}")
    if channels is not None and (arr.ndim != 3 or arr.shape[2] not in channels):
        raise TypeError(f"{who}: the input must be (H, W, C) with C in {channels}, got {arr.shape}")
    return arr


def like(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A float result back in ``dtype``: integers rounded to nearest and saturated, floats cast."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


def size_pair(who: str, size: int | Sequence[int]) -> tuple[int, int]:
    """An int (square) or (height, width) size."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        pair = (int(size), int(size))
    elif isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, (int, np.integer)) for s in size):
        pair = (int(size[0]), int(size[1]))
    else:
        raise TypeError(f"{who}: size must be an int or a (height, width) pair, got {size!r}")
    if min(pair) <= 0:
        raise ValueError(f"{who}: size must be positive, got {size!r}")
    return pair


def padding4(who: str, padding: int | Sequence[int]) -> tuple[int, int, int, int]:
    """MindSpore's padding: an int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        p = (int(padding),) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        p = (int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1]))
    elif isinstance(padding, (list, tuple)) and len(padding) == 4:
        p = tuple(int(v) for v in padding)  # type: ignore[assignment]
    else:
        raise TypeError(f"{who}: padding must be an int or a sequence of 2 or 4 ints, got {padding!r}")
    if min(p) < 0:
        raise ValueError(f"{who}: padding must be non-negative, got {padding!r}")
    return p  # type: ignore[return-value]


def pad(img: np.ndarray, left: int, top: int, right: int, bottom: int, fill: Any = 0,
        mode: Border = Border.CONSTANT) -> np.ndarray:
    """``img`` padded on each side; constant padding uses ``fill`` (an int or one value per channel)."""
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    mode = Border(mode)
    if mode != Border.CONSTANT:
        return np.pad(img, widths, mode=NP_PAD[mode])
    fills = np.broadcast_to(np.asarray(fill, img.dtype), (img.shape[2],) if img.ndim == 3 else ())
    out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:], img.dtype)
    out[...] = fills
    out[top:top + img.shape[0], left:left + img.shape[1]] = img
    return out


def probability(who: str, prob: float) -> float:
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise ValueError(f"{who}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)


def gray(img: np.ndarray) -> np.ndarray:
    """RGB -> luma with OpenCV's weights (fixed point for uint8, as OpenCV rounds), as float64."""
    if img.dtype == np.uint8:
        src = img.astype(np.int64)
        return ((src[..., 0] * 4899 + src[..., 1] * 9617 + src[..., 2] * 1868 + 8192) >> 14).astype(np.float64)
    src = img.astype(np.float64)
    return src[..., 0] * 0.299 + src[..., 1] * 0.587 + src[..., 2] * 0.114
