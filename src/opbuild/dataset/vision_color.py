"""Colour and pixel ``mindspore.dataset.vision`` transforms on (H, W) / (H, W, C) NumPy images, with the
formulas of PIL's ImageOps/ImageEnhance that MindSpore follows: ``Invert``, ``Posterize``, ``Solarize``,
``Equalize``, ``AutoContrast``, ``AdjustBrightness``/``Contrast``/``Saturation``/``Sharpness``/``Gamma``/``Hue``,
their ``Random*`` forms, ``RandomColor``, ``RandomColorAdjust``, ``GaussianBlur``, ``Erase``, ``CutOut``,
``ToTensor`` and ``NormalizePad``. uint8 images stay uint8 (results rounded and clipped to [0, 255])."""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from typing import Any

import numpy as np

from .vision_geometry import image, rng


def _back(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    if like.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(like.dtype)


def _gray(arr: np.ndarray) -> np.ndarray:
    """ITU-R 601-2 luma of an RGB image (PIL's 'L' conversion), as float32 (H, W)."""
    if arr.ndim == 2 or arr.shape[2] == 1:
        return arr.reshape(arr.shape[:2]).astype(np.float32)
    a = arr.astype(np.float32)
    return a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114


def _blend(img: np.ndarray, other: np.ndarray, factor: float) -> np.ndarray:
    a = img.astype(np.float32)
    return _back(other + (a - other) * np.float32(factor), img)


def _rgb(who: str, img: Any) -> np.ndarray:
    arr = image(who, img)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise TypeError(f"{who}: the input must be an RGB image of shape (H, W, 3), got {arr.shape}")
    return arr


def _factor(who: str, factor: float) -> float:
    if not isinstance(factor, (int, float)) or isinstance(factor, bool) or factor < 0:
        raise ValueError(f"{who}: the factor must be a number >= 0, got {factor!r}")
    return float(factor)


def adjust_brightness(img: np.ndarray, factor: float) -> np.ndarray:
    return _blend(img, np.zeros(img.shape, np.float32), factor)


def adjust_contrast(img: np.ndarray, factor: float) -> np.ndarray:
    mean = np.float32(np.rint(_gray(img).mean()) if img.dtype == np.uint8 else _gray(img).mean())
    return _blend(img, np.full(img.shape, mean, np.float32), factor)


def adjust_saturation(img: np.ndarray, factor: float) -> np.ndarray:
    gray = _gray(img)
    return _blend(img, np.repeat(gray[..., None], img.shape[2], axis=2) if img.ndim == 3 else gray, factor)


def adjust_sharpness(img: np.ndarray, factor: float) -> np.ndarray:
    """Blend with PIL's SMOOTH-filtered image (3x3 kernel, centre 5, others 1, /13; borders unchanged)."""
    a = img.astype(np.float32)
    smooth = a.copy()
    if a.shape[0] > 2 and a.shape[1] > 2:
        acc = sum(a[1 + dy:a.shape[0] - 1 + dy, 1 + dx:a.shape[1] - 1 + dx]
                  for dy in (-1, 0, 1) for dx in (-1, 0, 1))
        smooth[1:-1, 1:-1] = (acc + 4 * a[1:-1, 1:-1]) / 13.0
        if img.dtype == np.uint8:
            smooth = np.rint(smooth)
    return _blend(img, smooth, factor)


def adjust_hue(img: np.ndarray, factor: float) -> np.ndarray:
    """Rotate the hue by ``factor`` of a turn (``factor`` in [-0.5, 0.5])."""
    a = img.astype(np.float32) / (255.0 if img.dtype == np.uint8 else 1.0)
    hsv = np.array([colorsys.rgb_to_hsv(*px) for px in a.reshape(-1, 3)], np.float32)
    hsv[:, 0] = (hsv[:, 0] + factor) % 1.0
    rgb = np.array([colorsys.hsv_to_rgb(*px) for px in hsv], np.float32).reshape(a.shape)
    return _back(rgb * (255.0 if img.dtype == np.uint8 else 1.0), img)


class Invert:
    """``Invert()``: ``255 - img`` for each channel."""

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Invert", img)
        return _back(255.0 - arr.astype(np.float32), arr)


class Posterize:
    """``Posterize(bits)``: keep the top ``bits`` bits of each uint8 value."""

    def __init__(self, bits: int) -> None:
        if not isinstance(bits, int) or not 0 <= bits <= 8:
            raise ValueError(f"Posterize: bits must be an int in [0, 8], got {bits!r}")
        self.bits = bits

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Posterize", img)
        if arr.dtype != np.uint8:
            raise TypeError(f"Posterize: the image must be uint8, got {arr.dtype}")
        return arr & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


class Solarize:
    """``Solarize(threshold)``: invert the values in [threshold[0], threshold[1]] (one number: from it up)."""

    def __init__(self, threshold: float | Sequence[float]) -> None:
        lo_hi = (threshold, 255) if isinstance(threshold, (int, float)) else tuple(threshold)
        if len(lo_hi) != 2 or lo_hi[0] > lo_hi[1]:
            raise ValueError(f"Solarize: threshold must be a number or a (min, max) pair, got {threshold!r}")
        self.lo, self.hi = lo_hi

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Solarize", img)
        mask = (arr >= self.lo) & (arr <= self.hi)
        return np.where(mask, _back(255.0 - arr.astype(np.float32), arr), arr)


def equalize(arr: np.ndarray) -> np.ndarray:
    """Histogram equalisation per channel of a uint8 image, as OpenCV's equalizeHist (which MindSpore uses):
    ``lut[v] = round((cdf[v] - cdf[first]) * 255 / (n - cdf[first]))``."""
    def one(ch: np.ndarray) -> np.ndarray:
        hist = np.bincount(ch.ravel(), minlength=256)
        first = int(np.flatnonzero(hist)[0])
        n, base = ch.size, int(hist[first])
        if n == base:
            return ch
        lut = np.clip(np.rint((np.cumsum(hist) - base) * (255.0 / (n - base))), 0, 255).astype(np.uint8)
        return lut[ch]

    if arr.dtype != np.uint8:
        raise TypeError(f"Equalize: the image must be uint8, got {arr.dtype}")
    return one(arr) if arr.ndim == 2 else np.stack([one(arr[..., c]) for c in range(arr.shape[2])], -1)


def autocontrast(arr: np.ndarray, cutoff: float = 0.0, ignore=None) -> np.ndarray:
    """PIL's ImageOps.autocontrast per channel: stretch [lo, hi] (after cutting ``cutoff`` % each end)."""
    ignore = [] if ignore is None else ([ignore] if isinstance(ignore, int) else list(ignore))

    def one(ch: np.ndarray) -> np.ndarray:
        hist = np.bincount(ch.ravel(), minlength=256).astype(np.int64)
        hist[ignore] = 0
        n = hist.sum()
        cut = int(n * cutoff / 100)
        cum = np.cumsum(hist)
        lo = int(np.searchsorted(cum, cut, side="right"))
        hi = int(255 - np.searchsorted(np.cumsum(hist[::-1]), cut, side="right"))
        if hi <= lo:
            return ch
        scale = 255.0 / (hi - lo)
        lut = np.clip(np.rint((np.arange(256) - lo) * scale), 0, 255).astype(np.uint8)
        return lut[ch]

    if arr.dtype != np.uint8:
        raise TypeError(f"AutoContrast: the image must be uint8, got {arr.dtype}")
    return one(arr) if arr.ndim == 2 else np.stack([one(arr[..., c]) for c in range(arr.shape[2])], -1)


class Equalize:
    """``Equalize()``: histogram equalisation per channel."""

    def __call__(self, img: Any) -> np.ndarray:
        return equalize(image("Equalize", img))


class AutoContrast:
    """``AutoContrast(cutoff=0.0, ignore=None)``: stretch each channel's range to [0, 255]."""

    def __init__(self, cutoff: float = 0.0, ignore=None) -> None:
        if not 0 <= cutoff < 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        self.cutoff, self.ignore = float(cutoff), ignore

    def __call__(self, img: Any) -> np.ndarray:
        return autocontrast(image("AutoContrast", img), self.cutoff, self.ignore)


def _adjuster(name: str, fn, rgb: bool, doc: str):
    keyword = name[len("Adjust"):].lower() + "_factor"  # MindSpore's keyword: brightness_factor, ...

    def __init__(self, *args: float, **kwargs: float) -> None:
        if len(args) + len(kwargs) != 1 or (kwargs and keyword not in kwargs):
            raise TypeError(f"{name}: expected one factor, {name}({keyword})")
        self.factor = _factor(name, args[0] if args else kwargs[keyword])

    def __call__(self, img: Any) -> np.ndarray:
        return fn(_rgb(name, img) if rgb else image(name, img), self.factor)

    return type(name, (), {"__init__": __init__, "__call__": __call__, "__doc__": doc})


AdjustBrightness = _adjuster("AdjustBrightness", adjust_brightness, False,
                             "``AdjustBrightness(brightness_factor)``: ``img * factor`` (0 gives black).")
AdjustContrast = _adjuster("AdjustContrast", adjust_contrast, True,
                           "``AdjustContrast(contrast_factor)``: blend with the mean grey (0 gives it).")
AdjustSaturation = _adjuster("AdjustSaturation", adjust_saturation, True,
                             "``AdjustSaturation(saturation_factor)``: blend with the greyscale image.")
AdjustSharpness = _adjuster("AdjustSharpness", adjust_sharpness, False,
                            "``AdjustSharpness(sharpness_factor)``: blend with a smoothed image.")


class AdjustHue:
    """``AdjustHue(hue_factor)``: rotate the hue by ``hue_factor`` (in [-0.5, 0.5]) of a turn."""

    def __init__(self, hue_factor: float) -> None:
        if not -0.5 <= hue_factor <= 0.5:
            raise ValueError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], got {hue_factor!r}")
        self.factor = float(hue_factor)

    def __call__(self, img: Any) -> np.ndarray:
        return adjust_hue(_rgb("AdjustHue", img), self.factor)


class AdjustGamma:
    """``AdjustGamma(gamma, gain=1)``: ``255 * gain * (img / 255) ** gamma``."""

    def __init__(self, gamma: float, gain: float = 1.0) -> None:
        if gamma < 0:
            raise ValueError(f"AdjustGamma: gamma must be >= 0, got {gamma!r}")
        self.gamma, self.gain = float(gamma), float(gain)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("AdjustGamma", img)
        scale = 255.0 if arr.dtype == np.uint8 else 1.0
        return _back(scale * self.gain * (arr.astype(np.float32) / scale) ** self.gamma, arr)


def _range(who: str, value: float | Sequence[float], center: float = 1.0) -> tuple[float, float]:
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{who}: a single value must be >= 0, got {value!r}")
        return max(center - value, 0.0), center + value
    lo, hi = value
    if lo > hi:
        raise ValueError(f"{who}: the range must be (min, max) with min <= max, got {value!r}")
    return float(lo), float(hi)


class RandomColorAdjust:
    """``RandomColorAdjust(brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0))``: each
    adjustment with a factor drawn from its range, in the order brightness, contrast, saturation, hue."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)) -> None:
        self.b = _range("RandomColorAdjust", brightness)
        self.c = _range("RandomColorAdjust", contrast)
        self.s = _range("RandomColorAdjust", saturation)
        self.h = _range("RandomColorAdjust", hue, 0.0) if not isinstance(hue, (int, float)) else (-hue, hue)
        self._rng = rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = _rgb("RandomColorAdjust", img)
        draw = self._rng.uniform
        if self.b != (1, 1):
            arr = adjust_brightness(arr, draw(*self.b))
        if self.c != (1, 1):
            arr = adjust_contrast(arr, draw(*self.c))
        if self.s != (1, 1):
            arr = adjust_saturation(arr, draw(*self.s))
        if self.h != (0, 0):
            arr = adjust_hue(arr, draw(*self.h))
        return arr


class RandomColor:
    """``RandomColor(degrees=(0.1, 1.9))``: saturation adjusted by a factor drawn from ``degrees``."""

    def __init__(self, degrees=(0.1, 1.9)) -> None:
        self.degrees, self._rng = _range("RandomColor", degrees), rng()

    def __call__(self, img: Any) -> np.ndarray:
        return adjust_saturation(_rgb("RandomColor", img), self._rng.uniform(*self.degrees))


class RandomSharpness:
    """``RandomSharpness(degrees=(0.1, 1.9))``: sharpness adjusted by a factor drawn from ``degrees``."""

    def __init__(self, degrees=(0.1, 1.9)) -> None:
        self.degrees, self._rng = _range("RandomSharpness", degrees), rng()

    def __call__(self, img: Any) -> np.ndarray:
        return adjust_sharpness(image("RandomSharpness", img), self._rng.uniform(*self.degrees))


def _random(name: str, make, nargs: int, doc: str):
    """A class applying ``make(*args)`` with probability ``prob``: the first ``nargs`` positional arguments
    go to ``make``, the next one (or the keyword) is ``prob``."""
    def __init__(self, *args, prob: float | None = None, **kwargs) -> None:
        if len(args) > nargs:
            if prob is not None or len(args) > nargs + 1:
                raise TypeError(f"{name}: too many arguments")
            args, prob = args[:nargs], args[nargs]
        prob = 0.5 if prob is None else prob
        if not 0 <= prob <= 1:
            raise ValueError(f"{name}: prob must be in [0, 1], got {prob!r}")
        self.prob, self.op, self._rng = float(prob), make(*args, **kwargs), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image(name, img)
        return self.op(arr) if self._rng.random() < self.prob else arr

    return type(name, (), {"__init__": __init__, "__call__": __call__, "__doc__": doc})


RandomInvert = _random("RandomInvert", Invert, 0, "``RandomInvert(prob=0.5)``: Invert with probability prob.")
RandomEqualize = _random("RandomEqualize", Equalize, 0,
                         "``RandomEqualize(prob=0.5)``: Equalize with probability prob.")
RandomAutoContrast = _random("RandomAutoContrast", AutoContrast, 2,
                             "``RandomAutoContrast(cutoff=0.0, ignore=None, prob=0.5)``.")
RandomAdjustSharpness = _random("RandomAdjustSharpness", AdjustSharpness, 1,
                                "``RandomAdjustSharpness(degree, prob=0.5)``: AdjustSharpness(degree).")


class RandomPosterize:
    """``RandomPosterize(bits=(8, 8))``: Posterize with a bit count drawn from ``bits``."""

    def __init__(self, bits=(8, 8)) -> None:
        self.bits = (bits, bits) if isinstance(bits, int) else tuple(bits)
        self._rng = rng()

    def __call__(self, img: Any) -> np.ndarray:
        return Posterize(int(self._rng.integers(self.bits[0], self.bits[1] + 1)))(img)


class RandomSolarize:
    """``RandomSolarize(threshold=(0, 255))``: Solarize from a threshold drawn in the range."""

    def __init__(self, threshold=(0, 255)) -> None:
        self.threshold, self._rng = tuple(threshold), rng()

    def __call__(self, img: Any) -> np.ndarray:
        lo = int(self._rng.integers(self.threshold[0], self.threshold[1] + 1))
        hi = int(self._rng.integers(lo, self.threshold[1] + 1))
        return Solarize((lo, hi))(img)


class GaussianBlur:
    """``GaussianBlur(kernel_size, sigma=None)``: separable Gaussian filter, borders reflected (101);
    ``sigma`` None: ``0.3 * ((k - 1) * 0.5 - 1) + 0.8`` per axis, as OpenCV."""

    def __init__(self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None) -> None:
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if any(k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError(f"GaussianBlur: kernel_size must be positive and odd, got {kernel_size!r}")
        sig = (None, None) if sigma is None else ((sigma, sigma) if isinstance(sigma, (int, float)) else tuple(sigma))
        self.ks = ks
        self.sigma = tuple(0.3 * ((k - 1) * 0.5 - 1) + 0.8 if s is None or s <= 0 else float(s)
                           for k, s in zip(ks, sig))

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("GaussianBlur", img)
        out = arr.astype(np.float32)
        for axis, (k, s) in enumerate(zip(self.ks, self.sigma)):
            x = np.arange(k) - (k - 1) / 2.0
            w = np.exp(-(x ** 2) / (2 * s * s))
            w /= w.sum()
            r = k // 2
            widths = [(0, 0)] * out.ndim
            widths[1 - axis] = (r, r)
            padded = np.pad(out, widths, mode="reflect" if out.shape[1 - axis] > r else "edge")
            n = out.shape[1 - axis]
            out = sum(wi * np.take(padded, np.arange(i, i + n), axis=1 - axis) for i, wi in enumerate(w))
        return _back(out, arr)


class Erase:
    """``Erase(top, left, height, width, value=0, inplace=False)``: set the region to ``value``."""

    def __init__(self, top: int, left: int, height: int, width: int, value=0, inplace: bool = False) -> None:
        self.box, self.value = (int(top), int(left), int(height), int(width)), value

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Erase", img).copy()
        top, left, h, w = self.box
        arr[top:top + h, left:left + w] = np.asarray(self.value, np.float64).astype(arr.dtype)
        return arr


class CutOut:
    """``CutOut(length, num_patches=1, is_hwc=True)``: zero ``num_patches`` random ``length``-square patches."""

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        if length <= 0 or num_patches <= 0:
            raise ValueError(f"CutOut: length and num_patches must be positive, got {length}, {num_patches}")
        self.length, self.n, self.hwc, self._rng = int(length), int(num_patches), bool(is_hwc), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.array(img, copy=True)
        view = arr if self.hwc or arr.ndim == 2 else np.moveaxis(arr, 0, -1)
        h, w = view.shape[:2]
        for _ in range(self.n):
            cy, cx = int(self._rng.integers(0, h)), int(self._rng.integers(0, w))
            view[max(cy - self.length // 2, 0):cy + self.length - self.length // 2,
                 max(cx - self.length // 2, 0):cx + self.length - self.length // 2] = 0
        return arr


class ToTensor:
    """``ToTensor(output_type=numpy.float32)``: (H, W, C) pixels -> (C, H, W) in [0, 1]."""

    def __init__(self, output_type=np.float32) -> None:
        self.output_type = np.dtype(getattr(output_type, "np_dtype", output_type))

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("ToTensor", img)
        if arr.ndim == 2:
            arr = arr[..., None]
        return np.ascontiguousarray((arr.astype(np.float32) / 255.0).transpose(2, 0, 1)).astype(self.output_type)


class NormalizePad:
    """``NormalizePad(mean, std, dtype="float32", is_hwc=True)``: Normalize, then a zero fourth channel."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32",
                 is_hwc: bool = True) -> None:
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', got {dtype!r}")
        self.mean, self.std = np.asarray(mean, np.float32), np.asarray(std, np.float32)
        self.dtype, self.hwc = np.dtype(dtype), bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("NormalizePad", img).astype(np.float32)
        axis = -1 if self.hwc else 0
        shape = (1, 1, -1) if self.hwc else (-1, 1, 1)
        out = (arr - self.mean.reshape(shape)) / self.std.reshape(shape)
        zeros = np.zeros_like(np.take(out, [0], axis=axis))
        return np.concatenate([out, zeros], axis=axis).astype(self.dtype)


__all__ = ["Invert", "Posterize", "Solarize", "Equalize", "AutoContrast", "AdjustBrightness", "AdjustContrast",
           "AdjustSaturation", "AdjustSharpness", "AdjustHue", "AdjustGamma", "RandomColorAdjust", "RandomColor",
           "RandomSharpness", "RandomInvert", "RandomEqualize", "RandomAutoContrast", "RandomAdjustSharpness",
           "RandomPosterize", "RandomSolarize", "GaussianBlur", "Erase", "CutOut", "ToTensor", "NormalizePad"]
