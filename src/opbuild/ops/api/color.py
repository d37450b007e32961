"""RGB <-> HSV and the hue / saturation adjustments behind MindSpore's ``RGBToHSV``, ``HSVToRGB``,
``AdjustHue`` and ``AdjustSaturation`` primitives, as compositions of elementwise ops over the last axis (three
channels), so they run in either mode and are differentiable where the maps are.

The maps are TensorFlow's (MindSpore's CPU kernels compute them, checked against its outputs): hue in
``[0, 1)``, ``h = ((g - b) / range, 2 + (b - r) / range, 4 + (r - g) / range)[argmax] / 6`` wrapped into
``[0, 1)``, ``s = range / max`` (0 where max is 0), ``v = max``; back, per channel ``v * (1 - s + s * clip(|6h -
k| ...))``. Division by a zero range or maximum is never evaluated on the branch that uses it: the divisor is
replaced first, so gradients stay finite. Half inputs are computed in float32 and rounded once.
"""

from __future__ import annotations

from typing import Any

from ...core.tensor import Tensor, as_tensor
from .array import ones_like, split, squeeze, stack, zeros_like
from .base import clip_by_value
from .math import abs as abs_
from .math import cast, maximum, minimum
from .math_misc import select
from .tensor_math import fmod

_FLOATS = ("float16", "float32", "float64")


def _check(op: str, x: Tensor, min_rank: int = 1) -> None:
    if x.dtype.name not in _FLOATS:
        raise TypeError(f"{op}: the image must be float16, float32 or float64, got {x.dtype}")
    if x.ndim < min_rank or x.shape[-1] != 3:
        raise ValueError(f"{op}: the image must have rank >= {min_rank} and 3 channels last, got shape "
                         f"{tuple(x.shape)}")


def _work(x: Tensor) -> Tensor:
    return cast(x, "float32") if x.dtype.name == "float16" else x


def _channels(x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    return tuple(squeeze(t, -1) for t in split(x, 1, axis=-1))  # type: ignore[return-value]


def rgb_to_hsv(x: Tensor) -> Tensor:
    """HSV of the RGB values along the last axis (compute dtype: float32 for half inputs)."""
    r, g, b = _channels(x)
    v = maximum(maximum(r, g), b)
    rng = v - minimum(minimum(r, g), b)
    zero_v, zero_rng = v == 0, rng == 0
    s = select(zero_v, zeros_like(v), rng / select(zero_v, ones_like(v), v))
    safe = select(zero_rng, ones_like(rng), rng)
    h = select(v == r, (g - b) / safe, select(v == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    h = select(zero_rng, zeros_like(h), h) / 6.0
    h = select(h < 0, h + 1.0, h)
    return stack([h, s, v], axis=-1)


def hsv_to_rgb(x: Tensor) -> Tensor:
    """RGB of the HSV values along the last axis."""
    h, s, v = _channels(x)
    dh = h * 6.0
    fractions = [clip_by_value(abs_(dh - 3.0) - 1.0, 0.0, 1.0),
                 clip_by_value(2.0 - abs_(dh - 2.0), 0.0, 1.0),
                 clip_by_value(2.0 - abs_(dh - 4.0), 0.0, 1.0)]
    return stack([(1.0 - s + s * f) * v for f in fractions], axis=-1)


def _back(y: Tensor, like: Tensor) -> Tensor:
    return cast(y, like.dtype.name) if y.dtype != like.dtype else y


def rgb_to_hsv_image(images: Any) -> Tensor:
    """``RGBToHSV()(images)``."""
    x = as_tensor(images)
    _check("RGBToHSV", x)
    return _back(rgb_to_hsv(_work(x)), x)


def hsv_to_rgb_image(images: Any) -> Tensor:
    """``HSVToRGB()(x)``: a 4-D (N, H, W, 3) image."""
    x = as_tensor(images)
    _check("HSVToRGB", x, 4)
    if x.ndim != 4:
        raise ValueError(f"HSVToRGB: x must be 4-D (N, H, W, 3), got rank {x.ndim}")
    return _back(hsv_to_rgb(_work(x)), x)


def _scalar(op: str, name: str, value: Any) -> Tensor:
    t = as_tensor(value)
    if t.dtype.name != "float32" or t.ndim != 0:
        raise TypeError(f"{op}: {name} must be a 0-D float32 Tensor, got {t.dtype} of shape {tuple(t.shape)}")
    return t


def adjust_hue(image: Any, delta: Any) -> Tensor:
    """``AdjustHue()(image, delta)``: add ``delta`` to the hue (wrapped into [0, 1)) of an RGB image of rank
    >= 3, channels last."""
    x = as_tensor(image)
    _check("AdjustHue", x, 3)
    d = _scalar("AdjustHue", "delta", delta)
    h, s, v = _channels(rgb_to_hsv(_work(x)))
    h = fmod(h + d, ones_like(h))
    h = select(h < 0, h + 1.0, h)
    return _back(hsv_to_rgb(stack([h, s, v], axis=-1)), x)


def adjust_saturation(image: Any, scale: Any) -> Tensor:
    """``AdjustSaturation()(image, scale)``: multiply the saturation of an RGB image of rank >= 3 by ``scale``,
    clipped to [0, 1]."""
    x = as_tensor(image)
    _check("AdjustSaturation", x, 3)
    k = _scalar("AdjustSaturation", "scale", scale)
    h, s, v = _channels(rgb_to_hsv(_work(x)))
    s = clip_by_value(s * k, 0.0, 1.0)
    return _back(hsv_to_rgb(stack([h, s, v], axis=-1)), x)


__all__ = ["adjust_hue", "adjust_saturation", "hsv_to_rgb", "hsv_to_rgb_image", "rgb_to_hsv", "rgb_to_hsv_image"]
