"""Automatic augmentation policies of ``mindspore.dataset.vision``: ``AutoAugment`` (the ImageNet policy),
``RandAugment`` and ``TrivialAugmentWide``, built from the colour and geometry operations here with the
magnitude spaces MindSpore (after torchvision) uses. Draws follow ``ds.config.set_seed``."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import image, rng
from .affine import affine_inverse
from .basic import Inter
from .color import (
    AdjustBrightness,
    AdjustContrast,
    AdjustSaturation,
    AdjustSharpness,
    AutoContrast,
    Equalize,
    Invert,
    Posterize,
    Solarize,
)
from .geometry import warp


class AutoAugmentPolicy(enum.IntEnum):
    """The learned policies of ``AutoAugment`` (only IMAGENET is provided)."""

    IMAGENET = 0
    CIFAR10 = 1
    SVHN = 2


def _apply(name: str, arr: np.ndarray, magnitude: float, interpolation: Inter, fill: Any) -> np.ndarray:
    """One named operation at ``magnitude`` (already signed where the operation has a direction)."""
    h, w = arr.shape[:2]
    if name in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"):
        shear = (math.degrees(math.atan(magnitude)), 0.0) if name == "ShearX" else \
            (0.0, math.degrees(math.atan(magnitude))) if name == "ShearY" else (0.0, 0.0)
        shift = (magnitude, 0.0) if name == "TranslateX" else (0.0, magnitude) if name == "TranslateY" else (0, 0)
        angle = magnitude if name == "Rotate" else 0.0  # the sign is drawn at random by the callers
        return warp(arr, affine_inverse(w, h, angle, shift, 1.0, shear), (h, w), interpolation, fill)
    if name == "Brightness":
        return AdjustBrightness(1.0 + magnitude)(arr)
    if name == "Color":
        return AdjustSaturation(1.0 + magnitude)(arr)
    if name == "Contrast":
        return AdjustContrast(1.0 + magnitude)(arr)
    if name == "Sharpness":
        return AdjustSharpness(1.0 + magnitude)(arr)
    if name == "Posterize":
        return Posterize(int(magnitude))(arr)
    if name == "Solarize":
        return Solarize((float(magnitude), 255.0))(arr)
    if name == "AutoContrast":
        return AutoContrast()(arr)
    if name == "Equalize":
        return Equalize()(arr)
    if name == "Invert":
        return Invert()(arr)
    return arr.copy()  # Identity


_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast", "Sharpness"}


def _space(bins: int, h: int, w: int, wide: bool) -> dict[str, np.ndarray]:
    """Magnitude per bin of each operation (RandAugment/AutoAugment's space, or TrivialAugment's wide one)."""
    zero = np.zeros(bins)
    return {
        "Identity": zero,
        "ShearX": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "ShearY": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "TranslateX": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * w, bins),
        "TranslateY": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * h, bins),
        "Rotate": np.linspace(0.0, 135.0 if wide else 30.0, bins),
        "Brightness": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Color": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Contrast": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Sharpness": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / (6 if wide else 4))),
        "Solarize": np.linspace(255.0, 0.0, bins),
        "AutoContrast": zero,
        "Equalize": zero,
    }


def _check_image(who: str, img: Any) -> np.ndarray:
    arr = image(who, img, (3,))
    if arr.dtype != np.uint8:
        raise TypeError(f"{who}: the image must be uint8 RGB, got {arr.dtype}")
    return arr


def _bins(who: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise ValueError(f"{who}: num_magnitude_bins must be an int >= 2, got {value!r}")
    return value


class RandAugment:
    """``RandAugment(num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST,
    fill_value=0)``: ``num_ops`` operations drawn uniformly, each at bin ``magnitude`` (random sign)."""

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: Inter = Inter.NEAREST, fill_value: int | Sequence[int] = 0) -> None:
        self.bins = _bins("RandAugment", num_magnitude_bins)
        if not 0 <= magnitude < self.bins or num_ops < 0:
            raise ValueError(f"RandAugment: magnitude must be in [0, {self.bins}) and num_ops >= 0, got "
                             f"{magnitude!r}, {num_ops!r}")
        self.num_ops, self.magnitude = int(num_ops), int(magnitude)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = _check_image("RandAugment", img)
        space = _space(self.bins, *arr.shape[:2], wide=False)
        names = list(space)
        gen = rng()
        for _ in range(self.num_ops):
            name = names[int(gen.integers(0, len(names)))]
            mag = float(space[name][self.magnitude])
            if name in _SIGNED and gen.random() < 0.5:
                mag = -mag
            arr = _apply(name, arr, mag, self.interpolation, self.fill_value)
        return arr


class TrivialAugmentWide:
    """``TrivialAugmentWide(num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0)``: one
    operation and one magnitude bin drawn uniformly from the wide space."""

    def __init__(self, num_magnitude_bins: int = 31, interpolation: Inter = Inter.NEAREST,
                 fill_value: int | Sequence[int] = 0) -> None:
        self.bins = _bins("TrivialAugmentWide", num_magnitude_bins)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = _check_image("TrivialAugmentWide", img)
        space = _space(self.bins, *arr.shape[:2], wide=True)
        names = list(space)
        gen = rng()
        name = names[int(gen.integers(0, len(names)))]
        mag = float(space[name][int(gen.integers(0, self.bins))])
        if name in _SIGNED and gen.random() < 0.5:
            mag = -mag
        return _apply(name, arr, mag, self.interpolation, self.fill_value)


# The ImageNet policy: 25 sub-policies of two (operation, probability, magnitude bin of 10) steps.
_IMAGENET = [
    (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
    (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
    (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
    (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
    (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
    (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
    (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
    (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
]


class AutoAugment:
    """``AutoAugment(policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0)``: one
    of the policy's sub-policies drawn uniformly, each step applied with its probability."""

    def __init__(self, policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET, interpolation: Inter = Inter.NEAREST,
                 fill_value: int | Sequence[int] = 0) -> None:
        if AutoAugmentPolicy(policy) != AutoAugmentPolicy.IMAGENET:
            raise NotImplementedError(f"AutoAugment: only AutoAugmentPolicy.IMAGENET is provided, got "
                                      f"{AutoAugmentPolicy(policy).name}")
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def __call__(self, img: Any) -> np.ndarray:
        arr = _check_image("AutoAugment", img)
        space = _space(10, *arr.shape[:2], wide=False)
        gen = rng()
        for name, prob, bin_ in _IMAGENET[int(gen.integers(0, len(_IMAGENET)))]:
            if gen.random() >= prob:
                continue
            mag = 0.0 if bin_ is None else float(space[name][bin_])
            if name in _SIGNED and gen.random() < 0.5:
                mag = -mag
            arr = _apply(name, arr, mag, self.interpolation, self.fill_value)
        return arr


__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide"]
