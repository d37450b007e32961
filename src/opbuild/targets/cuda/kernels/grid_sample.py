"""GPU kernels of GridSample and GridSampleGrad (ops/grid_sampling.py): 1 to 3 spatial axes, every mode
(nearest, bilinear, bicubic), padding mode (zeros, border, reflection), ``align_corners`` and ``clamp_cubic``.

The coordinates are data, so each output point finds its taps at run time, per axis, with the CPU kernel's
float32 arithmetic (targets/cpu/kernels/grid_sampling.py): unnormalise, round (nearest), clamp or reflect,
the taps' indices, weights and in-range flags; the backward also the weights' derivatives and the
coordinate's derivative through the padding.

GridSample: one thread per output element (a grid-stride loop), the weighted sum over the tap combinations
in double, as on the CPU.

GridSampleGrad, in gather form (no atomics): one grid-stride loop over the ``x.size`` input-gradient elements
and then the ``N * points`` grid points. An input element visits every output point of its image, in order,
and adds ``dy * weight`` for each tap combination landing on it (in the CPU's order of additions, so the
result is the CPU's scatter's); this is ``points`` tap searches per element -- simple, correct for any
launch, and slow for large images (a faster form awaits a GPU to measure it). A grid point sums, over the
channels and taps, ``dy * x[tap]`` times the other axes' weights and its axis's weight derivative, in double,
times the coordinate's derivative.

float16/bfloat16 GridSample (the CPU's rule): the grid loads into float, x into double through float, and the
double sum rounds once on store; GridSampleGrad takes float32/float64 only (the gradient rule casts half
operands to float32), as the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.grid_sampling import TAPS
from ...grid_taps_c import axis_taps
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register

# Reflection of v into [lo, hi], as the CPU kernel computes it (float32), as a lambda in the kernel's body.
_REFLECT = ("  auto ob_reflect = [](const float v, const float lo, const float hi) -> float {\n"
            "    const float rng = hi - lo; float r = v;\n"
            "    if (rng == 0.0f) r = lo;\n"
            "    else if (v < lo) { const float dx = lo - v; const int64_t n = (int64_t)(dx / rng);\n"
            "      const float m = dx - (float)n * rng; r = (n % 2 == 0) ? lo + m : hi - m; }\n"
            "    else if (v > hi) { const float dx = v - hi; const int64_t n = (int64_t)(dx / rng);\n"
            "      const float m = dx - (float)n * rng; r = (n % 2 == 0) ? hi - m : lo + m; }\n"
            "    return r;\n  };\n")


def _axis(attrs: dict, x_shape: Sequence[int], grid: TensorType, d: int, grid_in: str, grad: bool) -> str:
    """Statements finding axis ``d``'s taps of grid point (``n``, ``o``) (targets/grid_taps_c.py, the CPU
    kernel's text): ``ix[d][q]``, ``wx[d][q]``, ``okx[d][q]``; with ``grad`` also ``dwx[d][q]`` and ``dcdg[d]``."""
    spatial = x_shape[2:]
    r = len(spatial)
    points = math.prod(grid.shape[1:-1])
    g = f"(float){half.load(grid.dtype, f'{grid_in}[(n * {points}LL + o) * {r}LL + {r - 1 - d}LL]')}"
    return "\n    ".join(axis_taps(attrs, spatial[d], d, g, grad, lambda v, lo, hi: f"ob_reflect({v}, {lo}, {hi})"))


def _taps(k: KernelSpec, x_shape: Sequence[int], grid: TensorType, grid_in: str, grad: bool) -> str:
    r, t = len(x_shape) - 2, TAPS[k.attrs["mode"]]
    head = f"int64_t ix[{r}][{t}]; float wx[{r}][{t}]; int okx[{r}][{t}];"
    if grad:
        head += f" float dwx[{r}][{t}]; float dcdg[{r}];"
    return "\n    ".join([head, *(_axis(k.attrs, x_shape, grid, d, grid_in, grad) for d in range(r))])


def _combos(r: int, t: int, body: str) -> str:
    """``body`` for every combination (q0, ..., q(r-1)) of in-range taps."""
    loops = " ".join(f"for (int q{d} = 0; q{d} < {t}; q{d}++) {{ if (!okx[{d}][q{d}]) continue;" for d in range(r))
    return f"{loops} {body} {'}' * r}"


def _offset(spatial: Sequence[int]) -> str:
    r = len(spatial)
    return " + ".join(f"ix[{d}][q{d}] * {math.prod(spatial[d + 1:])}LL" for d in range(r))


def _weight(r: int) -> str:
    return " * ".join(f"(double)wx[{d}][q{d}]" for d in range(r))


def _emit_forward(k: KernelSpec) -> str:
    x, grid = k.inputs
    out = k.outputs[0]
    if out.size == 0:
        return ""
    c_, spatial = x.shape[1], x.shape[2:]
    r, t = len(spatial), TAPS[k.attrs["mode"]]
    points, volume = math.prod(grid.shape[1:-1]), math.prod(spatial)
    stmt = (f"const int64_t o = e % {points}LL, ch = (e / {points}LL) % {c_}LL, n = e / {points * c_}LL;\n    "
            + _taps(k, x.shape, grid, "in1", False)
            + f"\n    double acc = 0.0; const {ctype(x.dtype)} *img = in0 + (n * {c_}LL + ch) * {volume}LL;\n    "
            + _combos(r, t, f"acc += {_weight(r)} * (double){half.load(x.dtype, f'img[{_offset(spatial)}]')};")
            + f"\n    out0[e] = {half.store(x.dtype, 'acc', 'double')};")
    return _REFLECT + grid_loop(out.size, "e", stmt)


def _emit_grad(k: KernelSpec) -> str:
    dy, x, grid = k.inputs
    c_, spatial = x.shape[1], x.shape[2:]
    r, t = len(spatial), TAPS[k.attrs["mode"]]
    points, volume = math.prod(grid.shape[1:-1]), math.prod(spatial)
    n_points = x.shape[0] * points
    if x.size + n_points == 0:
        return ""
    tt = ctype(x.dtype)
    dx = ""
    if x.size:  # input element e gathers every (point, tap combination) of its image landing on it
        dx = (f"if (e < {x.size}LL) {{\n"
              f"    const int64_t i = e % {volume}LL, ch = (e / {volume}LL) % {c_}LL, n = e / {volume * c_}LL;\n"
              f"    {tt} acc = 0;\n"
              f"    for (int64_t o = 0; o < {points}LL; o++) {{\n    "
              + _taps(k, x.shape, grid, "in2", False)
              + f"\n    const double g = (double)in0[(n * {c_}LL + ch) * {points}LL + o];\n    "
              + _combos(r, t, f"if ({_offset(spatial)} == i) acc += ({tt})(g * {_weight(r)});")
              + "\n    }\n    out0[e] = acc;\n  } else ")
    dg_terms = "\n    ".join(
        f"gacc[{d}] += v * " + " * ".join([f"(double)wx[{e}][q{e}]" for e in range(r) if e != d]
                                         + [f"(double)dwx[{d}][q{d}]"]) + ";" for d in range(r))
    dg = (f"{{\n    const int64_t pt = e - {x.size}LL, o = pt % {points}LL, n = pt / {points}LL;\n    "
          + _taps(k, x.shape, grid, "in2", True)
          + f"\n    double gacc[{r}] = {{0}};\n"
          f"    for (int64_t ch = 0; ch < {c_}LL; ch++) {{\n"
          f"    const {tt} *img = in1 + (n * {c_}LL + ch) * {volume}LL;\n"
          f"    const double g = (double)in0[(n * {c_}LL + ch) * {points}LL + o];\n    "
          + _combos(r, t, f"const double v = g * (double)img[{_offset(spatial)}];\n    {dg_terms}")
          + "\n    }\n    "
          + " ".join(f"out1[(n * {points}LL + o) * {r}LL + {r - 1 - d}LL] = ({tt})(gacc[{d}] * dcdg[{d}]);"
                     for d in range(r))
          + "\n  }")
    return _REFLECT + grid_loop(x.size + n_points, "e", dx + dg)


register("GridSample", _emit_forward)
register("GridSampleGrad", _emit_grad)
half.allow("GridSample")  # its gradient runs in float32 (ops/grid_sampling.py casts half operands)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("GridSample", "GridSampleGrad")

__all__ = ["OPS"]
