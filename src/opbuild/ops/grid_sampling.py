"""GridSample: sampling an (N, C, *spatial) tensor at the normalised coordinates of a grid (MindSpore's
``GridSampler2D``/``GridSampler3D`` and ``ops.grid_sample``, ONNX GridSample), for 1 to 3 spatial axes.

``grid`` has shape (N, *out, R) with R the number of spatial axes, its last axis holding (x, y[, z]) in
[-1, 1], x indexing the last spatial axis. A coordinate is unnormalised with ``align_corners``
(``(g + 1) / 2 * (L - 1)``) or without (``((g + 1) * L - 1) / 2``); ``mode`` nearest (round half to even),
bilinear (2 taps per axis) or bicubic (4 taps, Keys' kernel with a = -0.75); ``padding_mode`` zeros (taps
outside read 0), border (coordinates and taps clamped) or reflection (reflected at the borders). Coordinates
are computed in float32, as ONNX's reference and torch do for float32 inputs. One difference between the
two: with bicubic and border padding, ONNX clamps the coordinate before taking its taps (``clamp_cubic``,
set by the ONNX importer), torch and MindSpore clamp each tap only (the default).

The coordinates are run-time values, so this is a kernel of its own (each output's taps are found per
element), not a composition; so is its backward (``GridSampleGrad``: d input and d grid, from the same taps
and the weights' derivatives; nearest sampling and clamped coordinates pass no gradient to the grid).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ALL_FLOATS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype

MODES = ("nearest", "bilinear", "bicubic")
PADDINGS = ("zeros", "border", "reflection")
TAPS = {"nearest": 1, "bilinear": 2, "bicubic": 4}
CUBIC_A = -0.75


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    mode, pad = attrs.get("mode", "bilinear"), attrs.get("padding_mode", "zeros")
    if mode not in MODES:
        raise ShapeError("GridSample", f"mode must be one of {', '.join(MODES)}, got {mode!r}", list(ins))
    if pad not in PADDINGS:
        raise ShapeError("GridSample", f"padding_mode must be one of {', '.join(PADDINGS)}, got {pad!r}", list(ins))
    return {"mode": mode, "padding_mode": pad, "align_corners": bool(attrs.get("align_corners", False)),
            "clamp_cubic": bool(attrs.get("clamp_cubic", False)) and mode == "bicubic" and pad == "border"}


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, grid = ins
    same_dtype("GridSample", ins, ALL_FLOATS)
    r = x.rank - 2
    if r not in (1, 2, 3) or grid.rank != x.rank or grid.shape[-1] != r or grid.shape[0] != x.shape[0]:
        raise ShapeError("GridSample", "input must be (N, C, *spatial) with 1 to 3 spatial axes and grid "
                         "(N, *out, R) with R the number of spatial axes", list(ins))
    return [TensorType((x.shape[0], x.shape[1], *grid.shape[1:-1]), x.dtype)]


# ---- NumPy reference (vectorised over every output point) -----------------------------------------------

def _reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    rng = hi - lo
    if rng == 0:
        return np.full_like(x, lo)
    below, above = x < lo, x > hi
    dx = np.where(below, lo - x, np.where(above, x - hi, 0))
    n = np.trunc(dx / rng)
    r = dx - n * rng
    even = (n % 2) == 0
    out = np.where(below, np.where(even, lo + r, hi - r), np.where(above, np.where(even, hi - r, lo + r), x))
    return out.astype(x.dtype)


def _cubic(t: np.ndarray) -> list[np.ndarray]:
    a = np.float32(CUBIC_A)
    s = 1 - t
    return [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1, ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a]


def _axis_taps(g: np.ndarray, size: int, attrs: dict) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(indices, weights, in-range masks) of one spatial axis for coordinates ``g`` (float32)."""
    align, pad, mode = attrs["align_corners"], attrs["padding_mode"], attrs["mode"]
    length = np.float32(size)
    x = ((g + 1) / 2 * (length - 1)) if align else (((g + 1) * length - 1) / 2)
    x = x.astype(np.float32)
    lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
    if mode == "nearest":
        x = np.rint(x)
    out = (x < lo) | (x > hi)
    if pad == "border" and (mode != "bicubic" or attrs.get("clamp_cubic")):
        x = np.where(out, np.clip(x, 0, size - 1), x)
    elif pad == "reflection":
        x = np.where(out, _reflect(x, np.float32(lo), np.float32(hi)), x)
    if mode == "nearest":
        taps, weights = [np.trunc(x).astype(np.int64)], [np.ones_like(x)]
    else:
        f = np.floor(x)
        t = (x - f).astype(np.float32)
        first = f.astype(np.int64) - (1 if mode == "bicubic" else 0)
        taps = [first + k for k in range(TAPS[mode])]
        weights = [1 - t, t] if mode == "bilinear" else _cubic(t)
    idx, ok = [], []
    for i in taps:
        if pad == "zeros":
            ok.append((i >= 0) & (i < size))
            idx.append(np.clip(i, 0, size - 1))
        elif pad == "border":
            ok.append(np.ones(i.shape, bool))
            idx.append(np.clip(i, 0, size - 1))
        else:
            ok.append(np.ones(i.shape, bool))
            idx.append(np.trunc(_reflect(i.astype(np.float32), np.float32(lo), np.float32(hi))).astype(np.int64))
    return idx, weights, ok


def grid_sample_reference(attrs: dict, x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """NumPy GridSample (the kernel's algorithm, vectorised)."""
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    out_sp = grid.shape[1:-1]
    g = grid.reshape(n_, -1, r).astype(np.float32)
    per_axis = [_axis_taps(g[:, :, r - 1 - d], spatial[d], attrs) for d in range(r)]
    xs = x.astype(np.float64).reshape(n_, c_, -1)
    strides = [math.prod(spatial[d + 1:]) for d in range(r)]
    acc = np.zeros((n_, c_, g.shape[1]))
    for combo in np.ndindex(*[len(p[0]) for p in per_axis]):
        flat = sum(per_axis[d][0][k] * strides[d] for d, k in enumerate(combo))
        w = np.prod([per_axis[d][1][k].astype(np.float64) for d, k in enumerate(combo)], axis=0)
        ok = np.all([per_axis[d][2][k] for d, k in enumerate(combo)], axis=0)
        vals = np.take_along_axis(xs, np.broadcast_to(flat[:, None, :], (n_, c_, flat.shape[1])), axis=2)
        acc += np.where(ok[:, None, :], vals * w[:, None, :], 0.0)
    return acc.reshape(n_, c_, *out_sp).astype(x.dtype)


@defop(infer=_infer, reference=grid_sample_reference, normalize=_normalize, n_inputs=2)
class GridSample(Primitive):
    """``GridSample(mode='bilinear', padding_mode='zeros', align_corners=False)(input, grid)`` (see the
    module); MindSpore's classes are ``GridSampler2D``/``GridSampler3D``."""

    def __init__(self, mode: str = "bilinear", padding_mode: str = "zeros", align_corners: bool = False):
        super().__init__(mode=mode, padding_mode=padding_mode, align_corners=align_corners)


class GridSampler2D(Primitive):
    """``GridSampler2D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x,
    grid)``: GridSample of an (N, C, H, W) input by an (N, H', W', 2) grid."""

    op_name = "GridSample"
    _rank = 4

    def __init__(self, interpolation_mode: str = "bilinear", padding_mode: str = "zeros",
                 align_corners: bool = False):
        super().__init__(mode=interpolation_mode, padding_mode=padding_mode, align_corners=align_corners)

    def __call__(self, input_x: Any, grid: Any) -> Tensor:
        x = input_x if isinstance(input_x, Tensor) else Tensor(np.asarray(input_x))
        if x.ndim != self._rank:
            raise ValueError(f"{type(self).__name__}: input_x must be {self._rank}-D, got rank {x.ndim}")
        return apply("GridSample", self.attrs, [x, grid])


class GridSampler3D(GridSampler2D):
    """``GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros', align_corners=False)(input_x,
    grid)``: GridSample of an (N, C, D, H, W) input by an (N, D', H', W', 3) grid."""

    _rank = 5


PRIMITIVES: dict[str, type[Primitive]] = {"GridSampler2D": GridSampler2D, "GridSampler3D": GridSampler3D}


# ---- backward ---------------------------------------------------------------------------------------------

def _grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dy, x, grid = ins
    same_dtype("GridSampleGrad", ins, ("float32", "float64"))
    return [TensorType(x.shape, x.dtype), TensorType(grid.shape, grid.dtype)]


def _grad_reference(attrs: dict, dy: np.ndarray, x: np.ndarray, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Central differences of the forward reference in float64 for d grid, and the forward's linear map's
    transpose for dx (used by constant folding only: tests compare the kernel with finite differences)."""
    eps = 1e-4
    xs, gs = x.astype(np.float64), grid.astype(np.float64)
    dx = np.zeros_like(xs)
    for i in np.ndindex(*x.shape):
        e = np.zeros_like(xs)
        e[i] = 1.0
        dx[i] = float((grid_sample_reference(attrs, e, gs) * dy).sum())
    dg = np.zeros_like(gs)
    for i in np.ndindex(*grid.shape):
        p, m = gs.copy(), gs.copy()
        p[i] += eps
        m[i] -= eps
        dg[i] = float(((grid_sample_reference(attrs, xs, p) - grid_sample_reference(attrs, xs, m)) * dy).sum()
                      / (2 * eps))
    return dx.astype(x.dtype), dg.astype(grid.dtype)


@defop(infer=_grad_infer, reference=_grad_reference, normalize=_normalize, n_inputs=3,
       multi_output=True, scenario="backward")
class GridSampleGrad(Primitive):
    """``GridSampleGrad(...)(dout, input, grid)``: (d input, d grid) of GridSample (float32/float64)."""


@grad_rule("GridSample")
def _grid_sample_grad(attrs, ins, outs, douts):
    """The backward kernel, in float32 for half inputs (cast back to their dtypes)."""
    x, grid = ins
    dt = x._type.dtype
    if dt in ("float16", "bfloat16"):
        f32 = [apply("Cast", {"dtype": "float32"}, [t]) for t in (douts[0], x, grid)]
        dx, dg = apply("GridSampleGrad", attrs, f32)
        return [apply("Cast", {"dtype": dt}, [dx]), apply("Cast", {"dtype": dt}, [dg])]
    dx, dg = apply("GridSampleGrad", attrs, [douts[0], x, grid])
    return [dx, dg]


__all__ = ["GridSample", "GridSampler2D", "GridSampler3D", "PRIMITIVES",
           "grid_sample_reference"]
