"""``Affine`` and ``RandomAffine`` of ``mindspore.dataset.vision``: rotation, translation, scale and shear
about the image centre in one inverse-mapped warp (the matrix torchvision and MindSpore use)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import image, rng
from .basic import Inter
from .geometry import warp


def affine_inverse(w: int, h: int, degrees: float, translate: Sequence[float], scale: float,
                   shear: Sequence[float]) -> np.ndarray:
    """The 2x3 output -> input map of an affine transform about the centre of a (h, w) image (``translate``
    in pixels)."""
    cx, cy = (w - 1) * 0.5, (h - 1) * 0.5
    rot, sx, sy = math.radians(degrees), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    forward = np.array([[a, b], [c, d]]) * scale
    inv = np.linalg.inv(forward)
    tx, ty = translate
    offset = np.array([cx, cy]) - inv @ np.array([cx + tx, cy + ty])
    return np.hstack([inv, offset[:, None]])


def _shear_pair(shear: float | Sequence[float]) -> tuple[float, float]:
    if isinstance(shear, (int, float)):
        return float(shear), 0.0
    return (float(shear[0]), float(shear[1]) if len(shear) > 1 else 0.0)


class Affine:
    """``Affine(degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0)``: rotate by
    ``degrees`` (clockwise, as MindSpore's Affine does), shift by ``translate`` (x, y fractions of the width and
    height, each in [-1, 1]), scale, and shear by ``shear`` degrees (a number: along x only)."""

    def __init__(self, degrees: float, translate: Sequence[float], scale: float, shear: float | Sequence[float],
                 resample: Inter = Inter.NEAREST, fill_value: int | Sequence[int] = 0) -> None:
        if not (isinstance(translate, (list, tuple)) and len(translate) == 2 and all(-1 <= t <= 1 for t in translate)):
            raise ValueError(f"Affine: translate must be an (x, y) pair of fractions in [-1, 1], got {translate!r}")
        if scale <= 0:
            raise ValueError(f"Affine: scale must be positive, got {scale!r}")
        self.degrees, self.translate, self.scale = float(degrees), (float(translate[0]), float(translate[1])), scale
        self.shear, self.resample, self.fill_value = _shear_pair(shear), Inter(resample), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Affine", img)
        h, w = arr.shape[:2]
        shift = (self.translate[0] * w, self.translate[1] * h)
        inverse = affine_inverse(w, h, self.degrees, shift, float(self.scale), self.shear)
        return warp(arr, inverse, (h, w), self.resample, self.fill_value)


def _span(value: Any, name: str) -> tuple[float, float]:
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"RandomAffine: a single {name} value must be non-negative, got {value!r}")
        return -float(value), float(value)
    return float(value[0]), float(value[1])


class RandomAffine:
    """``RandomAffine(degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0)``:
    ``Affine`` with parameters drawn uniformly: the angle from ``degrees``, the shift as fractions of the
    width/height from ``translate`` ((min_x, max_x[, min_y, max_y])), the scale from ``scale`` and the shear
    from ``shear`` (a number s means (-s, s) along x; four values give x and y ranges)."""

    def __init__(self, degrees: float | Sequence[float], translate: Sequence[float] | None = None,
                 scale: Sequence[float] | None = None, shear: float | Sequence[float] | None = None,
                 resample: Inter = Inter.NEAREST, fill_value: int | Sequence[int] = 0) -> None:
        self.degrees = _span(degrees, "degrees")
        t = [0.0, 0.0, 0.0, 0.0] if translate is None else [float(v) for v in translate]
        self.translate = (t[0], t[1], t[2], t[3]) if len(t) == 4 else (t[0], t[1], 0.0, 0.0)
        self.scale = (1.0, 1.0) if scale is None else (float(scale[0]), float(scale[1]))
        if shear is None:
            self.shear = (0.0, 0.0, 0.0, 0.0)
        elif isinstance(shear, (int, float)):
            self.shear = (-float(shear), float(shear), 0.0, 0.0)
        else:
            sh = [float(v) for v in shear]
            self.shear = (sh[0], sh[1], sh[2], sh[3]) if len(sh) == 4 else (sh[0], sh[1], 0.0, 0.0)
        self.resample, self.fill_value = Inter(resample), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomAffine", img)
        h, w = arr.shape[:2]
        gen = rng()
        angle = gen.uniform(*self.degrees)
        tx = gen.uniform(self.translate[0], self.translate[1])
        ty = gen.uniform(self.translate[2], self.translate[3])
        scale = gen.uniform(*self.scale)
        shear = (gen.uniform(self.shear[0], self.shear[1]), gen.uniform(self.shear[2], self.shear[3]))
        return Affine(angle, (tx, ty), scale, shear, self.resample, self.fill_value)(arr)


__all__ = ["Affine", "RandomAffine", "affine_inverse"]
