"""The PIL-image side of ``mindspore.dataset.vision`` (re-exported by vision.py): ``ToPIL``, ``Decode(to_pil=
True)``'s result, and the transforms MindSpore applies to PIL images only (``FiveCrop``, ``TenCrop``,
``Grayscale``, ``RandomGrayscale``). They need Pillow (``pip install opbuild[vision]``); the NumPy transforms
accept PIL images too (read as arrays)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np

from .vision_geometry import rng


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("PIL images need Pillow: pip install opbuild[vision] (or pillow)") from None
    return Image


def decode_pil(data: np.ndarray):
    """The RGB PIL image of encoded image bytes."""
    Image = _pil()
    raw = np.asarray(data)
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise TypeError(f"Decode: the input must be the 1-D uint8 bytes of an image file, got {raw.dtype} "
                        f"{raw.shape}")
    img = Image.open(io.BytesIO(raw.tobytes()))
    return img.convert("RGB")


def _as_pil(who: str, img: Any):
    Image = _pil()
    if isinstance(img, Image.Image):
        return img
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise TypeError(f"{who}: the input must be a PIL image or an (H, W[, C]) array, got {arr.shape}")
    return Image.fromarray(arr)


class ToPIL:
    """``ToPIL()``: a NumPy (H, W[, C]) uint8 image as a PIL image."""

    def __call__(self, img: Any):
        return _as_pil("ToPIL", img)


def _size(size: int | Sequence[int]) -> tuple[int, int]:
    return (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))


def _five(img, h: int, w: int) -> tuple:
    width, height = img.size
    if h > height or w > width:
        raise ValueError(f"FiveCrop: crop size {(h, w)} exceeds the image {(height, width)}")
    top, left = int(round((height - h) / 2.0)), int(round((width - w) / 2.0))
    return (img.crop((0, 0, w, h)), img.crop((width - w, 0, width, h)), img.crop((0, height - h, w, height)),
            img.crop((width - w, height - h, width, height)), img.crop((left, top, left + w, top + h)))


class FiveCrop:
    """``FiveCrop(size)``: the four corner crops and the centre crop of a PIL image."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _size(size)

    def __call__(self, img: Any) -> tuple:
        return _five(_as_pil("FiveCrop", img), *self.size)


class TenCrop:
    """``TenCrop(size, use_vertical_flip=False)``: FiveCrop of the image and of its mirror image."""

    def __init__(self, size: int | Sequence[int], use_vertical_flip: bool = False) -> None:
        self.size, self.vertical = _size(size), bool(use_vertical_flip)

    def __call__(self, img: Any) -> tuple:
        Image = _pil()
        pil = _as_pil("TenCrop", img)
        flipped = pil.transpose(Image.FLIP_TOP_BOTTOM if self.vertical else Image.FLIP_LEFT_RIGHT)
        return _five(pil, *self.size) + _five(flipped, *self.size)


class Grayscale:
    """``Grayscale(num_output_channels=1)``: a PIL image in grey levels (1 or 3 channels)."""

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
        self.channels = num_output_channels

    def __call__(self, img: Any):
        gray = _as_pil("Grayscale", img).convert("L")
        return gray if self.channels == 1 else _pil().merge("RGB", (gray, gray, gray))


class RandomGrayscale:
    """``RandomGrayscale(prob=0.1)``: Grayscale (keeping the channel count) with probability ``prob``."""

    def __init__(self, prob: float = 0.1) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomGrayscale: prob must be in [0, 1], got {prob!r}")
        self.prob, self._rng = float(prob), rng()

    def __call__(self, img: Any):
        pil = _as_pil("RandomGrayscale", img)
        if self._rng.random() >= self.prob:
            return pil
        return Grayscale(1 if pil.mode == "L" else 3)(pil)


__all__ = ["ToPIL", "FiveCrop", "TenCrop", "Grayscale", "RandomGrayscale"]
