"""Image functions of the functional API: ``ops.interpolate`` (over the resizing composition of ops/compose/resize.py),
``ops.grid_sample`` and ``ops.affine_grid``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..compose import TENSORS
from ..compose import resize as R
from ..primitive import apply
from .crop import crop_and_resize

_RANKS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
# mode -> input rank -> the options MindSpore 2.10 accepts there (besides size): its interpolate refuses
# scale_factor (unless recompute_scale_factor=True) and any align_corners (even False) elsewhere.
_OPTIONS: dict[str, dict[int, tuple[str, ...]]] = {
    "nearest": {3: (), 4: (), 5: ("scale_factor",)},
    "linear": {3: ("align_corners",)},
    "bilinear": {4: ("align_corners",)},
    "bicubic": {4: ("align_corners",)},
    "trilinear": {5: ("align_corners", "scale_factor")},
    "area": {3: ("scale_factor",), 4: ("scale_factor",), 5: ("scale_factor",)},
    "nearest-exact": {3: (), 4: ()},
}


def _per_axis(value: Any, n: int, what: str) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"interpolate: {what} has {len(value)} values for {n} spatial axes")
        return list(value)
    return [value] * n


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None) -> Tensor:
    """``ops.interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: resize the spatial axes of an (N, C, [D, [H,]] W) float tensor.

    Coordinates: ``align_corners=True`` maps ``i -> i * (in - 1) / (out - 1)``; otherwise
    ``(i + 0.5) * in / out - 0.5`` (``0`` for an output of length 1). ``nearest`` takes ``floor(i * in /
    out)``, ``nearest-exact`` ``floor((i + 0.5) * in / out)``, ``area`` averages each output's input range.
    With ``scale_factor`` (and ``recompute_scale_factor`` not True) the ratio is ``1 / scale_factor``, except on
    an axis whose size does not change (copied, as MindSpore's kernels do). MindSpore's option rules are
    enforced: scale_factor only for nearest 5-D, trilinear and area unless ``recompute_scale_factor=True``;
    align_corners (even False) only for linear, bilinear, bicubic and trilinear; area on a 3-D input needs a
    length divisible by the size.
    ``bicubic`` is TensorFlow's bicubic resize, as MindSpore 2.10's CPU kernel computes it (checked against
    its outputs): Keys' kernel with a = -0.5, taps outside the input dropped and the rest renormalised
    (``align_corners``: a = -0.75, edge taps clamped), offsets rounded to 1/1024 (its coefficient table); torch
    differs (a = -0.75, clamped taps, exact offsets)."""
    x = as_tensor(input)
    if mode not in MODES:
        raise ValueError(f"interpolate: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if x.ndim not in (3, 4, 5):
        raise ValueError(f"interpolate: input must be 3-D, 4-D or 5-D (N, C, [D, [H,]] W), got rank {x.ndim}")
    if mode in _RANKS and x.ndim != _RANKS[mode]:
        raise ValueError(f"interpolate: mode {mode!r} needs a {_RANKS[mode]}-D input, got {x.ndim}-D")
    if x.ndim not in _OPTIONS[mode]:
        raise ValueError(f"interpolate: mode {mode!r} takes a {' or '.join(f'{r}-D' for r in _OPTIONS[mode])} "
                         f"input, got {x.ndim}-D")
    if align_corners is not None and "align_corners" not in _OPTIONS[mode][x.ndim]:
        raise ValueError(f"interpolate: align_corners cannot be set with mode {mode!r} on a {x.ndim}-D input "
                         "(MindSpore's rule; leave it None)")
    if not x.dtype.is_float:
        raise TypeError(f"interpolate: input must be a float tensor, got {x.dtype}")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if mode == "area" and size is None:
        recompute_scale_factor = True  # area always resizes to an explicit size
    if recompute_scale_factor and size is not None:
        raise ValueError("interpolate: recompute_scale_factor=True needs scale_factor, not size")
    if scale_factor is not None and not recompute_scale_factor and "scale_factor" not in _OPTIONS[mode][x.ndim]:
        raise ValueError(f"interpolate: scale_factor cannot be used with mode {mode!r} on a {x.ndim}-D input unless "
                         "recompute_scale_factor=True (MindSpore's rule); or give size")
    spatial = list(x.shape[2:])
    n = len(spatial)
    if size is not None:
        out = [int(s) for s in _per_axis(size, n, "size")]
        scales = [o / i for o, i in zip(out, spatial, strict=True)]
    else:
        factors = [float(f) for f in _per_axis(scale_factor, n, "scale_factor")]
        out = [int(math.floor(i * f)) for i, f in zip(spatial, factors, strict=True)]
        # MindSpore's kernels copy an axis whose size the factor leaves unchanged.
        scales = [o / i for o, i in zip(out, spatial, strict=True)] if recompute_scale_factor else \
            [1.0 if o == i else f for o, i, f in zip(out, spatial, factors, strict=True)]
    if any(o <= 0 for o in out):
        raise ValueError(f"interpolate: the output size {out} must be positive")
    if mode == "area" and x.ndim == 3 and spatial[0] % out[0]:
        raise ValueError(f"interpolate: mode 'area' on a 3-D input needs the length {spatial[0]} to be a multiple "
                         f"of the output size {out[0]} (MindSpore's adaptive_avg_pool1d rule)")
    taps = {}
    for a, (i, o, s) in enumerate(zip(spatial, out, scales, strict=True)):
        if mode == "area":
            taps[a + 2] = R.area_taps(i, o)
        elif mode == "nearest":
            taps[a + 2] = R.axis_taps(i, o, s, "nearest", "asymmetric", "floor")
        elif mode == "nearest-exact":
            taps[a + 2] = R.axis_taps(i, o, s, "nearest", "half_pixel", "round_prefer_ceil")
        elif mode == "bicubic":  # TensorFlow's bicubic resize, as MindSpore's CPU kernel computes it
            taps[a + 2] = (R.axis_taps(i, o, s, "cubic", "align_corners", cubic_a=-0.75, table=1024)
                           if align_corners else
                           R.axis_taps(i, o, s, "cubic", "half_pixel", cubic_a=-0.5, exclude_outside=True,
                                       table=1024))
        else:
            coord = "align_corners" if align_corners else "pytorch_half_pixel"
            if not align_corners and o == 1:  # MindSpore maps a single output to input 0
                coord = "asymmetric"
                s = float("inf")
            taps[a + 2] = R.axis_taps(i, o, s, "linear", coord)
    return R.resize(TENSORS, x, x.shape, x.dtype.name, taps)




def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: bool = False) -> Tensor:
    """``ops.grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False)``: sample a
    4-D (N, C, H, W) or 5-D input at the normalised (x, y[, z]) coordinates of ``grid`` (ops/grid_sampling.py);
    mode 'bilinear', 'nearest' or 'bicubic' (4-D only)."""
    x = as_tensor(input)
    if x.ndim not in (4, 5):
        raise ValueError(f"grid_sample: input must be 4-D or 5-D, got rank {x.ndim}")
    if mode == "bicubic" and x.ndim != 4:
        raise ValueError("grid_sample: mode 'bicubic' needs a 4-D input")
    return apply("GridSample", {"mode": mode, "padding_mode": padding_mode, "align_corners": bool(align_corners)},
                 [x, as_tensor(grid)])


def affine_grid(theta, size, align_corners: bool = False) -> Tensor:
    """``ops.affine_grid(theta, size, align_corners=False)``: the (N, H, W, 2) (or (N, D, H, W, 3)) sampling
    grid of the affine matrices ``theta`` (N, 2, 3) (or (N, 3, 4)) for an output of ``size`` (N, C, H, W) (or
    (N, C, D, H, W)), in grid_sample's normalised coordinates."""
    t = as_tensor(theta)
    dims = [int(d) for d in size]
    spatial = dims[2:]
    r = len(spatial)
    if r not in (2, 3) or t.shape != (dims[0], r, r + 1):
        raise ValueError(f"affine_grid: theta must be (N, {r}, {r + 1}) for size {dims} (4-D or 5-D)")
    axes = [np.linspace(-1, 1, n) if align_corners else (2 * np.arange(n) + 1) / n - 1 for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*(m.reshape(-1) for m in reversed(mesh)), np.ones(math.prod(spatial))], axis=1)
    base = Tensor(np.broadcast_to(base, (dims[0], *base.shape)).astype(t.dtype.np_dtype))
    out = apply("BatchMatMul", {}, [base, apply("Transpose", {"perm": [0, 2, 1]}, [t])])
    return apply("Reshape", {"shape": [dims[0], *spatial, r]}, [out])


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,  # noqa: A002
             recompute_scale_factor=None) -> Tensor:
    """``ops.upsample(...)``: MindSpore's other name of :func:`interpolate`, same arguments and results."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


__all__ = ["affine_grid", "crop_and_resize", "grid_sample", "interpolate", "upsample"]
