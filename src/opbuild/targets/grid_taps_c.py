"""The C text both targets' GridSample kernels run to find one spatial axis's taps of a grid point (valid C for
the CPU and CUDA C++ for the GPU), so that the two compute the same float32 arithmetic from one source.

From the grid value (the target's expression of it as a float): unnormalise it to the axis (``align_corners``),
round it (nearest), clamp or reflect it (the padding mode), then the taps' indices ``ix[d][q]``, weights
``wx[d][q]`` and in-range flags ``okx[d][q]``; for the backward also the weights' derivatives ``dwx[d][q]``
and the coordinate's derivative ``dcdg[d]`` through unnormalisation and padding. Reflection into
``[lo, hi]`` is the target's C (``reflect``: an expression in the CPU's C, a lambda the GPU kernel defines).
"""

from __future__ import annotations

from collections.abc import Callable

from ..ops.grid_sampling import CUBIC_A, TAPS


def axis_taps(attrs: dict, size: int, d: int, coord: str, grad: bool,
              reflect: Callable[[str, str, str], str]) -> list[str]:
    """C statements finding axis ``d`` (of ``size`` positions)'s taps from ``coord`` (a float expression of the
    grid value); ``reflect(v, lo, hi)``: the target's C expression reflecting float ``v`` into ``[lo, hi]``."""
    mode, pad, align = attrs["mode"], attrs["padding_mode"], attrs["align_corners"]
    lo, hi = ("0.0f", f"{size - 1}.0f") if align else ("-0.5f", f"({size}.0f - 0.5f)")
    unnorm = (f"({coord} + 1.0f) / 2.0f * ({size}.0f - 1.0f)" if align
              else f"(({coord} + 1.0f) * {size}.0f - 1.0f) / 2.0f")
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
                         f"const float dx_ = c < {lo} ? {lo} - c : c - {hi}; "
                         f"const int64_t n_ = rng_ == 0.0f ? 0 : (int64_t)(dx_ / rng_); "
                         f"dcdg[{d}] *= rng_ == 0.0f ? 0.0f : ((n_ % 2 == 0) ? -1.0f : 1.0f); }}")
        lines.append(f"if (c < {lo} || c > {hi}) c = {reflect('c', lo, hi)};")
    if mode == "nearest":
        lines.append("int64_t tap[1] = {(int64_t)c}; float w[1] = {1.0f}; float dw[1] = {0.0f};")
    else:
        lines.append("const float f = floorf(c), s = c - f;")
        if mode == "bilinear":
            lines.append("int64_t tap[2] = {(int64_t)f, (int64_t)f + 1}; float w[2] = {1.0f - s, s}; "
                         "float dw[2] = {-1.0f, 1.0f};")
        else:
            a = f"({CUBIC_A}f)"
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
    lines.append(f"for (int q = 0; q < {TAPS[mode]}; q++) {{ int64_t i = tap[q]; int ok = 1;")
    if pad == "zeros":
        lines.append(f"ok = i >= 0 && i < {size}LL; if (!ok) i = 0;")
    elif pad == "border":
        lines.append(f"i = i < 0 ? 0 : (i > {size - 1}LL ? {size - 1}LL : i);")
    else:
        lines.append(f"i = (int64_t){reflect('(float)i', lo, hi)};")
    lines.append(f"ix[{d}][q] = i; wx[{d}][q] = w[q]; okx[{d}][q] = ok;{f' dwx[{d}][q] = dw[q];' if grad else ''} "
                 f"}} (void)dw; }}")
    return lines


__all__ = ["axis_taps"]
