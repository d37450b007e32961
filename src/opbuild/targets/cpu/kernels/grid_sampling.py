"""CPU kernels of GridSample and its backward (ops/grid_sampling.py): per output point each spatial axis's
taps are found at run time (the coordinates are data)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.grid_sampling import TAPS
from ...grid_taps_c import axis_taps
from ..codegen import ctype, load, store
from .registry import emits


def _reflect_c(v: str, lo: str, hi: str) -> str:
    return (f"({{ const float v_ = {v}, lo_ = {lo}, hi_ = {hi}, rng_ = hi_ - lo_; float r_ = v_; "
            f"if (rng_ == 0.0f) r_ = lo_; "
            f"else if (v_ < lo_) {{ const float dx_ = lo_ - v_; const int64_t n_ = (int64_t)(dx_ / rng_); "
            f"const float m_ = dx_ - (float)n_ * rng_; r_ = (n_ % 2 == 0) ? lo_ + m_ : hi_ - m_; }} "
            f"else if (v_ > hi_) {{ const float dx_ = v_ - hi_; const int64_t n_ = (int64_t)(dx_ / rng_); "
            f"const float m_ = dx_ - (float)n_ * rng_; r_ = (n_ % 2 == 0) ? hi_ - m_ : lo_ + m_; }} r_; }})")


def axis_lines(attrs: dict, x_shape: Sequence[int], grid: TensorType, d: int, grad: bool) -> list[str]:
    """C statements finding spatial axis ``d``'s taps for output point (n, o) (targets/grid_taps_c.py, the text
    the GPU's kernels run too): ``ix[d][q]``, ``wx[d][q]``, ``okx[d][q]``; with ``grad`` also ``dwx[d][q]``
    and ``dcdg[d]``. Shared by the forward and backward kernels."""
    spatial = x_shape[2:]
    r = len(spatial)
    points = math.prod(grid.shape[1:-1])
    g = load(grid.dtype, f"in{2 if grad else 1}[(n * {points} + o) * {r} + {r - 1 - d}]")
    return axis_taps(attrs, spatial[d], d, f"(float){g}", grad, _reflect_c)


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
