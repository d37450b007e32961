"""Geometric vision transforms: flips, crops, padding, rotation and resized crops (MindSpore's
``vision.HorizontalFlip``, ``CenterCrop``, ``Crop``, ``Pad``, ``PadToSize``, ``Rotate``, ``ResizedCrop`` and
their random counterparts). Random ones draw from the stream that ``ds.config.set_seed`` seeds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import Border, image, pad, padding4, probability, rng, size_pair
from .basic import Inter, Resize, decode_image
from .pil_io import keeps_pil


class HorizontalFlip:
    """``HorizontalFlip()``: mirror left-right."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.ascontiguousarray(image("HorizontalFlip", img)[:, ::-1])


class VerticalFlip:
    """``VerticalFlip()``: mirror top-bottom."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.ascontiguousarray(image("VerticalFlip", img)[::-1])


class RandomHorizontalFlip:
    """``RandomHorizontalFlip(prob=0.5)``: mirror left-right with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomHorizontalFlip", prob)

    @keeps_pil
    def __call__(self, img: Any) -> Any:
        arr = image("RandomHorizontalFlip", img)
        return np.ascontiguousarray(arr[:, ::-1]) if rng().random() < self.prob else arr.copy()


class RandomVerticalFlip:
    """``RandomVerticalFlip(prob=0.5)``: mirror top-bottom with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = probability("RandomVerticalFlip", prob)

    @keeps_pil
    def __call__(self, img: Any) -> Any:
        arr = image("RandomVerticalFlip", img)
        return np.ascontiguousarray(arr[::-1]) if rng().random() < self.prob else arr.copy()


def _crop(arr: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    return np.ascontiguousarray(arr[top:top + h, left:left + w])


class Crop:
    """``Crop(coordinates, size)``: the ``size`` region whose top-left corner is ``coordinates``
    (top, left)."""

    def __init__(self, coordinates: Sequence[int], size: int | Sequence[int]) -> None:
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2 and min(coordinates) >= 0):
            raise ValueError(f"Crop: coordinates must be a (top, left) pair of non-negative ints, got {coordinates!r}")
        self.top, self.left = int(coordinates[0]), int(coordinates[1])
        self.h, self.w = size_pair("Crop", size)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Crop", img)
        if self.top + self.h > arr.shape[0] or self.left + self.w > arr.shape[1]:
            raise ValueError(f"Crop: the region ({self.top}, {self.left}) + ({self.h}, {self.w}) exceeds the image "
                             f"{arr.shape[:2]}")
        return _crop(arr, self.top, self.left, self.h, self.w)


class CenterCrop:
    """``CenterCrop(size)``: the centred ``size`` region (zero-padded first where the image is smaller)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.h, self.w = size_pair("CenterCrop", size)

    @keeps_pil
    def __call__(self, img: Any) -> Any:
        arr = image("CenterCrop", img)
        ph, pw = max(self.h - arr.shape[0], 0), max(self.w - arr.shape[1], 0)
        if ph or pw:
            arr = pad(arr, pw - pw // 2, ph - ph // 2, pw // 2, ph // 2)
        top = (arr.shape[0] - self.h) // 2
        left = (arr.shape[1] - self.w) // 2
        return _crop(arr, top, left, self.h, self.w)


class Pad:
    """``Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)``: pad each side (``padding``: an int,
    (left/right, top/bottom) or (left, top, right, bottom))."""

    def __init__(self, padding: int | Sequence[int], fill_value: int | Sequence[int] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.padding = padding4("Pad", padding)
        self.fill_value, self.padding_mode = fill_value, Border(padding_mode)

    @keeps_pil
    def __call__(self, img: Any) -> Any:
        return pad(image("Pad", img), *self.padding, self.fill_value, self.padding_mode)


class PadToSize:
    """``PadToSize(size, offset=None, fill_value=0, padding_mode=Border.CONSTANT)``: pad to ``size`` with the
    image at ``offset`` (top, left), centred when None."""

    def __init__(self, size: int | Sequence[int], offset: int | Sequence[int] | None = None,
                 fill_value: int | Sequence[int] = 0, padding_mode: Border = Border.CONSTANT) -> None:
        self.h, self.w = size_pair("PadToSize", size)
        self.offset = None if offset is None else (
            (int(offset), int(offset)) if isinstance(offset, int) else (int(offset[0]), int(offset[1])))
        self.fill_value, self.padding_mode = fill_value, Border(padding_mode)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("PadToSize", img)
        dh, dw = self.h - arr.shape[0], self.w - arr.shape[1]
        if dh < 0 or dw < 0:
            raise ValueError(f"PadToSize: the target size ({self.h}, {self.w}) is smaller than the image "
                             f"{arr.shape[:2]}")
        top, left = (dh // 2, dw // 2) if self.offset is None else self.offset
        if top > dh or left > dw:
            raise ValueError(f"PadToSize: offset {self.offset} leaves no room for the image")
        return pad(arr, left, top, dw - left, dh - top, self.fill_value, self.padding_mode)


class RandomCrop:
    """``RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT)``:
    a random ``size`` region, after optional padding (and padding up to ``size`` with ``pad_if_needed``)."""

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value: int | Sequence[int] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.h, self.w = size_pair("RandomCrop", size)
        self.padding = padding4("RandomCrop", padding) if padding is not None else (0, 0, 0, 0)
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, Border(padding_mode)

    def __call__(self, img: Any) -> np.ndarray:
        arr = pad(image("RandomCrop", img), *self.padding, self.fill_value, self.padding_mode)
        if self.pad_if_needed:
            ph, pw = max(self.h - arr.shape[0], 0), max(self.w - arr.shape[1], 0)
            arr = pad(arr, pw, ph, pw, ph, self.fill_value, self.padding_mode) if ph or pw else arr
        if self.h > arr.shape[0] or self.w > arr.shape[1]:
            raise ValueError(f"RandomCrop: crop size ({self.h}, {self.w}) exceeds the (padded) image "
                             f"{arr.shape[:2]}; pass padding or pad_if_needed=True")
        gen = rng()
        top = int(gen.integers(0, arr.shape[0] - self.h + 1))
        left = int(gen.integers(0, arr.shape[1] - self.w + 1))
        return _crop(arr, top, left, self.h, self.w)


class ResizedCrop:
    """``ResizedCrop(top, left, height, width, size, interpolation=Inter.BILINEAR)``: crop, then resize to
    ``size``."""

    def __init__(self, top: int, left: int, height: int, width: int, size: int | Sequence[int],
                 interpolation: Inter = Inter.BILINEAR) -> None:
        self.crop = Crop((top, left), (height, width))
        self.resize = Resize(size, interpolation)

    def __call__(self, img: Any) -> np.ndarray:
        return self.resize(self.crop(img))


class RandomResizedCrop:
    """``RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)``: a random region of ``scale`` times the area and aspect ``ratio``, resized to
    ``size`` (the centred largest region within the ratio limits when no attempt fits)."""

    def __init__(self, size: int | Sequence[int], scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0), interpolation: Inter = Inter.BILINEAR,
                 max_attempts: int = 10) -> None:
        self.size = size_pair("RandomResizedCrop", size)
        if scale[0] > scale[1] or ratio[0] > ratio[1] or ratio[0] <= 0:
            raise ValueError(f"RandomResizedCrop: scale and ratio must be increasing (min, max) pairs, got "
                             f"{scale!r} and {ratio!r}")
        self.scale, self.ratio = (float(scale[0]), float(scale[1])), (float(ratio[0]), float(ratio[1]))
        self.resize = Resize(self.size, interpolation)
        self.max_attempts = int(max_attempts)

    def region(self, h: int, w: int) -> tuple[int, int, int, int]:
        gen = rng()
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * gen.uniform(*self.scale)
            aspect = math.exp(gen.uniform(*log_ratio))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(gen.integers(0, h - ch + 1)), int(gen.integers(0, w - cw + 1)), ch, cw
        in_ratio = w / h
        if in_ratio < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomResizedCrop", img)
        top, left, ch, cw = self.region(*arr.shape[:2])
        return self.resize(_crop(arr, top, left, ch, cw))


class RandomCropDecodeResize(RandomResizedCrop):
    """``RandomCropDecodeResize(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)``: ``Decode`` then ``RandomResizedCrop`` of the encoded image bytes."""

    def __call__(self, img: Any) -> np.ndarray:
        return super().__call__(decode_image(img))


class RandomResize:
    """``RandomResize(size)``: ``Resize(size)`` with a randomly chosen interpolation (LINEAR or NEAREST
    here)."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.ops = [Resize(size, Inter.LINEAR), Resize(size, Inter.NEAREST)]

    def __call__(self, img: Any) -> np.ndarray:
        return self.ops[int(rng().integers(0, len(self.ops)))](img)


def warp(arr: np.ndarray, inverse: np.ndarray, out_hw: tuple[int, int], resample: Inter, fill: Any) -> np.ndarray:
    """Sample ``arr`` at ``inverse @ (x, y, 1)`` for every output pixel (a 2x3 affine or 3x3 projective map,
    nearest or bilinear; ``fill`` outside)."""
    if inverse.shape[0] == 2 and Inter(resample) in (Inter.NEAREST, Inter.BILINEAR):
        return _warp_affine_fixed(arr, inverse, out_hw, Inter(resample) == Inter.BILINEAR, fill)
    h, w = arr.shape[:2]
    yy, xx = np.mgrid[0:out_hw[0], 0:out_hw[1]].astype(np.float64)
    sx = inverse[0, 0] * xx + inverse[0, 1] * yy + inverse[0, 2]
    sy = inverse[1, 0] * xx + inverse[1, 1] * yy + inverse[1, 2]
    if inverse.shape[0] == 3:
        z = inverse[2, 0] * xx + inverse[2, 1] * yy + inverse[2, 2]
        z = np.where(np.abs(z) > 1e-12, z, 1e-12)
        sx, sy = sx / z, sy / z
    fills = np.broadcast_to(np.asarray(fill, np.float64), arr.shape[2:])
    src = arr.astype(np.float64)
    tail = (...,) + (None,) * (arr.ndim - 2)
    if Inter(resample) == Inter.NEAREST:
        ix, iy = np.rint(sx).astype(np.int64), np.rint(sy).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = np.where(inside[tail], src[iy.clip(0, h - 1), ix.clip(0, w - 1)], fills)
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[tail], (sy - y0)[tail]

        def at(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
            ok = ((xi >= 0) & (xi < w) & (yi >= 0) & (yi < h))[tail]
            return np.where(ok, src[yi.clip(0, h - 1), xi.clip(0, w - 1)], fills)

        out = ((at(y0, x0) * (1 - fx) + at(y0, x0 + 1) * fx) * (1 - fy)
               + (at(y0 + 1, x0) * (1 - fx) + at(y0 + 1, x0 + 1) * fx) * fy)
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype)


def _warp_affine_fixed(arr: np.ndarray, inverse: np.ndarray, out_hw: tuple[int, int], bilinear: bool,
                       fill: Any) -> np.ndarray:
    """An affine warp as MindSpore computes it through OpenCV's warpAffine: source coordinates in fixed point
    (1/1024; bilinear fractions in steps of 1/32, uint8 weights summing to 32768 with OpenCV's rounding), so
    that nearest picks and bilinear values are MindSpore's pixel for pixel."""
    out_h, out_w = out_hw
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    ab = 1024
    delta = ab // 2 if not bilinear else ab // 32 // 2
    fx_fixed = np.rint(inverse[0, 0] * xs * ab) + np.rint((inverse[0, 1] * ys + inverse[0, 2]) * ab) + delta
    fy_fixed = np.rint(inverse[1, 0] * xs * ab) + np.rint((inverse[1, 1] * ys + inverse[1, 2]) * ab) + delta
    h, w = arr.shape[:2]
    src = arr.astype(np.float64)
    tail = (...,) + (None,) * (arr.ndim - 2)
    fills = np.broadcast_to(np.asarray(fill, np.float64), arr.shape[2:])

    def take(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        ok = ((yi >= 0) & (yi < h) & (xi >= 0) & (xi < w))[tail]
        return np.where(ok, src[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)], fills)

    if not bilinear:
        out = take(np.floor(fy_fixed / ab).astype(np.int64), np.floor(fx_fixed / ab).astype(np.int64))
    else:
        gx, gy = np.floor(fx_fixed / 32).astype(np.int64), np.floor(fy_fixed / 32).astype(np.int64)
        x0, y0, fx, fy = gx >> 5, gy >> 5, (gx & 31) / 32.0, (gy & 31) / 32.0
        weights = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
        if arr.dtype == np.uint8:
            weights = [np.rint(wgt * 32768) for wgt in weights]
            weights[0] = 32768 - weights[1] - weights[2] - weights[3]
        corners = [take(y0, x0), take(y0, x0 + 1), take(y0 + 1, x0), take(y0 + 1, x0 + 1)]
        out = sum(c * wgt[tail] for c, wgt in zip(corners, weights))
        if arr.dtype == np.uint8:
            out = np.floor((out + 16384) / 32768)
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype)


def rotate(arr: np.ndarray, degrees: float, resample: Inter, expand: bool, center: Sequence[float] | None,
           fill: Any) -> np.ndarray:
    """Counter-clockwise rotation about ``center`` (x, y; the image centre by default), as MindSpore builds it
    (OpenCV's rotation matrix; ``expand`` grows the canvas to the rotated image's bounding box, rounded)."""
    h, w = arr.shape[:2]
    cx, cy = ((w - 1) / 2.0, (h - 1) / 2.0) if center is None else (float(center[0]), float(center[1]))
    a, b = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    forward = np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])
    oh, ow = h, w
    if expand:
        bw, bh = w * abs(a) + h * abs(b), w * abs(b) + h * abs(a)
        forward[0, 2] += bw / 2.0 - w / 2.0
        forward[1, 2] += bh / 2.0 - h / 2.0
        oh, ow = int(round(bh)), int(round(bw))
    inverse = np.linalg.inv(np.vstack([forward, [0, 0, 1]]))[:2]
    return warp(arr, inverse, (oh, ow), resample, fill)


class Rotate:
    """``Rotate(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``: rotate
    counter-clockwise by ``degrees`` (``expand``: grow the canvas to hold the whole image)."""

    def __init__(self, degrees: float, resample: Inter = Inter.NEAREST, expand: bool = False,
                 center: Sequence[float] | None = None, fill_value: int | Sequence[int] = 0) -> None:
        self.degrees, self.resample, self.expand = float(degrees), Inter(resample), bool(expand)
        self.center, self.fill_value = center, fill_value

    def __call__(self, img: Any) -> np.ndarray:
        return rotate(image("Rotate", img), self.degrees, self.resample, self.expand, self.center, self.fill_value)


class RandomRotation:
    """``RandomRotation(degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0)``: rotate by
    an angle drawn from ``degrees`` (a number d means (-d, d))."""

    def __init__(self, degrees: float | Sequence[float], resample: Inter = Inter.NEAREST, expand: bool = False,
                 center: Sequence[float] | None = None, fill_value: int | Sequence[int] = 0) -> None:
        if isinstance(degrees, (int, float)):
            if degrees < 0:
                raise ValueError(f"RandomRotation: a single degrees value must be non-negative, got {degrees!r}")
            self.range = (-float(degrees), float(degrees))
        else:
            self.range = (float(degrees[0]), float(degrees[1]))
        self.resample, self.expand, self.center, self.fill_value = Inter(resample), bool(expand), center, fill_value

    def __call__(self, img: Any) -> np.ndarray:
        angle = rng().uniform(*self.range)
        return rotate(image("RandomRotation", img), angle, self.resample, self.expand, self.center, self.fill_value)


__all__ = ["HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip", "RandomVerticalFlip", "Crop", "CenterCrop",
           "Pad", "PadToSize", "RandomCrop", "ResizedCrop", "RandomResizedCrop", "RandomCropDecodeResize",
           "RandomResize", "Rotate", "RandomRotation", "rotate", "warp"]
