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
from ..core.ir import KernelSpec, TensorType
from ..core.tensor import Tensor
from ..targets.cpu.codegen import ctype, load, store
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype

MODES = ("nearest", "bilinear", "bicubic")
PADDINGS = ("zeros", "border", "reflection")
_TAPS = {"nearest": 1, "bilinear": 2, "bicubic": 4}
_A = -0.75


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
    a = np.float32(_A)
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
        taps = [first + k for k in range(_TAPS[mode])]
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


# ---- the C emitter ------------------------------------------------------------------------------------

def _reflect_c(v: str, lo: str, hi: str) -> str:
    return (f"({{ const float v_ = {v}, lo_ = {lo}, hi_ = {hi}, rng_ = hi_ - lo_; float r_ = v_; "
            f"if (rng_ == 0.0f) r_ = lo_; "
            f"else if (v_ < lo_) {{ const float dx_ = lo_ - v_; const int64_t n_ = (int64_t)(dx_ / rng_); "
            f"const float m_ = dx_ - (float)n_ * rng_; r_ = (n_ % 2 == 0) ? lo_ + m_ : hi_ - m_; }} "
            f"else if (v_ > hi_) {{ const float dx_ = v_ - hi_; const int64_t n_ = (int64_t)(dx_ / rng_); "
            f"const float m_ = dx_ - (float)n_ * rng_; r_ = (n_ % 2 == 0) ? hi_ - m_ : lo_ + m_; }} r_; }})")


def axis_lines(attrs: dict, x_shape: Sequence[int], grid: TensorType, d: int, grad: bool) -> list[str]:
    """C statements finding spatial axis ``d``'s taps for output point (n, o): ``ix[d][q]``, ``wx[d][q]``,
    ``okx[d][q]``; with ``grad`` also ``dwx[d][q]`` (d weight / d coordinate) and ``dcdg[d]`` (d coordinate /
    d grid value, through unnormalisation and padding). Shared by the forward and backward kernels."""
    mode, pad, align = attrs["mode"], attrs["padding_mode"], attrs["align_corners"]
    spatial = x_shape[2:]
    r = len(spatial)
    points = math.prod(grid.shape[1:-1])
    size = spatial[d]
    lo, hi = ("0.0f", f"{size - 1}.0f") if align else ("-0.5f", f"{size}.0f - 0.5f")
    g = load(grid.dtype, f"in{2 if grad else 1}[(n * {points} + o) * {r} + {r - 1 - d}]")
    unnorm = (f"((float){g} + 1.0f) / 2.0f * ({size}.0f - 1.0f)" if align
              else f"(((float){g} + 1.0f) * {size}.0f - 1.0f) / 2.0f")
    lines = [f"{{ float c = {unnorm};"]
    if grad:
        scale = f"({size}.0f - 1.0f) / 2.0f" if align else f"{size}.0f / 2.0f"
        lines.append(f"dcdg[{d}] = {'0.0f' if mode == 'nearest' else scale};")
    if mode == "nearest":
        lines.append("c = rintf(c);")
    if pad == "border" and (mode != "bicubic" or attrs.get("clamp_cubic")):
        clamp = f"c = c < 0.0f ? 0.0f : (c > {size - 1}.0f ? {size - 1}.0f : c);"
        lines.append(f"if (c < {lo} || c > {hi}) {{ {clamp}{f' dcdg[{d}] = 0.0f;' if grad else ''} }}")
    elif pad == "reflection":
        if grad:  # each reflection flips the coordinate's direction: an even count of them leaves it reversed
            lines.append(f"if (c < {lo} || c > {hi}) {{ const float rng_ = {hi} - {lo}; "
                         f"const float dx_ = c < {lo} ? {lo} - c : c - ({hi}); "
                         f"const int64_t n_ = rng_ == 0.0f ? 0 : (int64_t)(dx_ / rng_); "
                         f"dcdg[{d}] *= rng_ == 0.0f ? 0.0f : ((n_ % 2 == 0) ? -1.0f : 1.0f); }}")
        lines.append(f"if (c < {lo} || c > {hi}) c = {_reflect_c('c', lo, hi)};")
    t = _TAPS[mode]
    if mode == "nearest":
        lines.append("int64_t tap[1] = {(int64_t)c}; float w[1] = {1.0f}; float dw[1] = {0.0f};")
    else:
        lines.append("const float f = floorf(c), s = c - f;")
        if mode == "bilinear":
            lines.append("int64_t tap[2] = {(int64_t)f, (int64_t)f + 1}; float w[2] = {1.0f - s, s}; "
                         "float dw[2] = {-1.0f, 1.0f};")
        else:
            a = f"{_A}f"
            lines.append("const float u = 1.0f - s; int64_t tap[4] = {(int64_t)f - 1, (int64_t)f, "
                         "(int64_t)f + 1, (int64_t)f + 2};")
            lines.append(f"float w[4] = {{(({a} * (s + 1.0f) - 5.0f * {a}) * (s + 1.0f) + 8.0f * {a}) * "
                         f"(s + 1.0f) - 4.0f * {a}, (({a} + 2.0f) * s - ({a} + 3.0f)) * s * s + 1.0f, "
                         f"(({a} + 2.0f) * u - ({a} + 3.0f)) * u * u + 1.0f, (({a} * (u + 1.0f) - 5.0f * {a}) "
                         f"* (u + 1.0f) + 8.0f * {a}) * (u + 1.0f) - 4.0f * {a}}};")
            # d/ds of the four weights (u = 1 - s)
            lines.append(f"float dw[4] = {{3.0f * {a} * (s + 1.0f) * (s + 1.0f) - 10.0f * {a} * (s + 1.0f) "
                         f"+ 8.0f * {a}, 3.0f * ({a} + 2.0f) * s * s - 2.0f * ({a} + 3.0f) * s, "
                         f"-(3.0f * ({a} + 2.0f) * u * u - 2.0f * ({a} + 3.0f) * u), "
                         f"-(3.0f * {a} * (u + 1.0f) * (u + 1.0f) - 10.0f * {a} * (u + 1.0f) + 8.0f * {a})}};")
    lines.append(f"for (int q = 0; q < {t}; q++) {{ int64_t i = tap[q]; int ok = 1;")
    if pad == "zeros":
        lines.append(f"ok = i >= 0 && i < {size}; if (!ok) i = 0;")
    elif pad == "border":
        lines.append(f"i = i < 0 ? 0 : (i > {size - 1} ? {size - 1} : i);")
    else:
        lines.append(f"i = (int64_t){_reflect_c('(float)i', lo, hi)};")
    lines.append(f"ix[{d}][q] = i; wx[{d}][q] = w[q]; okx[{d}][q] = ok;{f' dwx[{d}][q] = dw[q];' if grad else ''} "
                 f"}}{' (void)dw;' if not grad else ''} }}")
    return lines


def grid_sample_emit(k: KernelSpec) -> str:
    """C body: per output point, each axis's taps (indices, weights, in-range flags), then per channel the
    weighted sum over every tap combination."""
    x, grid = k.inputs
    out = k.outputs[0]
    if out.size == 0:
        return "/* empty */"
    dt = x.dtype
    mode = k.attrs["mode"]
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    points = math.prod(grid.shape[1:-1])
    volume = math.prod(spatial)
    t = _TAPS[mode]
    lines = [f"for (int64_t n = 0; n < {n_}; n++)", f"for (int64_t o = 0; o < {points}; o++) {{",
             f"int64_t ix[{r}][{t}]; float wx[{r}][{t}]; int okx[{r}][{t}];"]
    for d in range(r):
        lines += axis_lines(k.attrs, x.shape, grid, d, grad=False)
    strides = [math.prod(spatial[d + 1:]) for d in range(r)]
    lines.append(f"for (int64_t ch = 0; ch < {c_}; ch++) {{")
    lines.append(f"double acc = 0.0; const int64_t base = (n * {c_} + ch) * {volume};")
    for d in range(r):
        lines.append(f"for (int q{d} = 0; q{d} < {t}; q{d}++) {{ if (!okx[{d}][q{d}]) continue;")
    offset = " + ".join(f"ix[{d}][q{d}] * {strides[d]}" for d in range(r))
    weight = " * ".join(f"(double)wx[{d}][q{d}]" for d in range(r))
    lines.append(f"acc += {weight} * (double){load(dt, f'in0[base + {offset}]')};")
    lines.append("}" * r)
    lines.append(f"out0[(n * {c_} + ch) * {points} + o] = {store(dt, 'acc', 'double')}; }}")
    lines.append("}")
    return "\n".join(lines)


@defop(infer=_infer, emit=grid_sample_emit, reference=grid_sample_reference, normalize=_normalize, n_inputs=2)
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


def grid_sample_grad_emit(k: KernelSpec) -> str:
    """C body: the forward's taps per output point; each channel's cotangent is scattered into dx with the
    tap weights, and its product with the taps' values and the weights' derivatives gives d grid."""
    dy, x, grid = k.inputs
    dt = x.dtype
    mode = k.attrs["mode"]
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    r = len(spatial)
    points = math.prod(grid.shape[1:-1])
    volume = math.prod(spatial)
    t = _TAPS[mode]
    lines = [f"memset(out0, 0, {x.size} * sizeof(*out0));" if x.size else "",
             f"memset(out1, 0, {grid.size} * sizeof(*out1));" if grid.size else ""]
    if dy.size == 0 or x.size == 0:
        return "\n".join(lines)
    lines += [f"for (int64_t n = 0; n < {n_}; n++)", f"for (int64_t o = 0; o < {points}; o++) {{",
              f"int64_t ix[{r}][{t}]; float wx[{r}][{t}], dwx[{r}][{t}]; int okx[{r}][{t}]; float dcdg[{r}];",
              f"double gacc[{r}] = {{0}};"]
    for d in range(r):
        lines += axis_lines(k.attrs, x.shape, grid, d, grad=True)
    strides = [math.prod(spatial[d + 1:]) for d in range(r)]
    lines.append(f"for (int64_t ch = 0; ch < {c_}; ch++) {{")
    lines.append(f"const int64_t base = (n * {c_} + ch) * {volume};")
    lines.append(f"const double g = (double)in0[(n * {c_} + ch) * {points} + o];")
    for d in range(r):
        lines.append(f"for (int q{d} = 0; q{d} < {t}; q{d}++) {{ if (!okx[{d}][q{d}]) continue;")
    offset = " + ".join(f"ix[{d}][q{d}] * {strides[d]}" for d in range(r))
    weight = " * ".join(f"(double)wx[{d}][q{d}]" for d in range(r))
    lines.append(f"const int64_t at = base + {offset};")
    lines.append(f"out0[at] += ({ctype(dt)})(g * {weight});")
    lines.append("const double v = g * (double)in1[at];")
    for d in range(r):
        others = " * ".join([f"(double)wx[{e}][q{e}]" for e in range(r) if e != d] + [f"(double)dwx[{d}][q{d}]"])
        lines.append(f"gacc[{d}] += v * {others};")
    lines.append("}" * r)
    lines.append("}")
    for d in range(r):
        lines.append(f"out1[(n * {points} + o) * {r} + {r - 1 - d}] = ({ctype(dt)})(gacc[{d}] * dcdg[{d}]);")
    lines.append("}")
    return "\n".join(lines)


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


@defop(infer=_grad_infer, emit=grid_sample_grad_emit, reference=_grad_reference, normalize=_normalize, n_inputs=3,
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


__all__ = ["GridSample", "GridSampler2D", "GridSampler3D", "PRIMITIVES", "grid_sample_emit",
           "grid_sample_reference"]
