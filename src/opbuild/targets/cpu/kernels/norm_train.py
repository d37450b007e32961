"""CPU kernels of BatchNorm's training form and its backward (ops/norm_train.py): statistics accumulate in
double per channel; the layout is seen as ``(outer, C, inner)`` (NCHW: inner = H * W; NHWC and (N, C):
inner = 1), so one loop nest serves every layout. Half types are loaded into float, computed in double and
rounded once on store."""

from __future__ import annotations

import numpy as np

from ....core.ir import KernelSpec
from ..codegen import load, store
from .registry import register


def _layout(k: KernelSpec) -> tuple[int, int, int]:
    """(outer, C, inner) of the input; kept in this module (not normalization.py's helpers) so that the
    code-generator hash (sources.py) of these ops stays per family."""
    x = k.inputs[1] if k.op == "BatchNormGrad" else k.inputs[0]
    axis = 3 if (x.rank == 4 and k.attrs["data_format"] == "NHWC") else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))


def _loop(outer: int, c: int, inner: int, body: str) -> str:
    """``body`` for every element of channel ``ch`` (index ``i``)."""
    return (f"for (int64_t o = 0; o < {outer}; o++) for (int64_t j = 0; j < {inner}; j++) {{ "
            f"const int64_t i = (o * {c} + ch) * {inner} + j; {body} }}")


def _train_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    xt, pt = k.inputs[0].dtype, k.inputs[1].dtype
    m = outer * inner
    mom, eps = k.attrs["momentum"], k.attrs["epsilon"]
    unbias = m / (m - 1) if m > 1 else 1.0
    x = load(xt, "in0[i]")
    new_mean = f"(1.0 - {mom!r}) * {load(pt, 'in3[ch]')} + {mom!r} * mean"
    new_var = f"(1.0 - {mom!r}) * {load(pt, 'in4[ch]')} + {mom!r} * var * {unbias!r}"

    def p(ref: str) -> str:  # a per-channel input
        return load(pt, ref)

    def ps(expr: str) -> str:  # a per-channel result, rounded once into the parameters' type
        return store(pt, expr, "double")

    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        "double s = 0, ss = 0;",
        _loop(outer, c, inner, f"s += {x};"),
        f"const double mean = s / {m}.0;" if m else "const double mean = NAN;",
        _loop(outer, c, inner, f"const double d = {x} - mean; ss += d * d;"),
        f"const double var = ss / {m}.0;" if m else "const double var = NAN;",
        f"const double rstd = 1.0 / sqrt(var + {eps!r});",
        f"const double a = {p('in1[ch]')} * rstd, b = {p('in2[ch]')} - mean * a;",
        _loop(outer, c, inner, f"out0[i] = {store(xt, f'{x} * a + b', 'double')};"),
        f"out1[ch] = {ps('mean')}; out2[ch] = {ps('var')}; out3[ch] = {ps('mean')}; out4[ch] = {ps('rstd')};",
        f"out5[ch] = {ps(new_mean)}; out6[ch] = {ps(new_var)};",
        "}"])


def _grad_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    xt, pt = k.inputs[0].dtype, k.inputs[2].dtype
    m = outer * inner
    zero = store(pt, "0.0", "double")
    if m == 0:
        return f"for (int64_t ch = 0; ch < {c}; ch++) {{ out1[ch] = {zero}; out2[ch] = {zero}; }}"
    # in0 = dy, in1 = x, in2 = scale, in3 = save_mean, in4 = save_rstd
    dy, x = load(xt, "in0[i]"), load(xt, "in1[i]")
    dx = store(xt, f"k * ({m}.0 * dy - sdy - (xv - mu) * rstd * sdyx)", "double")
    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        f"const double mu = {load(pt, 'in3[ch]')}, rstd = {load(pt, 'in4[ch]')};",
        "double sdy = 0, sdyx = 0;",
        _loop(outer, c, inner, f"const double dy = {dy}, xv = {x}; sdy += dy; sdyx += dy * (xv - mu) * rstd;"),
        f"const double k = {load(pt, 'in2[ch]')} * rstd / {m}.0;",
        _loop(outer, c, inner, f"const double dy = {dy}, xv = {x}; out0[i] = {dx};"),
        f"out1[ch] = {store(pt, 'sdyx', 'double')}; out2[ch] = {store(pt, 'sdy', 'double')};",
        "}"])


register("BatchNormTraining", _train_emit)
register("BatchNormGrad", _grad_emit)
