"""Colour and tone vision transforms: brightness/contrast/saturation/gamma/hue/sharpness adjustments,
invert, posterize, solarize, equalize, auto-contrast, HSV conversions and ``ConvertColor``, with the random
counterparts MindSpore documents. uint8 images stay uint8 (rounded and saturated as OpenCV does)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..vision_adjust import AdjustBrightness, AdjustContrast, AdjustGamma, AdjustSaturation, AdjustSharpness
from ._common import gray, image, like, probability, rng


def _rgb(who: str, img: Any) -> np.ndarray:
    return image(who, img, (3,))










def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """Float RGB in [0, 1] (..., 3) -> HSV in [0, 1]."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    v = maxc
    delta = maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0.0)
    safe = np.where(delta > 0, delta, 1)
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """HSV in [0, 1] (..., 3) -> RGB in [0, 1]."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choices = [np.stack(c, axis=-1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    out = np.select([(i == k)[..., None] for k in range(6)], choices)
    return np.where((s == 0)[..., None], np.stack([v, v, v], axis=-1), out)


class AdjustHue:
    """``AdjustHue(hue_factor)``: rotate the hue by ``hue_factor`` turns (in [-0.5, 0.5])."""

    def __init__(self, hue_factor: float) -> None:
        if not -0.5 <= hue_factor <= 0.5:
            raise ValueError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], got {hue_factor!r}")
        self.factor = float(hue_factor)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("AdjustHue", img)
        scale = 255.0 if arr.dtype == np.uint8 else 1.0
        hsv = rgb_to_hsv(arr.astype(np.float64) / scale)
        hsv[..., 0] = (hsv[..., 0] + self.factor) % 1.0
        return like(hsv_to_rgb(hsv) * scale, arr.dtype)


def _smooth(arr: np.ndarray) -> np.ndarray:
    """PIL's SMOOTH filter ([[1,1,1],[1,5,1],[1,1,1]] / 13) on the interior, the border kept."""
    src = arr.astype(np.float64)
    out = src.copy()
    if arr.shape[0] < 3 or arr.shape[1] < 3:
        return out
    acc = sum(src[1 + dy:src.shape[0] - 1 + dy, 1 + dx:src.shape[1] - 1 + dx]
              for dy in (-1, 0, 1) for dx in (-1, 0, 1)) + 4 * src[1:-1, 1:-1]
    out[1:-1, 1:-1] = acc / 13.0
    return out




class Invert:
    """``Invert()``: ``255 - x`` of a uint8 image."""

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Invert", img)
        return (255 - arr.astype(np.int64)).astype(arr.dtype) if arr.dtype == np.uint8 else 255.0 - arr


class Posterize:
    """``Posterize(bits)``: keep the ``bits`` most significant bits (1..8) of each uint8 channel."""

    def __init__(self, bits: int) -> None:
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= 8:
            raise ValueError(f"Posterize: bits must be an int in [0, 8], got {bits!r}")
        self.bits = bits

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Posterize", img)
        if arr.dtype != np.uint8:
            raise TypeError(f"Posterize: the image must be uint8, got {arr.dtype}")
        return arr & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


def _threshold_pair(who: str, threshold: float | Sequence[float]) -> tuple[float, float]:
    if isinstance(threshold, (int, float)):
        return float(threshold), 255.0
    if len(threshold) == 1:
        return float(threshold[0]), 255.0
    lo, hi = float(threshold[0]), float(threshold[1])
    if lo > hi:
        raise ValueError(f"{who}: threshold must be (min, max) with min <= max, got {threshold!r}")
    return lo, hi


class Solarize:
    """``Solarize(threshold)``: invert the pixels within ``threshold`` ((min, max), or [t, 255] for one
    value)."""

    def __init__(self, threshold: float | Sequence[float]) -> None:
        self.lo, self.hi = _threshold_pair("Solarize", threshold)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Solarize", img)
        return np.where((arr >= self.lo) & (arr <= self.hi), 255 - arr.astype(np.int64), arr).astype(arr.dtype)


def _equalize_channel(ch: np.ndarray) -> np.ndarray:
    hist = np.bincount(ch.reshape(-1), minlength=256)
    first = int(np.flatnonzero(hist)[0])
    total = ch.size
    if hist[first] == total:
        return np.full_like(ch, first)
    scale = 255.0 / (total - hist[first])
    lut = np.zeros(256)
    lut[first + 1:] = np.cumsum(hist[first + 1:]) * scale
    return np.clip(np.rint(lut), 0, 255).astype(np.uint8)[ch]


class Equalize:
    """``Equalize()``: per-channel histogram equalization of a uint8 image (OpenCV's equalizeHist)."""

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Equalize", img)
        if arr.dtype != np.uint8:
            raise TypeError(f"Equalize: the image must be uint8, got {arr.dtype}")
        if arr.ndim == 2:
            return _equalize_channel(arr)
        return np.stack([_equalize_channel(arr[..., c]) for c in range(arr.shape[2])], axis=-1)


class AutoContrast:
    """``AutoContrast(cutoff=0.0, ignore=None)``: per channel, stretch the range left after cutting
    ``cutoff`` percent of pixels at each end (values in ``ignore`` not counted) to [0, 255]."""

    def __init__(self, cutoff: float = 0.0, ignore: int | Sequence[int] | None = None) -> None:
        if not 0 <= cutoff < 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        self.cutoff = float(cutoff)
        self.ignore = [] if ignore is None else ([ignore] if isinstance(ignore, int) else list(ignore))

    def _channel(self, ch: np.ndarray) -> np.ndarray:
        hist = np.bincount(ch.reshape(-1), minlength=256).astype(np.int64)
        for v in self.ignore:
            hist[v] = 0
        if self.cutoff:
            cut = int(hist.sum() * self.cutoff / 100)
            for order in (range(256), range(255, -1, -1)):
                left = cut
                for i in order:
                    take = min(left, hist[i])
                    hist[i] -= take
                    left -= take
                    if left <= 0:
                        break
        nz = np.flatnonzero(hist)
        if nz.size == 0 or nz[-1] <= nz[0]:
            return ch.copy()
        lo, hi = nz[0], nz[-1]
        # float32 arithmetic truncated toward zero, as MindSpore computes the table
        scale = np.float32(255.0 / (hi - lo))
        table = np.arange(256, dtype=np.float32) * scale + np.float32(-lo * (255.0 / (hi - lo)))
        lut = np.clip(table.astype(np.int64), 0, 255).astype(np.uint8)
        return lut[ch]

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("AutoContrast", img)
        if arr.dtype != np.uint8:
            raise TypeError(f"AutoContrast: the image must be uint8, got {arr.dtype}")
        if arr.ndim == 2:
            return self._channel(arr)
        return np.stack([self._channel(arr[..., c]) for c in range(arr.shape[2])], axis=-1)


class RgbToHsv:
    """``RgbToHsv(is_hwc=False)``: float RGB in [0, 1] (CHW unless ``is_hwc``) -> HSV in [0, 1], float64."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img, np.float64)
        hwc = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        out = rgb_to_hsv(hwc)
        return out if self.is_hwc else np.ascontiguousarray(np.moveaxis(out, -1, 0))


class HsvToRgb:
    """``HsvToRgb(is_hwc=False)``: HSV in [0, 1] (CHW unless ``is_hwc``) -> RGB in [0, 1], float64."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img, np.float64)
        hwc = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        out = hsv_to_rgb(hwc)
        return out if self.is_hwc else np.ascontiguousarray(np.moveaxis(out, -1, 0))


class ConvertMode(enum.IntEnum):
    """``ConvertColor`` modes (MindSpore's ``vision.ConvertMode``)."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ConvertColor:
    """``ConvertColor(convert_mode)``: channel reorders, alpha added (opaque) or dropped, and grey
    conversions with OpenCV's luma weights."""

    def __init__(self, convert_mode: ConvertMode) -> None:
        self.mode = ConvertMode(convert_mode)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("ConvertColor", img)
        m = self.mode
        opaque = 255 if arr.dtype == np.uint8 else 1.0
        if m in (ConvertMode.COLOR_GRAY2RGB, ConvertMode.COLOR_GRAY2RGBA):
            g = arr if arr.ndim == 2 else arr[..., 0]
            chans = [g, g, g] + ([np.full_like(g, opaque)] if m == ConvertMode.COLOR_GRAY2RGBA else [])
            return np.stack(chans, axis=-1)
        if arr.ndim != 3 or arr.shape[2] not in (3, 4):
            raise TypeError(f"ConvertColor: {m.name} needs an (H, W, 3 or 4) image, got {arr.shape}")
        if m in (ConvertMode.COLOR_BGR2GRAY, ConvertMode.COLOR_BGRA2GRAY):
            return like(gray(arr[..., 2::-1]), arr.dtype)
        if m in (ConvertMode.COLOR_RGB2GRAY, ConvertMode.COLOR_RGBA2GRAY):
            return like(gray(arr[..., :3]), arr.dtype)
        swap = m in (ConvertMode.COLOR_BGR2RGBA, ConvertMode.COLOR_RGBA2BGR, ConvertMode.COLOR_BGR2RGB,
                     ConvertMode.COLOR_BGRA2RGBA)
        color = arr[..., 2::-1] if swap else arr[..., :3]
        if m in (ConvertMode.COLOR_BGR2BGRA, ConvertMode.COLOR_BGR2RGBA):
            return np.concatenate([color, np.full(arr.shape[:2] + (1,), opaque, arr.dtype)], axis=-1)
        if m == ConvertMode.COLOR_BGRA2RGBA:
            return np.ascontiguousarray(np.concatenate([color, arr[..., 3:]], axis=-1))
        return np.ascontiguousarray(color)


class RandomInvert:
    """``RandomInvert(prob=0.5)``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomInvert", prob)

    def __call__(self, img: Any) -> np.ndarray:
        return Invert()(img) if rng().random() < self.prob else np.array(img, copy=True)


class RandomEqualize:
    """``RandomEqualize(prob=0.5)``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomEqualize", prob)

    def __call__(self, img: Any) -> np.ndarray:
        return Equalize()(img) if rng().random() < self.prob else np.array(img, copy=True)


class RandomAutoContrast:
    """``RandomAutoContrast(cutoff=0.0, ignore=None, prob=0.5)``."""

    def __init__(self, cutoff: float = 0.0, ignore: int | Sequence[int] | None = None, prob: float = 0.5) -> None:
        self.op, self.prob = AutoContrast(cutoff, ignore), probability("RandomAutoContrast", prob)

    def __call__(self, img: Any) -> np.ndarray:
        return self.op(img) if rng().random() < self.prob else np.array(img, copy=True)


class RandomAdjustSharpness:
    """``RandomAdjustSharpness(degree, prob=0.5)``."""

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        self.op, self.prob = AdjustSharpness(degree), probability("RandomAdjustSharpness", prob)

    def __call__(self, img: Any) -> np.ndarray:
        return self.op(img) if rng().random() < self.prob else np.array(img, copy=True)


def _range(who: str, value: Sequence[float], low: float = 0.0) -> tuple[float, float]:
    lo, hi = float(value[0]), float(value[1])
    if lo > hi or lo < low:
        raise ValueError(f"{who}: expected an increasing (min, max) pair >= {low}, got {value!r}")
    return lo, hi


class RandomSharpness:
    """``RandomSharpness(degrees=(0.1, 1.9))``: ``AdjustSharpness`` by a factor drawn from ``degrees``."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.range = _range("RandomSharpness", degrees)

    def __call__(self, img: Any) -> np.ndarray:
        return AdjustSharpness(rng().uniform(*self.range))(img)


class RandomColor:
    """``RandomColor(degrees=(0.1, 1.9))``: ``AdjustSaturation`` by a factor drawn from ``degrees``."""

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.range = _range("RandomColor", degrees)

    def __call__(self, img: Any) -> np.ndarray:
        return AdjustSaturation(rng().uniform(*self.range))(img)


class RandomPosterize:
    """``RandomPosterize(bits=(8, 8))``: ``Posterize`` with bits drawn from ``bits`` (or exactly ``bits``)."""

    def __init__(self, bits: int | Sequence[int] = (8, 8)) -> None:
        self.range = (bits, bits) if isinstance(bits, int) else (int(bits[0]), int(bits[1]))
        if not 1 <= self.range[0] <= self.range[1] <= 8:
            raise ValueError(f"RandomPosterize: bits must lie in [1, 8], got {bits!r}")

    def __call__(self, img: Any) -> np.ndarray:
        return Posterize(int(rng().integers(self.range[0], self.range[1] + 1)))(img)


class RandomSolarize:
    """``RandomSolarize(threshold=(0, 255))``: ``Solarize`` above a threshold drawn from the range."""

    def __init__(self, threshold: Sequence[float] = (0, 255)) -> None:
        self.range = _range("RandomSolarize", threshold)

    def __call__(self, img: Any) -> np.ndarray:
        t = float(rng().uniform(*self.range))
        return Solarize((t, 255.0))(img)


class RandomColorAdjust:
    """``RandomColorAdjust(brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0))``: brightness,
    contrast, saturation and hue adjusted by factors drawn from each range (a number x means
    (max(0, 1 - x), 1 + x); for hue (-x, x)), in random order."""

    def __init__(self, brightness: float | Sequence[float] = (1, 1), contrast: float | Sequence[float] = (1, 1),
                 saturation: float | Sequence[float] = (1, 1), hue: float | Sequence[float] = (0, 0)) -> None:
        def span(v: Any, center: float) -> tuple[float, float]:
            if isinstance(v, (int, float)):
                return (max(0.0, center - v), center + v) if center else (-float(v), float(v))
            return float(v[0]), float(v[1])

        self.ranges = [(AdjustBrightness, span(brightness, 1)), (AdjustContrast, span(contrast, 1)),
                       (AdjustSaturation, span(saturation, 1)), (AdjustHue, span(hue, 0))]

    def __call__(self, img: Any) -> np.ndarray:
        gen = rng()
        out = np.asarray(img)
        for k in gen.permutation(4):
            op, (lo, hi) = self.ranges[int(k)]
            if (lo, hi) != ((0.0, 0.0) if op is AdjustHue else (1.0, 1.0)):
                out = op(gen.uniform(lo, hi))(out)
        return np.array(out, copy=True)


__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustGamma", "AdjustHue", "AdjustSharpness",
           "Invert", "Posterize", "Solarize", "Equalize", "AutoContrast", "RgbToHsv", "HsvToRgb", "ConvertMode",
           "ConvertColor", "RandomInvert", "RandomEqualize", "RandomAutoContrast", "RandomAdjustSharpness",
           "RandomSharpness", "RandomColor", "RandomPosterize", "RandomSolarize", "RandomColorAdjust",
           "rgb_to_hsv", "hsv_to_rgb"]
