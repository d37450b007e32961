"""GPU kernels of pooling (NCHW, ops/convolution.py and ops/conv_grad.py): MaxPool, AvgPool, GlobalAvgPool,
MaxPoolGrad and AvgPoolGrad, for every kernel size, stride, padding, ``ceil_mode`` and ``count_include_pad``
the ops accept.

MaxPool and AvgPool: one thread per output element, its window clipped to the input (padding never contributes
to a max; to an average's divisor only under ``count_include_pad``, PyTorch's rule, as the CPU's kernels). The
average sums as the CPU's kernel does (each window column summed over the rows, then the columns in order), so
it is the same float; the max propagates NaN as NumPy's.

The backward ops are gathers: one thread per input element visits, in the CPU's order (output rows, then
columns), the windows that cover it. AvgPoolGrad adds each window's share ``dy / divisor``; MaxPoolGrad
recomputes each window's argmax with the CPU's rule (the first maximum in row-major order, the first NaN if any)
and adds the window's dy when it is this element. The additions happen in the order the CPU's scatter makes
them, so the results are the CPU's.

GlobalAvgPool: one block per plane, summed in double (as the CPU) through the shared-memory tree, times the
reciprocal of the plane's size.

float16 and bfloat16 compute as the CPU's ``half_pool: "f32"`` kernels: each element loads into float, the
float32 computation above runs (the backward sums in a float accumulator) and each result rounds once on
store; GlobalAvgPool rounds the double mean once (half.py).
"""

from __future__ import annotations

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from .. import half
from ..codegen import ctype, grid_loop
from .reduction import block_reduce
from .registry import register


def _lit(value: float, dtype: str) -> str:
    return repr(float(value)) + ("f" if dtype == "float32" else "")


def _max_init(dtype: str) -> str:
    d = BY_NAME[dtype]
    if d.is_float:
        return f"(-({half.compute_ctype(dtype)})1 / ({half.compute_ctype(dtype)})0)"
    return "0" if d.is_unsigned else f"INT{d.bits}_MIN"


def _window(x_shape, attrs: dict, r: str, q: str) -> str:
    """Declarations of the window of output (``r``, ``q``): unclipped start ``h0``/``w0``, rows [hs, h1) and
    columns [ws, w1) clipped to the input."""
    h, w = x_shape[2:]
    (kh, kw), (sh, sw), (pt, _, pl, _) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    return (f"const int64_t h0 = {r} * {sh}LL - {pt}LL, w0 = {q} * {sw}LL - {pl}LL;\n"
            f"    const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh}LL < {h}LL ? h0 + {kh}LL : {h}LL;\n"
            f"    const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw}LL < {w}LL ? w0 + {kw}LL : {w}LL;")


def _divisor(x_shape, attrs: dict) -> tuple[str, str]:
    """AvgPool's divisor as (rows counted, columns counted): the CPU's ``_avg_factors``."""
    h, w = x_shape[2:]
    (kh, kw), (_, pb, _, pr) = attrs["kernel_size"], attrs["pad"]
    if attrs["count_include_pad"]:
        return (f"((h0 + {kh}LL < {h + pb}LL ? h0 + {kh}LL : {h + pb}LL) - h0)",
                f"((w0 + {kw}LL < {w + pr}LL ? w0 + {kw}LL : {w + pr}LL) - w0)")
    return "(h1 - hs)", "(w1 - ws)"


def _pool_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, out = k.inputs[0], k.outputs[0]
        if out.size == 0:
            return ""
        h, w = x.shape[2:]
        oh, ow = out.shape[2:]
        t, c = ctype(x.dtype), half.compute_ctype(x.dtype)
        v = half.load(x.dtype, f"img[i * {w}LL + j]")
        head = (f"const int64_t q = o % {ow}LL, r = (o / {ow}LL) % {oh}LL, p = o / {oh * ow}LL;\n"
                f"    const {t} *img = in0 + p * {h * w}LL;\n    {_window(x.shape, k.attrs, 'r', 'q')}\n")
        if avg:
            rows, cols = _divisor(x.shape, k.attrs)
            body = (f"    {c} acc = 0;\n"
                    f"    for (int64_t j = ws; j < w1; j++) {{ {c} cs = 0; "
                    f"for (int64_t i = hs; i < h1; i++) cs += {v}; acc += cs; }}\n"
                    f"    out0[o] = {half.store(out.dtype, f'acc / (({c}){rows} * ({c}){cols})', c)};")
        else:
            body = (f"    {c} acc = {_max_init(x.dtype)};\n"
                    f"    for (int64_t i = hs; i < h1; i++) for (int64_t j = ws; j < w1; j++) {{ "
                    f"const {c} v = {v}; acc = ((v > acc) || (v != v)) ? v : acc; }}\n"
                    f"    out0[o] = {half.store(out.dtype, 'acc', c)};")
        return grid_loop(out.size, "o", head + body)

    return emit


def _pool_grad_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, _, dy = k.inputs
        if x.size == 0:
            return ""
        h, w = x.shape[2:]
        oh, ow = dy.shape[2:]
        (kh, kw), (sh, sw), (pt, _, pl, _) = k.attrs["kernel_size"], k.attrs["strides"], k.attrs["pad"]
        t, c = ctype(x.dtype), half.compute_ctype(x.dtype)
        # The windows covering pixel (i, j): rows r with r * sh - pt <= i < r * sh - pt + kh, likewise columns.
        head = (f"const int64_t j = o % {w}LL, i = (o / {w}LL) % {h}LL, p = o / {h * w}LL;\n"
                f"    const {t} *img = in0 + p * {h * w}LL;\n"
                f"    const {t} *gr = in2 + p * {oh * ow}LL;\n"
                f"    const int64_t ra = i + {pt}LL - {kh - 1}LL, qa = j + {pl}LL - {kw - 1}LL;\n"
                f"    const int64_t r0 = ra > 0 ? (ra + {sh - 1}LL) / {sh}LL : 0, "
                f"q0 = qa > 0 ? (qa + {sw - 1}LL) / {sw}LL : 0;\n"
                f"    const int64_t r1 = (i + {pt}LL) / {sh}LL + 1 < {oh}LL ? (i + {pt}LL) / {sh}LL + 1 : {oh}LL;\n"
                f"    const int64_t q1 = (j + {pl}LL) / {sw}LL + 1 < {ow}LL ? (j + {pl}LL) / {sw}LL + 1 : {ow}LL;\n"
                f"    {c} acc = 0;\n"
                f"    for (int64_t r = r0; r < r1; r++) for (int64_t q = q0; q < q1; q++) {{\n"
                f"    {_window(x.shape, k.attrs, 'r', 'q')}\n"
                f"    const {c} g = {half.load(dy.dtype, f'gr[r * {ow}LL + q]')};\n")
        if avg:
            rows, cols = _divisor(x.shape, k.attrs)
            body = f"    acc += g / ({c})({rows} * {cols});\n"
        else:
            # The window's first maximum (row-major; the first NaN if any), the CPU's rule for ties.
            body = (f"    {c} s = 0; int64_t best = -1;\n"
                    f"    for (int64_t a = hs; a < h1; a++) for (int64_t b = ws; b < w1; b++) {{\n"
                    f"      const {c} v = {half.load(x.dtype, f'img[a * {w}LL + b]')};\n"
                    f"      if (best < 0 || v > s || (v != v && s == s)) {{ s = v; best = a * {w}LL + b; }}\n"
                    f"    }}\n"
                    f"    if (best == i * {w}LL + j) acc += g;\n")
        return grid_loop(x.size, "o", head + body + f"    }}\n    out0[o] = {half.store(x.dtype, 'acc', c)};")

    return emit


def _gap_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, c, h, w = x.shape
    hw = h * w
    if n * c == 0:
        return ""
    mean = f"total * {_lit(1.0 / hw, 'float64')}"
    elem = half.load(x.dtype, f"in0[row * {hw}LL + j]")
    body = (f"    double p_ = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < {hw}LL; j += OB_BLOCK) p_ += (double){elem};\n"
            + block_reduce("double", "(a + b)", "p_", "total")
            + f"    if (threadIdx.x == 0) out0[row] = {half.store(x.dtype, mean, 'double')};\n")
    return f"  for (int64_t row = blockIdx.x; row < {n * c}LL; row += gridDim.x) {{\n{body}  }}"


register("MaxPool", _pool_emit(False))
register("AvgPool", _pool_emit(True))
register("GlobalAvgPool", _gap_emit)
register("MaxPoolGrad", _pool_grad_emit(False))
register("AvgPoolGrad", _pool_grad_emit(True))
half.allow("MaxPool", "AvgPool", "GlobalAvgPool", "MaxPoolGrad", "AvgPoolGrad")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("MaxPool", "AvgPool", "GlobalAvgPool", "MaxPoolGrad", "AvgPoolGrad")

__all__ = ["OPS"]
