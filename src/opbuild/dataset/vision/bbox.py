"""Vision transforms that move bounding boxes with the image: ``ResizeWithBBox``, ``RandomResizeWithBBox``,
``RandomHorizontalFlipWithBBox``, ``RandomVerticalFlipWithBBox``, ``RandomCropWithBBox`` and
``RandomResizedCropWithBBox``. Boxes are rows of (x, y, width, height[, extra columns kept as they are])."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import Border, image, pad, padding4, probability, rng, size_pair
from .basic import Inter, Resize
from .geometry import RandomResizedCrop


def _boxes(who: str, bbox: Any) -> np.ndarray:
    arr = np.asarray(bbox)
    if arr.ndim != 2 or arr.shape[1] < 4:
        raise ValueError(f"{who}: bounding boxes must be (N, 4+) rows of (x, y, width, height), got {arr.shape}")
    return arr


def _crop_boxes(boxes: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    """Boxes moved into a crop and clipped to it; boxes left with no area are dropped."""
    out = boxes.astype(np.float64).copy()
    x0 = np.clip(out[:, 0] - left, 0, w)
    y0 = np.clip(out[:, 1] - top, 0, h)
    x1 = np.clip(out[:, 0] + out[:, 2] - left, 0, w)
    y1 = np.clip(out[:, 1] + out[:, 3] - top, 0, h)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    keep = (out[:, 2] > 0) & (out[:, 3] > 0)
    return out[keep].astype(boxes.dtype)


def _scale_boxes(boxes: np.ndarray, sy: float, sx: float) -> np.ndarray:
    out = boxes.astype(np.float64).copy()
    out[:, [0, 2]] *= sx
    out[:, [1, 3]] *= sy
    return out.astype(boxes.dtype)


class ResizeWithBBox:
    """``ResizeWithBBox(size, interpolation=Inter.LINEAR)``: ``Resize`` with the boxes scaled alike."""

    def __init__(self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR) -> None:
        self.resize = Resize(size, interpolation)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, boxes = image("ResizeWithBBox", img), _boxes("ResizeWithBBox", bbox)
        out = self.resize(arr)
        return out, _scale_boxes(boxes, out.shape[0] / arr.shape[0], out.shape[1] / arr.shape[1])


class RandomResizeWithBBox:
    """``RandomResizeWithBBox(size)``: ``ResizeWithBBox`` with a random interpolation (LINEAR or NEAREST)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.ops = [ResizeWithBBox(size, Inter.LINEAR), ResizeWithBBox(size, Inter.NEAREST)]

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        return self.ops[int(rng().integers(0, 2))](img, bbox)


class RandomHorizontalFlipWithBBox:
    """``RandomHorizontalFlipWithBBox(prob=0.5)``: mirror left-right (boxes too) with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomHorizontalFlipWithBBox", prob)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, boxes = image("RandomHorizontalFlipWithBBox", img), _boxes("RandomHorizontalFlipWithBBox", bbox).copy()
        if rng().random() >= self.prob:
            return arr.copy(), boxes
        boxes[:, 0] = arr.shape[1] - boxes[:, 0] - boxes[:, 2]
        return np.ascontiguousarray(arr[:, ::-1]), boxes


class RandomVerticalFlipWithBBox:
    """``RandomVerticalFlipWithBBox(prob=0.5)``: mirror top-bottom (boxes too) with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomVerticalFlipWithBBox", prob)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, boxes = image("RandomVerticalFlipWithBBox", img), _boxes("RandomVerticalFlipWithBBox", bbox).copy()
        if rng().random() >= self.prob:
            return arr.copy(), boxes
        boxes[:, 1] = arr.shape[0] - boxes[:, 1] - boxes[:, 3]
        return np.ascontiguousarray(arr[::-1]), boxes


class RandomCropWithBBox:
    """``RandomCropWithBBox(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT)``: ``RandomCrop`` with the boxes shifted and clipped to the crop."""

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value: int | Sequence[int] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.h, self.w = size_pair("RandomCropWithBBox", size)
        self.padding = padding4("RandomCropWithBBox", padding) if padding is not None else (0, 0, 0, 0)
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, Border(padding_mode)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, boxes = image("RandomCropWithBBox", img), _boxes("RandomCropWithBBox", bbox)
        left, top = self.padding[0], self.padding[1]
        arr = pad(arr, *self.padding, self.fill_value, self.padding_mode)
        if self.pad_if_needed:
            ph, pw = max(self.h - arr.shape[0], 0), max(self.w - arr.shape[1], 0)
            if ph or pw:
                arr = pad(arr, pw, ph, pw, ph, self.fill_value, self.padding_mode)
                left, top = left + pw, top + ph
        if self.h > arr.shape[0] or self.w > arr.shape[1]:
            raise ValueError(f"RandomCropWithBBox: crop size ({self.h}, {self.w}) exceeds the (padded) image "
                             f"{arr.shape[:2]}; pass padding or pad_if_needed=True")
        shifted = boxes.astype(np.float64).copy()
        shifted[:, 0] += left
        shifted[:, 1] += top
        gen = rng()
        y = int(gen.integers(0, arr.shape[0] - self.h + 1))
        x = int(gen.integers(0, arr.shape[1] - self.w + 1))
        crop = np.ascontiguousarray(arr[y:y + self.h, x:x + self.w])
        return crop, _crop_boxes(shifted.astype(boxes.dtype), y, x, self.h, self.w)


class RandomResizedCropWithBBox:
    """``RandomResizedCropWithBBox(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.LINEAR,
    max_attempts=10)``: ``RandomResizedCrop`` with the boxes cropped and scaled alike."""

    def __init__(self, size: int | Sequence[int], scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: Inter = Inter.LINEAR,
                 max_attempts: int = 10) -> None:
        self.op = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, boxes = image("RandomResizedCropWithBBox", img), _boxes("RandomResizedCropWithBBox", bbox)
        top, left, ch, cw = self.op.region(*arr.shape[:2])
        out = self.op.resize(np.ascontiguousarray(arr[top:top + ch, left:left + cw]))
        cropped = _crop_boxes(boxes, top, left, ch, cw)
        return out, _scale_boxes(cropped, out.shape[0] / ch, out.shape[1] / cw)


__all__ = ["ResizeWithBBox", "RandomResizeWithBBox", "RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox",
           "RandomCropWithBBox", "RandomResizedCropWithBBox"]
