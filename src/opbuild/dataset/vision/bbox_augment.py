"""``BoundingBoxAugment`` of ``mindspore.dataset.vision``: apply an image transform to the regions of some of
the bounding boxes (each box independently, with probability ``ratio``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import like, rng
from .basic import Resize

# MindSpore tolerates boxes that overshoot the image (or start before it) by float rounding only.
_EPS = 1e-4


def _checked_boxes(arr: np.ndarray, bbox: Any) -> np.ndarray:
    boxes = np.asarray(bbox)
    if boxes.ndim < 2:
        raise RuntimeError(f"BoundingBoxAugment: the boxes must be a 2-D (N, 4+) array of (x, y, width, height) "
                           f"rows, got {boxes.ndim} dimension(s)")
    if boxes.dtype != np.float32:
        raise RuntimeError(f"BoundingBoxAugment: the boxes must be float32, got {boxes.dtype}; convert them with "
                           "boxes.astype(numpy.float32)")
    if boxes.shape[1] < 4:
        raise RuntimeError(f"BoundingBoxAugment: each box needs at least 4 values (x, y, width, height), got "
                           f"{boxes.shape[1]}")
    h, w = arr.shape[:2]
    for x, y, bw, bh in boxes[:, :4].astype(np.float64):
        if x + bw - w > _EPS or y + bh - h > _EPS:
            raise RuntimeError(f"BoundingBoxAugment: the box ({x}, {y}, {bw}, {bh}) goes beyond the image of "
                               f"width {w} and height {h}")
        if x < -_EPS or y < -_EPS:
            raise RuntimeError(f"BoundingBoxAugment: the box ({x}, {y}, {bw}, {bh}) has a negative corner")
    return boxes


class BoundingBoxAugment:
    """``BoundingBoxAugment(transform, ratio=0.3)``: for each box (in order, on the image as the earlier boxes
    left it), with probability ``ratio``, crop the box's region (coordinates truncated to ints), apply
    ``transform``, resize the result back to the region's size (bilinear) when it changed, and paste it
    back. Returns the image and the boxes unchanged. The draws follow ``ds.config.set_seed``."""

    def __init__(self, transform: Any, ratio: float = 0.3) -> None:
        if isinstance(transform, str) or not callable(transform):
            raise TypeError(f"BoundingBoxAugment: transform must be a vision transform, got "
                            f"{type(transform).__name__}")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
            raise TypeError(f"BoundingBoxAugment: ratio must be a float or an int, got {type(ratio).__name__}")
        if not 0.0 <= ratio <= 1.0:
            raise ValueError(f"BoundingBoxAugment: ratio must be in [0.0, 1.0], got {ratio}")
        self.transform, self.ratio = transform, float(ratio)

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray(img)
        if arr.ndim not in (2, 3):
            raise RuntimeError(f"BoundingBoxAugment: the image must be (H, W) or (H, W, C), got shape {arr.shape}; "
                               "decode it first")
        boxes = _checked_boxes(arr, bbox)
        out = arr.copy()
        gen = rng()
        for x, y, bw, bh in boxes[:, :4].astype(np.float32):
            if gen.random() >= self.ratio:
                continue
            x0, y0, w, h = int(x), int(y), int(bw), int(bh)
            res = np.asarray(self.transform(out[y0:y0 + h, x0:x0 + w].copy()))
            if res.shape[:2] != (h, w):
                res = Resize((h, w))(res)
            out[y0:y0 + h, x0:x0 + w] = like(res.reshape(out[y0:y0 + h, x0:x0 + w].shape), out.dtype)
        return out, boxes


__all__ = ["BoundingBoxAugment"]
