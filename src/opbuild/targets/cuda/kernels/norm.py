"""GPU kernels of the normalisations and the bias (ops/normalization.py, ops/norm_train.py, ops/matmul.py):
BatchNorm (inference), BatchNormTraining, BatchNormGrad, LayerNorm (unfused), BiasAdd and BiasAddGrad, in every
layout the ops accept (NCHW, NHWC, (N, C); the bias on axis 1 or last).

The input is seen as ``(outer, C, inner)`` around its channel axis, as the CPU's kernels see it.

* BatchNorm and BiasAdd: one thread per element (a grid-stride loop), the channel's coefficients read per
  element; BatchNorm computes ``(x - mean) * (scale / sqrt(variance + eps)) + bias`` in the element type in
  the CPU's order.
* BatchNormTraining, BatchNormGrad, BiasAddGrad: one block per channel (a block-stride loop over channels):
  the threads sum strided parts of the channel's ``outer * inner`` elements in double (the CPU's accumulator
  for these ops), combined by the shared-memory tree of reduction.py; then the block writes the channel's
  elements (y, dx) and thread 0 its statistics. BatchNorm's two passes (mean, then squared deviations) are the
  CPU's; the moving statistics' update uses the unbiased batch variance, as ops/norm_train.py states.
* LayerNorm: one block per normalised row; the mean, then the squared deviations, summed in the element type
  (float for float32, as the CPU's kernel), then y with gamma and beta read at the element's flat index
  modulo their size, and thread 0 writes the row's mean and variance.

Integer BiasAdd/BiasAddGrad compute in their own type (the CPU's rule). float16 and bfloat16 as the CPU's
kernels (half.py): elements and parameters (of x's type or float32) load into float; BatchNorm, LayerNorm and
BiasAdd compute in float, BatchNormTraining/BatchNormGrad/BiasAddGrad in double as above, and every output
rounds once on store (the statistics into the parameters' type, LayerNorm's into x's).
"""

from __future__ import annotations

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops.normalization import _bn_channel_axis
from .. import half
from ..codegen import ctype, grid_loop
from .reduction import block_reduce
from .registry import register


def _prod(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _lit(value: float, dtype: str) -> str:
    return repr(float(value)) + ("f" if half.compute_ctype(dtype) == "float" else "")


def _ld(dtype: str, ref: str) -> str:
    return half.load(dtype, ref)


def _layout(shape, axis: int) -> tuple[int, int, int]:
    return _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])


def _channel(c: int, inner: int, var: str = "o") -> str:
    return f"(({var} / {inner}LL) % {c}LL)" if inner > 1 else f"({var} % {c}LL)"


def _channels(c: int, body: str) -> str:
    """``body`` once per channel ``ch``, one block per channel (block-stride loop)."""
    return f"  for (int64_t ch = blockIdx.x; ch < {c}LL; ch += gridDim.x) {{\n{body}  }}"


def _elem(c: int, inner: int, var: str) -> str:
    """The flat index of element ``var`` (in [0, outer * inner)) of channel ``ch``."""
    return f"(({var} / {inner}LL) * {c}LL + ch) * {inner}LL + {var} % {inner}LL" if inner > 1 else \
        f"{var} * {c}LL + ch"


def _sum(name: str, m: int, idx: str, term: str) -> str:
    """A channel's double sum ``name`` of ``term`` (of the element at flat index ``i``) over its ``m`` elements."""
    return (f"    double {name}_p = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) {{ const int64_t i = {idx}; "
            f"{name}_p += {term}; }}\n" + block_reduce("double", "(a + b)", f"{name}_p", name))


def _emit_bn(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return ""
    t = half.compute_ctype(x.dtype)
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    eps = _lit(k.attrs["epsilon"], x.dtype)

    def p(i: int) -> str:  # a per-channel parameter (x's type or float32) in the compute type
        return f"({t}){_ld(k.inputs[i].dtype, f'in{i}[ch]')}"

    y = half.store(x.dtype, f"({_ld(x.dtype, 'in0[o]')} - {p(3)}) * a + {p(2)}", t)
    stmt = (f"const int64_t ch = {_channel(c, inner)}; "
            f"const {t} a = {p(1)} / sqrt({p(4)} + {eps}); "
            f"out0[o] = {y};")
    return grid_loop(x.size, "o", stmt)


def _emit_bn_train(k: KernelSpec) -> str:
    x = k.inputs[0]
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    xt, pt = x.dtype, k.inputs[1].dtype
    m = outer * inner
    xv = f"(double){_ld(xt, 'in0[i]')}"
    mom, eps = k.attrs["momentum"], k.attrs["epsilon"]
    unbias = m / (m - 1) if m > 1 else 1.0
    idx = _elem(c, inner, "j")

    def ps(expr: str) -> str:  # a per-channel result, rounded once into the parameters' type
        return half.store(pt, expr, "double")

    new_mean = f"(1.0 - {mom!r}) * (double){_ld(pt, 'in3[ch]')} + {mom!r} * mean"
    new_var = f"(1.0 - {mom!r}) * (double){_ld(pt, 'in4[ch]')} + {mom!r} * var * {unbias!r}"
    pa, pb = _ld(pt, "in1[ch]"), _ld(pt, "in2[ch]")
    body = (_sum("s", m, idx, xv)
            + (f"    const double mean = s / {m}.0;\n" if m else "    const double mean = 0.0 / 0.0;\n")
            + _sum("ss", m, idx, f"({xv} - mean) * ({xv} - mean)")
            + (f"    const double var = ss / {m}.0;\n" if m else "    const double var = 0.0 / 0.0;\n")
            + f"    const double rstd = 1.0 / sqrt(var + {eps!r});\n"
            f"    const double a = (double){pa} * rstd, b = (double){pb} - mean * a;\n"
            f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) {{ const int64_t i = {idx}; "
            f"out0[i] = {half.store(xt, f'{xv} * a + b', 'double')}; }}\n"
            f"    if (threadIdx.x == 0) {{\n"
            f"      out1[ch] = {ps('mean')}; out2[ch] = {ps('var')}; out3[ch] = {ps('mean')}; "
            f"out4[ch] = {ps('rstd')};\n"
            f"      out5[ch] = {ps(new_mean)};\n"
            f"      out6[ch] = {ps(new_var)};\n"
            f"    }}\n")
    return _channels(c, body)


def _emit_bn_grad(k: KernelSpec) -> str:
    x = k.inputs[1]
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    xt, pt = x.dtype, k.inputs[2].dtype
    m = outer * inner
    idx = _elem(c, inner, "j")
    dy, xv = f"(double){_ld(xt, 'in0[i]')}", f"(double){_ld(xt, 'in1[i]')}"
    def ps(expr: str) -> str:
        return half.store(pt, expr, "double")

    dx = half.store(xt, f"kk * ({m}.0 * {dy} - sdy - ({xv} - mu) * rstd * sdyx)", "double")
    # in0 = dy, in1 = x, in2 = scale, in3 = save_mean, in4 = save_rstd
    body = (f"    const double mu = (double){_ld(pt, 'in3[ch]')}, rstd = (double){_ld(pt, 'in4[ch]')};\n"
            + _sum("sdy", m, idx, dy)
            + _sum("sdyx", m, idx, f"{dy} * ({xv} - mu) * rstd")
            + (f"    const double kk = (double){_ld(pt, 'in2[ch]')} * rstd / {m}.0;\n"
               f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) {{ const int64_t i = {idx}; "
               f"out0[i] = {dx}; }}\n"
               if m else "")
            + f"    if (threadIdx.x == 0) {{ out1[ch] = {ps('sdyx')}; out2[ch] = {ps('sdy')}; }}\n")
    return _channels(c, body)


def _emit_ln(k: KernelSpec) -> str:
    x = k.inputs[0]
    t, dt = half.compute_ctype(x.dtype), x.dtype
    bna, bpa = k.attrs["begin_norm_axis"], k.attrs["begin_params_axis"]
    rows, n, p = _prod(x.shape[:bna]), _prod(x.shape[bna:]), _prod(x.shape[bpa:])
    if rows == 0:
        return ""
    if n == 0:  # the statistics of nothing
        nan = half.store(dt, "0.0 / 0.0", "double")
        return grid_loop(rows, "o", f"out1[o] = {nan}; out2[o] = {nan};")
    eps = _lit(k.attrs["epsilon"], x.dtype)
    loop = f"    for (int64_t j = threadIdx.x; j < {n}LL; j += OB_BLOCK) "
    xj = _ld(dt, "xr[j]")
    gamma, beta = _ld(k.inputs[1].dtype, "in1[pi]"), _ld(k.inputs[2].dtype, "in2[pi]")
    y = half.store(dt, f"({xj} - mean) * rstd * {gamma} + {beta}", t)
    body = (f"    const {ctype(dt)} *xr = in0 + row * {n}LL;\n"
            f"    {t} s_ = 0;\n{loop}s_ += {xj};\n"
            + block_reduce(t, "(a + b)", "s_", "sum")
            + f"    const {t} mean = sum / ({t}){n};\n"
            f"    {t} ss_ = 0;\n{loop}{{ const {t} d = {xj} - mean; ss_ += d * d; }}\n"
            + block_reduce(t, "(a + b)", "ss_", "ssum")
            + f"    const {t} var = ssum / ({t}){n};\n"
            f"    const {t} rstd = ({t})1 / sqrt(var + {eps});\n"
            f"{loop}{{ const int64_t pi = (row * {n}LL + j) % {p}LL; "
            f"out0[row * {n}LL + j] = {y}; }}\n"
            f"    if (threadIdx.x == 0) {{ out1[row] = {half.store(dt, 'mean', t)}; "
            f"out2[row] = {half.store(dt, 'var', t)}; }}\n")
    return f"  for (int64_t row = blockIdx.x; row < {rows}LL; row += gridDim.x) {{\n{body}  }}"


def _bias_axis(attrs: dict, rank: int) -> int:
    return rank - 1 if attrs["data_format"] == "NHWC" else 1


def _emit_bias_add(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return ""
    _, c, inner = _layout(x.shape, _bias_axis(k.attrs, x.rank))
    t = half.compute_ctype(x.dtype)
    b = _ld(k.inputs[1].dtype, f"in1[{_channel(c, inner)}]")
    y = half.store(x.dtype, f"({t})({_ld(x.dtype, 'in0[o]')} + {b})", t)
    return grid_loop(x.size, "o", f"out0[o] = {y};")


def _emit_bias_grad(k: KernelSpec) -> str:
    x = k.inputs[0]
    outer, c, inner = _layout(x.shape, _bias_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    t = ctype(x.dtype)
    acc = "double" if BY_NAME[x.dtype].is_float or half.is_half(x.dtype) else t
    m = outer * inner
    elem = _ld(x.dtype, f"in0[{_elem(c, inner, 'j')}]")
    body = (f"    {acc} s_ = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) s_ += ({acc}){elem};\n"
            + block_reduce(acc, "(a + b)", "s_", "total")
            + f"    if (threadIdx.x == 0) out0[ch] = {half.store(x.dtype, 'total', acc)};\n")
    return _channels(c, body)


register("BatchNorm", _emit_bn)
register("BatchNormTraining", _emit_bn_train)
register("BatchNormGrad", _emit_bn_grad)
register("LayerNorm", _emit_ln)
register("BiasAdd", _emit_bias_add)
register("BiasAddGrad", _emit_bias_grad)
half.allow("BatchNorm", "BatchNormTraining", "BatchNormGrad", "LayerNorm", "BiasAdd", "BiasAddGrad")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("BatchNorm", "BatchNormTraining", "BatchNormGrad", "LayerNorm", "BiasAdd", "BiasAddGrad")

__all__ = ["OPS"]
