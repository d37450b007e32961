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

Integer BiasAdd/BiasAddGrad compute in their own type (the CPU's rule).
"""

from __future__ import annotations

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops.normalization import _bn_channel_axis
from ..codegen import ctype, grid_loop
from .reduction import block_reduce
from .registry import register


def _prod(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _lit(value: float, dtype: str) -> str:
    return repr(float(value)) + ("f" if dtype == "float32" else "")


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
    t = ctype(x.dtype)
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    eps = _lit(k.attrs["epsilon"], x.dtype)
    stmt = (f"const int64_t ch = {_channel(c, inner)}; "
            f"const {t} a = in1[ch] / sqrt(in4[ch] + {eps}); "
            f"out0[o] = ({t})((in0[o] - in3[ch]) * a + in2[ch]);")
    return grid_loop(x.size, "o", stmt)


def _emit_bn_train(k: KernelSpec) -> str:
    x = k.inputs[0]
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    t, pt = ctype(x.dtype), ctype(k.inputs[1].dtype)
    m = outer * inner
    mom, eps = k.attrs["momentum"], k.attrs["epsilon"]
    unbias = m / (m - 1) if m > 1 else 1.0
    idx = _elem(c, inner, "j")
    body = (_sum("s", m, idx, "(double)in0[i]")
            + (f"    const double mean = s / {m}.0;\n" if m else "    const double mean = 0.0 / 0.0;\n")
            + _sum("ss", m, idx, "((double)in0[i] - mean) * ((double)in0[i] - mean)")
            + (f"    const double var = ss / {m}.0;\n" if m else "    const double var = 0.0 / 0.0;\n")
            + f"    const double rstd = 1.0 / sqrt(var + {eps!r});\n"
            f"    const double a = (double)in1[ch] * rstd, b = (double)in2[ch] - mean * a;\n"
            f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) {{ const int64_t i = {idx}; "
            f"out0[i] = ({t})((double)in0[i] * a + b); }}\n"
            f"    if (threadIdx.x == 0) {{\n"
            f"      out1[ch] = ({pt})mean; out2[ch] = ({pt})var; out3[ch] = ({pt})mean; out4[ch] = ({pt})rstd;\n"
            f"      out5[ch] = ({pt})((1.0 - {mom!r}) * (double)in3[ch] + {mom!r} * mean);\n"
            f"      out6[ch] = ({pt})((1.0 - {mom!r}) * (double)in4[ch] + {mom!r} * var * {unbias!r});\n"
            f"    }}\n")
    return _channels(c, body)


def _emit_bn_grad(k: KernelSpec) -> str:
    x = k.inputs[1]
    outer, c, inner = _layout(x.shape, _bn_channel_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    t, pt = ctype(x.dtype), ctype(k.inputs[2].dtype)
    m = outer * inner
    idx = _elem(c, inner, "j")
    # in0 = dy, in1 = x, in2 = scale, in3 = save_mean, in4 = save_rstd
    body = ("    const double mu = (double)in3[ch], rstd = (double)in4[ch];\n"
            + _sum("sdy", m, idx, "(double)in0[i]")
            + _sum("sdyx", m, idx, "(double)in0[i] * ((double)in1[i] - mu) * rstd")
            + (f"    const double kk = (double)in2[ch] * rstd / {m}.0;\n"
               f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) {{ const int64_t i = {idx}; "
               f"out0[i] = ({t})(kk * ({m}.0 * (double)in0[i] - sdy - ((double)in1[i] - mu) * rstd * sdyx)); }}\n"
               if m else "")
            + f"    if (threadIdx.x == 0) {{ out1[ch] = ({pt})sdyx; out2[ch] = ({pt})sdy; }}\n")
    return _channels(c, body)


def _emit_ln(k: KernelSpec) -> str:
    x = k.inputs[0]
    t = ctype(x.dtype)
    bna, bpa = k.attrs["begin_norm_axis"], k.attrs["begin_params_axis"]
    rows, n, p = _prod(x.shape[:bna]), _prod(x.shape[bna:]), _prod(x.shape[bpa:])
    if rows == 0:
        return ""
    if n == 0:  # the statistics of nothing
        return grid_loop(rows, "o", f"out1[o] = ({t})(0.0 / 0.0); out2[o] = ({t})(0.0 / 0.0);")
    eps = _lit(k.attrs["epsilon"], x.dtype)
    loop = f"    for (int64_t j = threadIdx.x; j < {n}LL; j += OB_BLOCK) "
    body = (f"    const {t} *xr = in0 + row * {n}LL;\n"
            f"    {t} s_ = 0;\n{loop}s_ += xr[j];\n"
            + block_reduce(t, "(a + b)", "s_", "sum")
            + f"    const {t} mean = sum / ({t}){n};\n"
            f"    {t} ss_ = 0;\n{loop}{{ const {t} d = xr[j] - mean; ss_ += d * d; }}\n"
            + block_reduce(t, "(a + b)", "ss_", "ssum")
            + f"    const {t} var = ssum / ({t}){n};\n"
            f"    const {t} rstd = ({t})1 / sqrt(var + {eps});\n"
            f"{loop}{{ const int64_t pi = (row * {n}LL + j) % {p}LL; "
            f"out0[row * {n}LL + j] = ({t})((xr[j] - mean) * rstd * in1[pi] + in2[pi]); }}\n"
            f"    if (threadIdx.x == 0) {{ out1[row] = mean; out2[row] = var; }}\n")
    return f"  for (int64_t row = blockIdx.x; row < {rows}LL; row += gridDim.x) {{\n{body}  }}"


def _bias_axis(attrs: dict, rank: int) -> int:
    return rank - 1 if attrs["data_format"] == "NHWC" else 1


def _emit_bias_add(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return ""
    _, c, inner = _layout(x.shape, _bias_axis(k.attrs, x.rank))
    t = ctype(x.dtype)
    return grid_loop(x.size, "o", f"out0[o] = ({t})(in0[o] + in1[{_channel(c, inner)}]);")


def _emit_bias_grad(k: KernelSpec) -> str:
    x = k.inputs[0]
    outer, c, inner = _layout(x.shape, _bias_axis(k.attrs, x.rank))
    if c == 0:
        return ""
    t = ctype(x.dtype)
    acc = "double" if BY_NAME[x.dtype].is_float else t
    m = outer * inner
    body = (f"    {acc} s_ = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < {m}LL; j += OB_BLOCK) s_ += ({acc})in0[{_elem(c, inner, 'j')}];\n"
            + block_reduce(acc, "(a + b)", "s_", "total")
            + f"    if (threadIdx.x == 0) out0[ch] = ({t})total;\n")
    return _channels(c, body)


register("BatchNorm", _emit_bn)
register("BatchNormTraining", _emit_bn_train)
register("BatchNormGrad", _emit_bn_grad)
register("LayerNorm", _emit_ln)
register("BiasAdd", _emit_bias_add)
register("BiasAddGrad", _emit_bias_grad)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("BatchNorm", "BatchNormTraining", "BatchNormGrad", "LayerNorm", "BiasAdd", "BiasAddGrad")

__all__ = ["OPS"]
