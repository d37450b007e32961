"""Bounding-box forms of ``mindspore.dataset.vision``'s resize and crop transforms (re-exported by vision.py):
``ResizeWithBBox``, ``RandomResizeWithBBox``, ``RandomCropWithBBox`` and ``RandomResizedCropWithBBox`` take
``(image, bbox)`` with boxes as rows ``(x, y, width, height, ...)`` and move the boxes with the pixels (crops
clip them to the kept region)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .vision_geometry import Border, RandomResizedCrop, image, pad, resize, rng


def _boxes(who: str, bbox: Any) -> np.ndarray:
    arr = np.asarray(bbox)
    if arr.ndim != 2 or arr.shape[1] < 4:
        raise TypeError(f"{who}: bbox must be an (N, 4+) array of (x, y, width, height), got {arr.shape}")
    return arr


def _target(size: int | Sequence[int], h: int, w: int) -> tuple[int, int]:
    if isinstance(size, int):
        return (size, int(w * size / h)) if h <= w else (int(h * size / w), size)
    return int(size[0]), int(size[1])


def _scale(box: np.ndarray, sy: float, sx: float) -> np.ndarray:
    out = box.astype(np.float64)
    out[:, [0, 2]] *= sx
    out[:, [1, 3]] *= sy
    return out.astype(box.dtype)


def _crop_boxes(box: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    out = box.astype(np.float64)
    x0 = np.clip(out[:, 0] - left, 0, w)
    y0 = np.clip(out[:, 1] - top, 0, h)
    x1 = np.clip(out[:, 0] + out[:, 2] - left, 0, w)
    y1 = np.clip(out[:, 1] + out[:, 3] - top, 0, h)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    return out.astype(box.dtype)


class ResizeWithBBox:
    """``ResizeWithBBox(size, interpolation=Inter.LINEAR)``: Resize, boxes scaled alike."""

    def __init__(self, size: int | Sequence[int], interpolation: Any = 1) -> None:
        self.size, self.interpolation = size, interpolation

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, box = image("ResizeWithBBox", img), _boxes("ResizeWithBBox", bbox)
        h, w = arr.shape[:2]
        nh, nw = _target(self.size, h, w)
        return resize(arr, nh, nw, self.interpolation), _scale(box, nh / h, nw / w)


class RandomResizeWithBBox:
    """``RandomResizeWithBBox(size)``: ResizeWithBBox with a randomly chosen interpolation."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size, self._rng = size, rng()

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        return ResizeWithBBox(self.size, int(self._rng.integers(0, 2)))(img, bbox)


class RandomCropWithBBox:
    """``RandomCropWithBBox(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT)``: RandomCrop, boxes shifted and clipped to the crop."""

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value=0, padding_mode: Border = Border.CONSTANT) -> None:
        self.size = (size, size) if isinstance(size, int) else (int(size[0]), int(size[1]))
        if padding is None:
            padding = (0, 0, 0, 0)
        elif isinstance(padding, int):
            padding = (padding,) * 4
        elif len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        self.padding = tuple(int(p) for p in padding)
        self.pad_if_needed, self.fill, self.mode, self._rng = bool(pad_if_needed), fill_value, \
            Border(padding_mode), rng()

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, box = image("RandomCropWithBBox", img), _boxes("RandomCropWithBBox", bbox).copy()
        left, top, right, bottom = self.padding
        arr = pad(arr, top, bottom, left, right, self.fill, self.mode)
        box = _crop_boxes(box, -top, -left, arr.shape[0], arr.shape[1])
        h, w = self.size
        if self.pad_if_needed and (arr.shape[0] < h or arr.shape[1] < w):
            dh, dw = max(h - arr.shape[0], 0), max(w - arr.shape[1], 0)
            arr = pad(arr, dh, dh, dw, dw, self.fill, self.mode)
            box = _crop_boxes(box, -dh, -dw, arr.shape[0], arr.shape[1])
        if arr.shape[0] < h or arr.shape[1] < w:
            raise ValueError(f"RandomCropWithBBox: size {self.size} exceeds the (padded) image {arr.shape[:2]}")
        y = int(self._rng.integers(0, arr.shape[0] - h + 1))
        x = int(self._rng.integers(0, arr.shape[1] - w + 1))
        return np.ascontiguousarray(arr[y:y + h, x:x + w]), _crop_boxes(box, y, x, h, w)


class RandomResizedCropWithBBox:
    """``RandomResizedCropWithBBox(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)``: RandomResizedCrop, boxes clipped to the crop and scaled."""

    def __init__(self, size: int | Sequence[int], scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation: Any = 1, max_attempts: int = 10) -> None:
        self.crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, box = image("RandomResizedCropWithBBox", img), _boxes("RandomResizedCropWithBBox", bbox)
        top, left, ch, cw = self.crop._box(*arr.shape[:2])
        out = resize(np.ascontiguousarray(arr[top:top + ch, left:left + cw]), *self.crop.size,
                     self.crop.interpolation)
        return out, _scale(_crop_boxes(box, top, left, ch, cw), self.crop.size[0] / ch, self.crop.size[1] / cw)


__all__ = ["ResizeWithBBox", "RandomResizeWithBBox", "RandomCropWithBBox", "RandomResizedCropWithBBox"]
