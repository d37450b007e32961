"""``mindspore.dataset.vision`` basics: ``Decode``, ``Resize``, ``Rescale``, ``Normalize``, ``HWC2CHW`` and
``Inter``. Each is a callable on NumPy arrays (in ``Dataset.map`` or eagerly), with MindSpore's defaults and
output dtypes. Decoding uses Pillow (``pip install opbuild[vision]``)."""

from __future__ import annotations

import enum
import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from .cubic import resize_cubic
from .pil_io import is_pil


class Inter(enum.IntEnum):
    """Interpolation modes of ``Resize`` (MindSpore's ``vision.Inter``)."""

    NEAREST = 0
    LINEAR = 1
    BILINEAR = 1
    CUBIC = 2
    BICUBIC = 2
    AREA = 3
    PILCUBIC = 4


def decode_image(data: np.ndarray) -> np.ndarray:
    """The RGB (H, W, 3) uint8 pixels of encoded image bytes (JPEG, PNG, BMP, GIF, ...)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("decoding images needs Pillow: pip install opbuild[vision] (or pillow)") from None
    raw = np.asarray(data)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise TypeError(f"Decode: the input must be the 1-D uint8 bytes of an image file, got {raw.dtype} "
                        f"{raw.shape}")
    try:
        with Image.open(io.BytesIO(raw.tobytes())) as img:
            return np.asarray(img.convert("RGB"), np.uint8).copy()
    except Exception as e:  # Pillow raises several types for bytes that are not an image
        raise RuntimeError(f"Decode: the bytes are not an image Pillow can decode ({e})") from None


class Decode:
    """``Decode(to_pil=False)``: image file bytes -> RGB (H, W, 3) uint8, or with ``to_pil`` a PIL RGB image."""

    def __init__(self, to_pil: bool = False) -> None:
        self.to_pil = bool(to_pil)

    def __call__(self, img: Any) -> Any:
        arr = decode_image(img)
        if not self.to_pil:
            return arr
        from PIL import Image  # present: decode_image needed it

        return Image.fromarray(arr)


def _image(who: str, img: Any) -> np.ndarray:
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise TypeError(f"{who}: the input must be an image of shape (H, W) or (H, W, C), got {arr.shape}")
    return arr


def _fixed_coefficients(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per output position: the two source positions and their weights in 1/2048 units, computed in float32
    with half-pixel centres and clamped at the borders (OpenCV's INTER_LINEAR coefficient table)."""
    x = ((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5).astype(np.float32)
    lo = np.floor(x).astype(np.int64)
    frac = (x - lo).astype(np.float32)
    low, high = lo < 0, lo >= n_in - 1
    frac[low | high] = 0
    lo[low], lo[high] = 0, n_in - 1
    w0 = np.rint((np.float32(1) - frac) * np.float32(2048)).astype(np.int64)
    w1 = np.rint(frac * np.float32(2048)).astype(np.int64)
    return lo, np.minimum(lo + 1, n_in - 1), w0, w1


def _resize_linear_u8(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resampling of a uint8 image in OpenCV's fixed-point arithmetic (11-bit weights, the vertical
    pass on the horizontal sums shifted right by 4, rounded), which MindSpore's Resize gives bit for bit in
    the interior; rows clamped at the image border may still differ by one level."""
    x0, x1, a0, a1 = _fixed_coefficients(w, img.shape[1])
    y0, y1, b0, b1 = _fixed_coefficients(h, img.shape[0])
    src = img.astype(np.int64)
    shape = (1, -1) + (1,) * (img.ndim - 2)
    rows = src[:, x0] * a0.reshape(shape) + src[:, x1] * a1.reshape(shape)  # (H, w, ...) sums
    col = (-1, 1) + (1,) * (img.ndim - 2)
    top = ((rows[y0] >> 4) * b0.reshape(col)) >> 16
    bottom = ((rows[y1] >> 4) * b1.reshape(col)) >> 16
    return np.clip((top + bottom + 2) >> 2, 0, 255).astype(np.uint8)


def _resize_linear(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bilinear resampling with half-pixel centres (sample points clamped to the image), as OpenCV's
    INTER_LINEAR that MindSpore's Resize uses; integer images are rounded back to their dtype."""
    src = img.astype(np.float64)

    def coords(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        x = np.clip(x, 0, n_in - 1)
        lo = np.floor(x).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, x - lo

    y0, y1, fy = coords(h, img.shape[0])
    x0, x1, fx = coords(w, img.shape[1])
    fy = fy.reshape(-1, 1, *([1] * (img.ndim - 2)))
    fx = fx.reshape(1, -1, *([1] * (img.ndim - 2)))
    top = src[y0][:, x0] * (1 - fx) + src[y0][:, x1] * fx
    bottom = src[y1][:, x0] * (1 - fx) + src[y1][:, x1] * fx
    out = top * (1 - fy) + bottom * fy
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
    return out.astype(img.dtype)


def _resize_nearest(img: np.ndarray, h: int, w: int) -> np.ndarray:
    rows = np.minimum((np.arange(h) * (img.shape[0] / h)).astype(np.int64), img.shape[0] - 1)
    cols = np.minimum((np.arange(w) * (img.shape[1] / w)).astype(np.int64), img.shape[1] - 1)
    return img[rows][:, cols]


class Resize:
    """``Resize(size, interpolation=Inter.LINEAR)``: ``size`` (h, w), or an int for the shorter side (the
    other keeps the aspect ratio). LINEAR, NEAREST and CUBIC are supported; the dtype is kept."""

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR) -> None:
        if isinstance(size, int) and not isinstance(size, bool):
            sizes: tuple[int, ...] = (size,)
        elif isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, int) for s in size):
            sizes = tuple(size)
        else:
            raise TypeError(f"Resize: size must be an int or a (height, width) pair, got {size!r}")
        if any(s <= 0 for s in sizes):
            raise ValueError(f"Resize: size must be positive, got {size!r}")
        if Inter(interpolation) not in (Inter.LINEAR, Inter.NEAREST, Inter.CUBIC):
            raise NotImplementedError(f"Resize: interpolation {Inter(interpolation).name} is not supported; use "
                                      "Inter.LINEAR, Inter.NEAREST or Inter.CUBIC")
        self.size, self.interpolation = sizes, Inter(interpolation)

    def __call__(self, img: Any) -> Any:
        if is_pil(img):  # MindSpore resizes a PIL image with Pillow, and returns one
            w, h = img.size
            nh, nw = self._target(h, w)
            from PIL import Image  # present: the input is a PIL image

            method = {Inter.LINEAR: Image.BILINEAR, Inter.NEAREST: Image.NEAREST, Inter.CUBIC: Image.BICUBIC}
            return img.resize((nw, nh), method[self.interpolation])
        arr = _image("Resize", img)
        nh, nw = self._target(*arr.shape[:2])
        if self.interpolation == Inter.NEAREST:
            return _resize_nearest(arr, nh, nw)
        if self.interpolation == Inter.CUBIC:
            return resize_cubic(arr, nh, nw)
        if arr.dtype == np.uint8:
            return _resize_linear_u8(arr, nh, nw)
        return _resize_linear(arr, nh, nw)


    def _target(self, h: int, w: int) -> tuple[int, int]:
        if len(self.size) == 2:
            return self.size[0], self.size[1]
        if h <= w:
            return self.size[0], int(w * self.size[0] / h)
        return int(h * self.size[0] / w), self.size[0]


class Rescale:
    """``Rescale(rescale, shift)``: ``img * rescale + shift`` as float32."""

    def __init__(self, rescale: float, shift: float) -> None:
        self.rescale, self.shift = float(rescale), float(shift)

    def __call__(self, img: Any) -> np.ndarray:
        return (np.asarray(img, np.float32) * np.float32(self.rescale) + np.float32(self.shift)).astype(np.float32)


class Normalize:
    """``Normalize(mean, std, is_hwc=True)``: ``(img - mean) / std`` per channel (channels last unless
    ``is_hwc`` is False), as float32; mean and std are in pixel units (e.g. ``[123.675, 116.28, 103.53]``)."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True) -> None:
        self.mean = np.asarray(mean, np.float32)
        self.std = np.asarray(std, np.float32)
        if self.mean.ndim != 1 or self.mean.shape != self.std.shape:
            raise ValueError(f"Normalize: mean and std must be lists of one value per channel, got {mean} and {std}")
        if np.any(self.std <= 0):
            raise ValueError(f"Normalize: std values must be positive, got {std}")
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image("Normalize", img).astype(np.float32)
        shape = (1, 1, -1) if self.is_hwc else (-1, 1, 1)
        if arr.ndim == 2:
            shape = (1, 1)
        channels = arr.shape[-1 if self.is_hwc else 0] if arr.ndim == 3 else 1
        if self.mean.size not in (1, channels):
            raise ValueError(f"Normalize: {self.mean.size} mean values for an image of {channels} channels")
        return ((arr - self.mean.reshape(shape)) / self.std.reshape(shape)).astype(np.float32)


class HWC2CHW:
    """``HWC2CHW()``: (H, W, C) -> (C, H, W) (a (H, W) image becomes (1, H, W))."""

    def __call__(self, img: Any) -> np.ndarray:
        arr = _image("HWC2CHW", img)
        if arr.ndim == 2:
            arr = arr[..., None]
        return np.ascontiguousarray(arr.transpose(2, 0, 1))


__all__ = ["Inter", "Decode", "Resize", "Rescale", "Normalize", "HWC2CHW", "decode_image"]
