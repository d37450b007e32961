"""CPU kernels of GridSample and its backward (ops/grid_sampling.py): per output point each spatial axis's
taps are found at run time (the coordinates are data)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.grid_sampling import CUBIC_A, TAPS
from ..codegen import ctype, load, store
from . import emits


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
    t = TAPS[mode]
    if mode == "nearest":
        lines.append("int64_t tap[1] = {(int64_t)c}; float w[1] = {1.0f}; float dw[1] = {0.0f};")
    else:
        lines.append("const float f = floorf(c), s = c - f;")
        if mode == "bilinear":
            lines.append("int64_t tap[2] = {(int64_t)f, (int64_t)f + 1}; float w[2] = {1.0f - s, s}; "
                         "float dw[2] = {-1.0f, 1.0f};")
        else:
            a = f"{CUBIC_A}f"
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


@emits("GridSample")
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
    t = TAPS[mode]
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


@emits("GridSampleGrad")
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
    t = TAPS[mode]
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
