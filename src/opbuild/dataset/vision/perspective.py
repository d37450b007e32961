"""``Perspective`` of ``mindspore.dataset.vision``: the projective warp taking four start points to four end
points (OpenCV's getPerspectiveTransform + warpPerspective, which MindSpore uses)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import image
from .basic import Inter
from .geometry import warp


def homography(src: Sequence[Sequence[float]], dst: Sequence[Sequence[float]]) -> np.ndarray:
    """The 3x3 matrix mapping the four ``src`` points onto the four ``dst`` points."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    try:
        h = np.linalg.solve(np.array(rows, np.float64), np.array(rhs, np.float64))
    except np.linalg.LinAlgError:
        raise ValueError("Perspective: the points are degenerate (three of them on a line)") from None
    return np.append(h, 1.0).reshape(3, 3)


def _points(name: str, pts: Any) -> list[list[float]]:
    arr = np.asarray(pts, np.float64)
    if arr.shape != (4, 2):
        raise ValueError(f"Perspective: {name} must be four (x, y) points, got shape {arr.shape}")
    return arr.tolist()


class Perspective:
    """``Perspective(start_points, end_points, interpolation=Inter.BILINEAR)``: warp so that each start
    point lands on its end point (the image keeps its size; outside pixels are 0)."""

    def __init__(self, start_points: Sequence[Sequence[float]], end_points: Sequence[Sequence[float]],
                 interpolation: Inter = Inter.BILINEAR) -> None:
        self.forward = homography(_points("start_points", start_points), _points("end_points", end_points))
        if Inter(interpolation) not in (Inter.NEAREST, Inter.LINEAR):
            raise ValueError(f"Perspective: interpolation must be NEAREST or BILINEAR here, got "
                             f"{Inter(interpolation).name}")
        self.interpolation = Inter(interpolation)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Perspective", img)
        return warp(arr, np.linalg.inv(self.forward), arr.shape[:2], self.interpolation, 0)


__all__ = ["Perspective", "homography"]
