"""MindSpore's image primitive classes that are compositions (no op of their own): ``AdjustHue``,
``AdjustSaturation``, ``RGBToHSV``, ``HSVToRGB`` (api/color.py), ``CropAndResize`` (api/crop.py) and
``AffineGrid`` (api/image.py's ``affine_grid``)."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor
from .api import color
from .api.crop import METHODS, crop_and_resize
from .api.image import affine_grid
from .primitive import Primitive


class AdjustHue(Primitive):
    """``AdjustHue()(image, delta)``: add the 0-D float32 ``delta`` to the hue of an RGB image (channels last,
    rank >= 3), wrapping into [0, 1)."""

    def __call__(self, image: Any, delta: Any) -> Tensor:
        return color.adjust_hue(image, delta)


class AdjustSaturation(Primitive):
    """``AdjustSaturation()(image, scale)``: multiply the saturation of an RGB image (channels last, rank >= 3)
    by the 0-D float32 ``scale``, clipped to [0, 1]."""

    def __call__(self, image: Any, scale: Any) -> Tensor:
        return color.adjust_saturation(image, scale)


class RGBToHSV(Primitive):
    """``RGBToHSV()(images)``: HSV (hue in [0, 1)) of RGB values along the last axis."""

    def __call__(self, images: Any) -> Tensor:
        return color.rgb_to_hsv_image(images)


class HSVToRGB(Primitive):
    """``HSVToRGB()(x)``: RGB of an (N, H, W, 3) HSV image."""

    def __call__(self, x: Any) -> Tensor:
        return color.hsv_to_rgb_image(x)


class CropAndResize(Primitive):
    """``CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index, crop_size)``: see
    ``ops.crop_and_resize``."""

    def __init__(self, method: str = "bilinear", extrapolation_value: float = 0.0):
        if method not in METHODS:
            raise ValueError(f"CropAndResize: method must be one of {', '.join(METHODS)}, got {method!r}")
        super().__init__(method=method, extrapolation_value=float(extrapolation_value))

    def __call__(self, x: Any, boxes: Any, box_index: Any, crop_size: Any) -> Tensor:
        return crop_and_resize(x, boxes, box_index, crop_size, self.attrs["method"],
                               self.attrs["extrapolation_value"])


class AffineGrid(Primitive):
    """``AffineGrid(align_corners=False)(theta, output_size)``: see ``ops.affine_grid``."""

    def __init__(self, align_corners: bool = False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"AffineGrid: align_corners must be a bool, got {type(align_corners).__name__}")
        super().__init__(align_corners=align_corners)

    def __call__(self, theta: Any, output_size: Any) -> Tensor:
        return affine_grid(theta, output_size, self.attrs["align_corners"])


PRIMITIVES: dict[str, type[Primitive]] = {
    "AdjustHue": AdjustHue, "AdjustSaturation": AdjustSaturation, "RGBToHSV": RGBToHSV, "HSVToRGB": HSVToRGB,
    "CropAndResize": CropAndResize, "AffineGrid": AffineGrid,
}
