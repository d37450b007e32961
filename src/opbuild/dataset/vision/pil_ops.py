"""The PIL-image operations of ``mindspore.dataset.vision`` (Pillow: ``pip install opbuild[vision]``):
``ToPIL``, ``FiveCrop``, ``TenCrop``, ``Grayscale``, ``RandomGrayscale`` and ``RandomPerspective``; they take
and return ``PIL.Image`` objects (arrays are converted), as MindSpore's do. ``ToTensor`` and the NumPy
operations accept their results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import probability, rng, size_pair
from .basic import Inter


def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("PIL-image operations need Pillow: pip install opbuild[vision] (or pillow)") from None
    return Image


def to_pil(img: Any) -> Any:
    """``img`` as a PIL image (an (H, W) or (H, W, 1/3/4) uint8 array is converted; PIL images pass)."""
    image_mod = _pil()
    if isinstance(img, image_mod.Image):
        return img
    arr = np.asarray(img)
    if arr.dtype != np.uint8 or arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (1, 3, 4)):
        raise TypeError(f"ToPIL: the input must be a uint8 (H, W) or (H, W, 1/3/4) image, got {arr.dtype} "
                        f"{arr.shape}")
    return image_mod.fromarray(arr[..., 0] if arr.ndim == 3 and arr.shape[2] == 1 else arr)


class ToPIL:
    """``ToPIL()``: a NumPy image as a PIL image."""

    def __call__(self, img: Any) -> Any:
        return to_pil(img)


def _five(img: Any, h: int, w: int) -> tuple[Any, ...]:
    width, height = img.size
    if h > height or w > width:
        raise ValueError(f"FiveCrop: crop size ({h}, {w}) exceeds the image ({height}, {width})")
    top, left = int(round((height - h) / 2.0)), int(round((width - w) / 2.0))
    boxes = [(0, 0, w, h), (width - w, 0, width, h), (0, height - h, w, height),
             (width - w, height - h, width, height), (left, top, left + w, top + h)]
    return tuple(img.crop(b) for b in boxes)


class FiveCrop:
    """``FiveCrop(size)``: the four corner crops and the centre crop of ``size``, as a tuple."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.h, self.w = size_pair("FiveCrop", size)

    def __call__(self, img: Any) -> tuple[Any, ...]:
        return _five(to_pil(img), self.h, self.w)


class TenCrop:
    """``TenCrop(size, use_vertical_flip=False)``: ``FiveCrop`` of the image and of its horizontal (or
    vertical) mirror, as a tuple of ten."""

    def __init__(self, size: int | Sequence[int], use_vertical_flip: bool = False) -> None:
        self.h, self.w = size_pair("TenCrop", size)
        self.vertical = bool(use_vertical_flip)

    def __call__(self, img: Any) -> tuple[Any, ...]:
        pil = to_pil(img)
        image_mod = _pil()
        flipped = pil.transpose(image_mod.FLIP_TOP_BOTTOM if self.vertical else image_mod.FLIP_LEFT_RIGHT)
        return _five(pil, self.h, self.w) + _five(flipped, self.h, self.w)


class Grayscale:
    """``Grayscale(num_output_channels=1)``: PIL's luma conversion, with 1 or 3 (equal) channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels!r}")
        self.channels = num_output_channels

    def __call__(self, img: Any) -> Any:
        gray = to_pil(img).convert("L")
        return gray if self.channels == 1 else _pil().merge("RGB", (gray, gray, gray))


class RandomGrayscale:
    """``RandomGrayscale(prob=0.1)``: with probability ``prob``, grey with the input's channel count."""

    def __init__(self, prob: float = 0.1) -> None:
        self.prob = probability("RandomGrayscale", prob)

    def __call__(self, img: Any) -> Any:
        pil = to_pil(img)
        if rng().random() >= self.prob:
            return pil
        return Grayscale(1 if pil.mode == "L" else 3)(pil)


def _perspective_coeffs(start: list[tuple[float, float]], end: list[tuple[float, float]]) -> list[float]:
    """PIL's 8 perspective coefficients mapping output points ``end`` back to input points ``start``."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(start, end, strict=True):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs += [sx, sy]
    return np.linalg.solve(np.array(rows, np.float64), np.array(rhs, np.float64)).tolist()


_PIL_FILTERS = {Inter.NEAREST: 0, Inter.LINEAR: 2, Inter.CUBIC: 3}


class RandomPerspective:
    """``RandomPerspective(distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC)``: with probability
    ``prob``, move each corner inwards by up to ``distortion_scale`` of half the size and warp."""

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5,
                 interpolation: Inter = Inter.BICUBIC) -> None:
        if not 0 <= distortion_scale <= 1:
            raise ValueError(f"RandomPerspective: distortion_scale must be in [0, 1], got {distortion_scale!r}")
        self.scale, self.prob = float(distortion_scale), probability("RandomPerspective", prob)
        if Inter(interpolation) not in _PIL_FILTERS:
            raise ValueError(f"RandomPerspective: interpolation must be NEAREST, LINEAR or BICUBIC, got "
                             f"{Inter(interpolation).name}")
        self.interpolation = Inter(interpolation)

    def __call__(self, img: Any) -> Any:
        pil = to_pil(img)
        gen = rng()
        if gen.random() >= self.prob:
            return pil
        w, h = pil.size
        dw, dh = int(self.scale * w / 2), int(self.scale * h / 2)
        start = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        end = [(int(gen.integers(0, dw + 1)), int(gen.integers(0, dh + 1))),
               (w - 1 - int(gen.integers(0, dw + 1)), int(gen.integers(0, dh + 1))),
               (w - 1 - int(gen.integers(0, dw + 1)), h - 1 - int(gen.integers(0, dh + 1))),
               (int(gen.integers(0, dw + 1)), h - 1 - int(gen.integers(0, dh + 1)))]
        coeffs = _perspective_coeffs(start, end)
        return pil.transform((w, h), _pil().PERSPECTIVE, coeffs, _PIL_FILTERS[self.interpolation])


__all__ = ["ToPIL", "to_pil", "FiveCrop", "TenCrop", "Grayscale", "RandomGrayscale", "RandomPerspective"]
