"""Geometric ``mindspore.dataset.vision`` transforms on (H, W) / (H, W, C) NumPy images: flips (fixed and
random, with bounding boxes), crops (``Crop``, ``CenterCrop``, ``ResizedCrop``, ``RandomResizedCrop``),
padding (``Pad``, ``PadToSize`` with ``Border`` modes), ``RandomResize`` and ``SlicePatches``. Dtypes are
kept; random choices come from a generator seeded by the dataset seed (``ds.config.set_seed``)."""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import config

_instances = itertools.count()


def rng() -> np.random.Generator:
    """A generator for one random transform, from the dataset seed and the transform's creation order."""
    return np.random.default_rng([config.get_seed(), next(_instances)])


def image(who: str, img: Any) -> np.ndarray:
    """``img`` as an array of shape (H, W) or (H, W, C), else a TypeError naming ``who``."""
    arr = np.asarray(img)
    if arr.ndim not in (2, 3):
        raise TypeError(f"{who}: the input must be an image of shape (H, W) or (H, W, C), got {arr.shape}")
    return arr


def _size2(who: str, size: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size, size)
    if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, int) and s > 0 for s in size)):
        raise ValueError(f"{who}: size must be a positive int or a (height, width) pair, got {size!r}")
    return int(size[0]), int(size[1])


class Border(enum.IntEnum):
    """Padding modes (MindSpore's ``vision.Border``)."""

    CONSTANT = 0
    EDGE = 1
    REFLECT = 2
    SYMMETRIC = 3


_NP_MODE = {Border.CONSTANT: "constant", Border.EDGE: "edge", Border.REFLECT: "reflect",
            Border.SYMMETRIC: "symmetric"}


def pad(img: np.ndarray, top: int, bottom: int, left: int, right: int, fill_value=0,
        mode: Border = Border.CONSTANT) -> np.ndarray:
    """``img`` padded on each side (``fill_value``: a number or one per channel, for CONSTANT)."""
    widths = [(top, bottom), (left, right)] + ([(0, 0)] if img.ndim == 3 else [])
    if Border(mode) != Border.CONSTANT:
        return np.pad(img, widths, mode=_NP_MODE[Border(mode)])
    fills = np.broadcast_to(np.asarray(fill_value), (img.shape[2],) if img.ndim == 3 else ())
    if img.ndim == 2 or np.all(fills == fills.flat[0]):
        return np.pad(img, widths, constant_values=np.asarray(fills).flat[0])
    return np.stack([np.pad(img[..., c], widths[:2], constant_values=fills[c]) for c in range(img.shape[2])], -1)


class HorizontalFlip:
    """``HorizontalFlip()``: mirror left-right."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.ascontiguousarray(image("HorizontalFlip", img)[:, ::-1])


class VerticalFlip:
    """``VerticalFlip()``: mirror top-bottom."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.ascontiguousarray(image("VerticalFlip", img)[::-1])


def _prob(who: str, prob: float) -> float:
    if not isinstance(prob, (int, float)) or isinstance(prob, bool) or not 0 <= prob <= 1:
        raise ValueError(f"{who}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)


class RandomHorizontalFlip:
    """``RandomHorizontalFlip(prob=0.5)``: mirror left-right with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob, self._rng = _prob("RandomHorizontalFlip", prob), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomHorizontalFlip", img)
        return np.ascontiguousarray(arr[:, ::-1]) if self._rng.random() < self.prob else arr


class RandomVerticalFlip:
    """``RandomVerticalFlip(prob=0.5)``: mirror top-bottom with probability ``prob``."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob, self._rng = _prob("RandomVerticalFlip", prob), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomVerticalFlip", img)
        return np.ascontiguousarray(arr[::-1]) if self._rng.random() < self.prob else arr


def _bboxes(who: str, bbox: Any) -> np.ndarray:
    arr = np.asarray(bbox)
    if arr.ndim != 2 or arr.shape[1] < 4:
        raise TypeError(f"{who}: bbox must be an (N, 4+) array of (x, y, width, height), got {arr.shape}")
    return arr


class RandomHorizontalFlipWithBBox:
    """``RandomHorizontalFlipWithBBox(prob=0.5)``: ``(image, bbox)`` mirrored left-right together."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob, self._rng = _prob("RandomHorizontalFlipWithBBox", prob), rng()

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, box = image("RandomHorizontalFlipWithBBox", img), _bboxes("RandomHorizontalFlipWithBBox", bbox)
        if self._rng.random() >= self.prob:
            return arr, box
        box = box.copy()
        box[:, 0] = arr.shape[1] - box[:, 0] - box[:, 2]
        return np.ascontiguousarray(arr[:, ::-1]), box


class RandomVerticalFlipWithBBox:
    """``RandomVerticalFlipWithBBox(prob=0.5)``: ``(image, bbox)`` mirrored top-bottom together."""

    def __init__(self, prob: float = 0.5) -> None:
        self.prob, self._rng = _prob("RandomVerticalFlipWithBBox", prob), rng()

    def __call__(self, img: Any, bbox: Any) -> tuple[np.ndarray, np.ndarray]:
        arr, box = image("RandomVerticalFlipWithBBox", img), _bboxes("RandomVerticalFlipWithBBox", bbox)
        if self._rng.random() >= self.prob:
            return arr, box
        box = box.copy()
        box[:, 1] = arr.shape[0] - box[:, 1] - box[:, 3]
        return np.ascontiguousarray(arr[::-1]), box


class Crop:
    """``Crop(coordinates, size)``: the region at ``coordinates`` (top, left) of ``size`` (h, w)."""

    def __init__(self, coordinates: Sequence[int], size: int | Sequence[int]) -> None:
        if not (isinstance(coordinates, (list, tuple)) and len(coordinates) == 2
                and all(isinstance(c, int) and c >= 0 for c in coordinates)):
            raise ValueError(f"Crop: coordinates must be a (top, left) pair of ints >= 0, got {coordinates!r}")
        self.top, self.left = coordinates
        self.size = _size2("Crop", size)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Crop", img)
        h, w = self.size
        if self.top + h > arr.shape[0] or self.left + w > arr.shape[1]:
            raise ValueError(f"Crop: the region ({self.top}, {self.left}) + {self.size} exceeds the image "
                             f"{arr.shape[:2]}")
        return np.ascontiguousarray(arr[self.top:self.top + h, self.left:self.left + w])


class CenterCrop:
    """``CenterCrop(size)``: the centred region of ``size``, padded with zeros where the image is smaller."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _size2("CenterCrop", size)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("CenterCrop", img)
        h, w = self.size
        ph, pw = max(h - arr.shape[0], 0), max(w - arr.shape[1], 0)
        if ph or pw:  # the odd pixel of padding goes before the image, as MindSpore pads
            arr = pad(arr, ph - ph // 2, ph // 2, pw - pw // 2, pw // 2)
        top, left = (arr.shape[0] - h) // 2, (arr.shape[1] - w) // 2
        return np.ascontiguousarray(arr[top:top + h, left:left + w])


class Pad:
    """``Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)``: ``padding`` an int (every side), a
    (left/right, top/bottom) pair or (left, top, right, bottom)."""

    def __init__(self, padding: int | Sequence[int], fill_value=0, padding_mode: Border = Border.CONSTANT) -> None:
        if isinstance(padding, int):
            padding = (padding,) * 4
        elif isinstance(padding, (list, tuple)) and len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        if not (isinstance(padding, (list, tuple)) and len(padding) == 4 and all(int(p) >= 0 for p in padding)):
            raise ValueError(f"Pad: padding must be an int or 2 or 4 ints >= 0, got {padding!r}")
        self.left, self.top, self.right, self.bottom = (int(p) for p in padding)
        self.fill_value, self.mode = fill_value, Border(padding_mode)

    def __call__(self, img: Any) -> np.ndarray:
        return pad(image("Pad", img), self.top, self.bottom, self.left, self.right, self.fill_value, self.mode)


class PadToSize:
    """``PadToSize(size, offset=None, fill_value=0, padding_mode=Border.CONSTANT)``: pad to ``size``; the
    image sits at ``offset`` (top, left), centred when None."""

    def __init__(self, size: int | Sequence[int], offset: int | Sequence[int] | None = None, fill_value=0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = _size2("PadToSize", size)
        self.offset = None if offset is None else ((offset, offset) if isinstance(offset, int) else tuple(offset))
        self.fill_value, self.mode = fill_value, Border(padding_mode)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("PadToSize", img)
        dh, dw = self.size[0] - arr.shape[0], self.size[1] - arr.shape[1]
        if dh < 0 or dw < 0:
            raise ValueError(f"PadToSize: size {self.size} is smaller than the image {arr.shape[:2]}")
        top, left = (dh // 2, dw // 2) if self.offset is None else self.offset
        if top > dh or left > dw:
            raise ValueError(f"PadToSize: offset {self.offset} leaves no room for the image in {self.size}")
        return pad(arr, top, dh - top, left, dw - left, self.fill_value, self.mode)


def resize(arr: np.ndarray, h: int, w: int, interpolation) -> np.ndarray:
    """``arr`` resized to (h, w) with vision.Resize's kernels."""
    from .vision import Resize  # function level: vision.py re-exports this module's names

    return Resize((h, w), interpolation)(arr)


class ResizedCrop:
    """``ResizedCrop(top, left, height, width, size, interpolation=Inter.BILINEAR)``: crop, then resize."""

    def __init__(self, top: int, left: int, height: int, width: int, size: int | Sequence[int],
                 interpolation=1) -> None:
        self.box = (int(top), int(left), int(height), int(width))
        self.size, self.interpolation = _size2("ResizedCrop", size), interpolation

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("ResizedCrop", img)
        top, left, h, w = self.box
        return resize(np.ascontiguousarray(arr[top:top + h, left:left + w]), *self.size, self.interpolation)


class RandomResizedCrop:
    """``RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3), interpolation=Inter.BILINEAR,
    max_attempts=10)``: a random region of random area and aspect ratio, resized to ``size``."""

    def __init__(self, size: int | Sequence[int], scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=1, max_attempts: int = 10) -> None:
        self.size, self.scale, self.ratio = _size2("RandomResizedCrop", size), tuple(scale), tuple(ratio)
        self.interpolation, self.max_attempts, self._rng = interpolation, int(max_attempts), rng()

    def _box(self, h: int, w: int) -> tuple[int, int, int, int]:
        area = h * w
        for _ in range(self.max_attempts):
            target = area * self._rng.uniform(*self.scale)
            aspect = math.exp(self._rng.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            cw, ch = int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(self._rng.integers(0, h - ch + 1)), int(self._rng.integers(0, w - cw + 1)), ch, cw
        ch, cw = h, w  # the fallback: the whole image, clamped to the ratio range, centred
        if w / h < self.ratio[0]:
            ch = int(round(w / self.ratio[0]))
        elif w / h > self.ratio[1]:
            cw = int(round(h * self.ratio[1]))
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomResizedCrop", img)
        top, left, ch, cw = self._box(*arr.shape[:2])
        return resize(np.ascontiguousarray(arr[top:top + ch, left:left + cw]), *self.size, self.interpolation)


class RandomResize:
    """``RandomResize(size)``: ``vision.Resize(size)`` with a randomly chosen interpolation."""

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size, self._rng = size, rng()

    def __call__(self, img: Any) -> np.ndarray:
        from .vision import Resize  # function level: vision.py re-exports this module's names

        return Resize(self.size, int(self._rng.integers(0, 2)))(image("RandomResize", img))


class SliceMode(enum.IntEnum):
    """How ``SlicePatches`` treats a remainder (MindSpore's ``vision.SliceMode``)."""

    PAD = 0
    DROP = 1


class SlicePatches:
    """``SlicePatches(num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0)``: the image cut
    into ``num_height`` x ``num_width`` patches (padded up to a multiple with PAD, the remainder dropped with
    DROP), returned as a tuple in row order."""

    def __init__(self, num_height: int = 1, num_width: int = 1, slice_mode: SliceMode = SliceMode.PAD,
                 fill_value: int = 0) -> None:
        if num_height < 1 or num_width < 1:
            raise ValueError(f"SlicePatches: num_height and num_width must be >= 1, got {num_height}, {num_width}")
        self.nh, self.nw, self.mode, self.fill = int(num_height), int(num_width), SliceMode(slice_mode), fill_value

    def __call__(self, img: Any) -> tuple[np.ndarray, ...]:
        arr = image("SlicePatches", img)
        h, w = arr.shape[:2]
        if self.mode == SliceMode.PAD:
            ph, pw = math.ceil(h / self.nh), math.ceil(w / self.nw)
            arr = pad(arr, 0, ph * self.nh - h, 0, pw * self.nw - w, self.fill)
        else:
            ph, pw = h // self.nh, w // self.nw
        return tuple(np.ascontiguousarray(arr[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.nh) for j in range(self.nw))


__all__ = ["Border", "HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip", "RandomVerticalFlip",
           "RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox", "Crop", "CenterCrop", "Pad", "PadToSize",
           "ResizedCrop", "RandomResizedCrop", "RandomResize", "SliceMode", "SlicePatches"]
