"""MindSpore's dataset colour transforms ``vision.AdjustBrightness``, ``AdjustContrast``, ``AdjustGamma``,
``AdjustSaturation`` and ``AdjustSharpness`` on (H, W, 3) images (uint8, or float), in NumPy on the host as
MindSpore runs them in its data pipeline.

The arithmetic reproduces MindSpore 2.10's outputs bit for bit on uint8 images (tests/compat/
test_vision_adjust.py): blends in float32 rounded half to even and saturated (OpenCV's ``convertTo`` /
``addWeighted``); the grey image of contrast and saturation is OpenCV's fixed-point
``(4899 R + 9617 G + 1868 B + 8192) >> 14``, contrast blending with its mean rounded to an integer; gamma is
the table ``int(255.999 * gain * (i / 255) ** gamma)``; sharpness blends with the image smoothed by the 3x3
kernel ``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13`` (rounded, the one-pixel border kept).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _rgb(who: str, img: Any) -> np.ndarray:
    arr = np.asarray(img)
    if arr.ndim != 3 or arr.shape[-1] != 3:
        raise TypeError(f"{who}: the image must be (H, W, 3) RGB, got shape {arr.shape}")
    if arr.dtype != np.uint8 and arr.dtype.kind != "f":
        raise TypeError(f"{who}: the image must be uint8 or float, got {arr.dtype}")
    return arr


def _factor(who: str, name: str, value: Any, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
        raise ValueError(f"{who}: {name} must be a number >= {low}, got {value!r}")
    return float(value)


def _out(arr: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A float32 result in the input's type: uint8 rounded half to even and saturated."""
    if like.dtype == np.uint8:
        return np.clip(np.rint(arr), 0, 255).astype(np.uint8)
    return arr.astype(like.dtype)


def _blend(img: np.ndarray, other: Any, factor: float) -> np.ndarray:
    """``img * factor + other * (1 - factor)`` in float32."""
    f = np.float32(factor)
    return img.astype(np.float32) * f + np.asarray(other, np.float32) * (np.float32(1) - f)


def _grey(img: np.ndarray) -> np.ndarray:
    if img.dtype == np.uint8:
        r, g, b = (img[..., k].astype(np.int64) for k in range(3))
        return ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.float32)
    return (img[..., 0] * np.float32(0.299) + img[..., 1] * np.float32(0.587)
            + img[..., 2] * np.float32(0.114)).astype(np.float32)


class AdjustBrightness:
    """``AdjustBrightness(brightness_factor)``: the image times the factor (>= 0)."""

    def __init__(self, brightness_factor: float) -> None:
        self.brightness_factor = _factor("AdjustBrightness", "brightness_factor", brightness_factor)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustBrightness", img)
        return _out(arr.astype(np.float32) * np.float32(self.brightness_factor), arr)


class AdjustContrast:
    """``AdjustContrast(contrast_factor)``: blend with the mean of the grey image (rounded for uint8)."""

    def __init__(self, contrast_factor: float) -> None:
        self.contrast_factor = _factor("AdjustContrast", "contrast_factor", contrast_factor)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustContrast", img)
        mean = float(_grey(arr).astype(np.float64).mean())
        if arr.dtype == np.uint8:
            mean = float(np.rint(mean))
        f = np.float32(self.contrast_factor)
        return _out(arr.astype(np.float32) * f + np.float32(mean * (1 - self.contrast_factor)), arr)


class AdjustGamma:
    """``AdjustGamma(gamma, gain=1)``: uint8 through the table ``int(255.999 * gain * (i / 255) ** gamma)``;
    float images ``min((gain * img) ** gamma, 1)`` (MindSpore's two paths differ in where the gain goes)."""

    def __init__(self, gamma: float, gain: float = 1) -> None:
        self.gamma = _factor("AdjustGamma", "gamma", gamma)
        self.gain = float(gain)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustGamma", img)
        if arr.dtype == np.uint8:
            table = (255 + 1 - 1e-3) * self.gain * np.power(np.arange(256) / 255.0, self.gamma)
            return np.clip(table.astype(np.int64), 0, 255).astype(np.uint8)[arr]
        # MindSpore's float path raises the scaled image to gamma and saturates at 1 (checked against it)
        scaled = np.power(np.float32(self.gain) * arr.astype(np.float32), np.float32(self.gamma))
        return np.clip(scaled, 0, 1).astype(arr.dtype)


class AdjustSaturation:
    """``AdjustSaturation(saturation_factor)``: blend with the grey image."""

    def __init__(self, saturation_factor: float) -> None:
        self.saturation_factor = _factor("AdjustSaturation", "saturation_factor", saturation_factor)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustSaturation", img)
        return _out(_blend(arr, _grey(arr)[..., None], self.saturation_factor), arr)


class AdjustSharpness:
    """``AdjustSharpness(sharpness_factor)``: blend with the image smoothed by a 3x3 kernel (border kept)."""

    def __init__(self, sharpness_factor: float) -> None:
        self.sharpness_factor = _factor("AdjustSharpness", "sharpness_factor", sharpness_factor)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustSharpness", img)
        h, w = arr.shape[:2]
        smooth = arr.astype(np.float32).copy()
        if h > 2 and w > 2:
            x = arr.astype(np.float64)
            acc = sum(x[dy:h - 2 + dy, dx:w - 2 + dx] * (5.0 if (dy, dx) == (1, 1) else 1.0)
                      for dy in range(3) for dx in range(3)) / 13.0
            smooth[1:h - 1, 1:w - 1] = np.rint(acc) if arr.dtype == np.uint8 else acc
        return _out(_blend(arr, smooth, self.sharpness_factor), arr)


__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustSaturation", "AdjustSharpness"]
