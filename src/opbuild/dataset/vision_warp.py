"""Rotations and affine maps of ``mindspore.dataset.vision`` (re-exported by vision.py): ``Rotate``,
``RandomRotation``, ``Affine`` and ``RandomAffine``, as
MindSpore computes them through OpenCV's warpAffine: counter-clockwise about ((w-1)/2, (h-1)/2) (or
``center``), nearest (round half up) or bilinear sampling (fractions in steps of 1/32), outside pixels
``fill_value``; ``expand`` grows the output to hold the whole rotated image."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .vision_geometry import image, rng


def _matrix(h: int, w: int, degrees: float, center: Sequence[float] | None, expand: bool):
    cx, cy = ((w - 1) / 2.0, (h - 1) / 2.0) if center is None else (float(center[0]), float(center[1]))
    a, b = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    m = np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])
    out_h, out_w = h, w
    if expand:
        bw, bh = w * abs(a) + h * abs(b), w * abs(b) + h * abs(a)
        m[0, 2] += bw / 2.0 - w / 2.0
        m[1, 2] += bh / 2.0 - h / 2.0
        out_h, out_w = int(round(bh)), int(round(bw))
    return m, out_h, out_w


def warp_affine(arr: np.ndarray, m: np.ndarray, out_h: int, out_w: int, bilinear: bool, fill) -> np.ndarray:
    """``arr`` mapped by the 2x3 source-to-destination matrix ``m`` into (out_h, out_w), with OpenCV's
    fixed-point source coordinates (1/1024, then 1/32 for bilinear weights; uint8 weights in 1/32768)."""
    inv = np.linalg.inv(np.vstack([m, [0, 0, 1]]))[:2]
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    ab = 1024
    delta = ab // 2 if not bilinear else ab // 32 // 2
    fx_fixed = np.rint(inv[0, 0] * xs * ab) + np.rint((inv[0, 1] * ys + inv[0, 2]) * ab) + delta
    fy_fixed = np.rint(inv[1, 0] * xs * ab) + np.rint((inv[1, 1] * ys + inv[1, 2]) * ab) + delta
    h, w = arr.shape[:2]
    src = arr.astype(np.float64)
    fillv = np.broadcast_to(np.asarray(fill, np.float64), arr.shape[2:]) if arr.ndim == 3 else float(np.asarray(fill))

    def take(yi, xi):
        ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        vals = src[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(ok[..., None] if arr.ndim == 3 else ok, vals, fillv)

    if not bilinear:
        out = take(np.floor(fy_fixed / ab).astype(int), np.floor(fx_fixed / ab).astype(int))
    else:
        gx, gy = np.floor(fx_fixed / 32).astype(np.int64), np.floor(fy_fixed / 32).astype(np.int64)
        x0, y0, fx, fy = gx >> 5, gy >> 5, (gx & 31) / 32.0, (gy & 31) / 32.0
        weights = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
        if arr.dtype == np.uint8:  # OpenCV's integer weights (they sum to 32768) and rounding
            weights = [np.rint(wgt * 32768) for wgt in weights]
            weights[0] = 32768 - weights[1] - weights[2] - weights[3]
        corners = [take(y0, x0), take(y0, x0 + 1), take(y0 + 1, x0), take(y0 + 1, x0 + 1)]
        if arr.ndim == 3:
            weights = [wgt[..., None] for wgt in weights]
        out = sum(c * wgt for c, wgt in zip(corners, weights))
        if arr.dtype == np.uint8:
            out = np.floor((out + 16384) / 32768)
    if arr.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(arr.dtype)


def _bilinear(resample: Any) -> bool:
    value = int(getattr(resample, "value", resample))
    if value not in (0, 1):
        raise NotImplementedError(f"rotation: resample {resample!r} is not supported; use Inter.NEAREST or "
                                  "Inter.BILINEAR")
    return value == 1


class Rotate:
    """``Rotate(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``."""

    def __init__(self, degrees: float, resample: Any = 0, expand: bool = False,
                 center: Sequence[float] | None = None, fill_value: Any = 0) -> None:
        self.degrees, self.bilinear, self.expand = float(degrees), _bilinear(resample), bool(expand)
        self.center, self.fill = center, fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Rotate", img)
        m, oh, ow = _matrix(arr.shape[0], arr.shape[1], self.degrees, self.center, self.expand)
        return warp_affine(arr, m, oh, ow, self.bilinear, self.fill)


class RandomRotation:
    """``RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``: Rotate
    by an angle drawn from ``degrees`` ((-d, d) for one number)."""

    def __init__(self, degrees: float | Sequence[float], resample: Any = 0, expand: bool = False,
                 center: Sequence[float] | None = None, fill_value: Any = 0) -> None:
        lo_hi = (-abs(degrees), abs(degrees)) if isinstance(degrees, (int, float)) else tuple(degrees)
        if len(lo_hi) != 2 or lo_hi[0] > lo_hi[1]:
            raise ValueError(f"RandomRotation: degrees must be a number or a (min, max) pair, got {degrees!r}")
        self.range, self.bilinear, self.expand = lo_hi, _bilinear(resample), bool(expand)
        self.center, self.fill, self._rng = center, fill_value, rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomRotation", img)
        m, oh, ow = _matrix(arr.shape[0], arr.shape[1], self._rng.uniform(*self.range), self.center, self.expand)
        return warp_affine(arr, m, oh, ow, self.bilinear, self.fill)


def _affine_matrix(h: int, w: int, degrees: float, translate: Sequence[float], scale: float,
                   shear: Sequence[float]) -> np.ndarray:
    """The source-to-destination matrix of MindSpore's Affine: about ((w-1)/2, (h-1)/2), ``translate`` as
    fractions of (width, height), shear angles in degrees along x then y."""
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    tx, ty = translate[0] * w, translate[1] * h
    rot, sx, sy = math.radians(degrees), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    inv = np.array([[d, -b, 0.0], [-c, a, 0.0]]) / scale  # destination -> source, before the centring
    inv[0, 2] = inv[0, 0] * (-cx - tx) + inv[0, 1] * (-cy - ty) + cx
    inv[1, 2] = inv[1, 0] * (-cx - tx) + inv[1, 1] * (-cy - ty) + cy
    return np.linalg.inv(np.vstack([inv, [0, 0, 1]]))[:2]


def _shear2(shear: float | Sequence[float]) -> tuple[float, float]:
    if isinstance(shear, (int, float)):
        return float(shear), 0.0
    return (float(shear[0]), float(shear[1]) if len(shear) > 1 else 0.0)


class Affine:
    """``Affine(degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0)``: rotation by
    ``degrees``, translation by ``translate`` (fractions of the width and height), scaling and shear
    (degrees; one number shears along x), about the pixel-grid centre."""

    def __init__(self, degrees: float, translate: Sequence[float], scale: float, shear: float | Sequence[float],
                 resample: Any = 0, fill_value: Any = 0) -> None:
        if len(translate) != 2 or not all(-1 <= t <= 1 for t in translate):
            raise ValueError(f"Affine: translate must be two fractions in [-1, 1], got {translate!r}")
        if scale <= 0:
            raise ValueError(f"Affine: scale must be positive, got {scale!r}")
        self.degrees, self.translate, self.scale = float(degrees), tuple(translate), float(scale)
        self.shear, self.bilinear, self.fill = _shear2(shear), _bilinear(resample), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Affine", img)
        h, w = arr.shape[:2]
        m = _affine_matrix(h, w, self.degrees, self.translate, self.scale, self.shear)
        return warp_affine(arr, m, h, w, self.bilinear, self.fill)


class RandomAffine:
    """``RandomAffine(degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0)``:
    Affine with parameters drawn from the given ranges (``translate``: (max_x, max_y) or
    (min_x, max_x, min_y, max_y) fractions; ``shear``: a number, (min_x, max_x) or four values)."""

    def __init__(self, degrees: float | Sequence[float], translate: Sequence[float] | None = None,
                 scale: Sequence[float] | None = None, shear: float | Sequence[float] | None = None,
                 resample: Any = 0, fill_value: Any = 0) -> None:
        self.degrees = (-abs(degrees), abs(degrees)) if isinstance(degrees, (int, float)) else tuple(degrees)
        if translate is None:
            self.translate = (0.0, 0.0, 0.0, 0.0)
        elif len(translate) == 2:
            self.translate = (-translate[0], translate[0], -translate[1], translate[1])
        else:
            self.translate = tuple(translate)
        self.scale = (1.0, 1.0) if scale is None else tuple(scale)
        if shear is None:
            self.shear = (0.0, 0.0, 0.0, 0.0)
        elif isinstance(shear, (int, float)):
            self.shear = (-abs(shear), abs(shear), 0.0, 0.0)
        else:
            self.shear = tuple(shear) + (0.0, 0.0) if len(shear) == 2 else tuple(shear)
        self.bilinear, self.fill, self._rng = _bilinear(resample), fill_value, rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomAffine", img)
        h, w = arr.shape[:2]
        u = self._rng.uniform
        m = _affine_matrix(h, w, u(*self.degrees), (u(*self.translate[:2]), u(*self.translate[2:])),
                           u(*self.scale), (u(*self.shear[:2]), u(*self.shear[2:])))
        return warp_affine(arr, m, h, w, self.bilinear, self.fill)


__all__ = ["Rotate", "RandomRotation", "Affine", "RandomAffine"]
