"""CPU kernels of the convolution and pooling backward ops (ops/conv_grad.py): the convolution backward kernels
(conv_backward_kernels.py) go through BLAS (the input gradient is ``W_g^T @ dy`` then col2im, the filter
gradient ``dy @ im2col(x)^T``; 1x1 stride-1 convolutions skip the column matrix); MaxPoolGrad and AvgPoolGrad
of half types accumulate in a float32 image in the kernel's workspace and round each element once."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.conv_grad import _filter_shapes, _input_shapes
from ..codegen import compute_ctype, ctype, is_half, load, parallel_for, store
from . import conv_backward_kernels as BK
from . import conv_kernels as K
from .registry import register


def interior_columns(w: int, ow: int, kw: int, sw: int, pl: int) -> tuple[int, int]:
    """The output columns [qa, qb) whose windows lie fully inside an input row of width ``w`` (window start
    ``q * sw - pl`` >= 0 and end ``q * sw - pl + kw`` <= ``w``); an empty range has ``qa == qb``."""
    qa = min(ow, -(-pl // sw))
    qb = min(ow, (w + pl - kw) // sw + 1)
    return qa, max(qa, qb)


def _backprop(kernels, shapes):
    """The emitter of a convolution backward op: ``kernels(algo, geometry)`` (conv_backward_kernels.py) on the
    forward geometry ``shapes(attrs, ins)`` = (x shape, w shape); half types run it in float32."""

    def kernel(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType], emit) -> tuple[int, str]:
        dy, other = ins
        out = outs[0]
        if out.size == 0:
            return 0, "/* empty */"
        if dy.size == 0 or other.size == 0:  # a sum over nothing
            return 0, f"memset(out0, 0, {out.size} * sizeof(*out0));"
        x_shape, w_shape = shapes(attrs, ins)
        return K.kernel(attrs, (x_shape, w_shape, dy.shape), dy.dtype, (dy.size, other.size, out.size), emit)

    def emit(k: KernelSpec) -> str:
        return kernel(k.attrs, k.inputs, k.outputs, kernels)[1]

    return emit


def _max_grad_rows(k: KernelSpec) -> str:
    """MaxPoolGrad of float32/float64 written for gcc's vectoriser, one output row at a time: over the
    interior output columns (windows inside the input's width, ``interior_columns``) a first
    pass folds every window tap into ``best`` (the NaN-propagating max of pooling.py), a second walks the taps
    in reverse row-major order and keeps in ``at`` the last tap -- so the first in row-major order -- equal to
    it (or NaN where the max is NaN): both are branch-free selects over a row of columns. The edge columns
    keep the scalar scan; then each window's gradient is added at its position, in output order."""
    x, _, dy = k.inputs
    n, ch, h, w = x.shape
    oh, ow = dy.shape[2:]
    (kh, kw), (sh, sw), (pt, _, pl, _) = k.attrs["kernel_size"], k.attrs["strides"], k.attrs["pad"]
    t = ctype(x.dtype)
    qa, qb = interior_columns(w, ow, kw, sw, pl)
    idx = "int32_t" if x.dtype == "float32" and h * w < 2 ** 31 else "int64_t"  # lane width of the data's
    edge = (f"for (int64_t q = 0; q < {ow}; q++) {{\n"
            f"  if (q == {qa}) q = {qb};\n"
            f"  if (q >= {ow}) break;\n"
            f"  const int64_t w0 = q * {sw} - {pl};\n"
            f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
            f"  {t} s = -INFINITY; int64_t b = -1;\n"
            f"  for (int64_t i = hs; i < h1; i++) for (int64_t j = ws; j < w1; j++) {{\n"
            f"    const {t} v = img[i * {w} + j];\n"
            f"    if (b < 0 || v > s || (v != v && s == s)) {{ s = v; b = i * {w} + j; }}\n"
            f"  }}\n"
            f"  at[q] = ({idx})b;\n"
            f"}}\n")
    interior = ""
    if qa < qb:
        interior = (f"for (int64_t q = {qa}; q < {qb}; q++) best[q] = -INFINITY;\n"
                    f"for (int64_t i = hs; i < h1; i++) for (int64_t j = 0; j < {kw}; j++) {{\n"
                    f"  const {t} *restrict src = img + i * {w} + j - {pl};\n"
                    f"  for (int64_t q = {qa}; q < {qb}; q++) {{ const {t} v = src[q * {sw}]; "
                    f"best[q] = ((v > best[q]) | (v != v)) ? v : best[q]; }}\n"
                    f"}}\n"
                    f"for (int64_t q = {qa}; q < {qb}; q++) at[q] = -1;\n"
                    f"for (int64_t i = h1 - 1; i >= hs; i--) for (int64_t j = {kw - 1}; j >= 0; j--) {{\n"
                    f"  const {t} *restrict src = img + i * {w} + j - {pl};\n"
                    f"  const {idx} off = ({idx})(i * {w} + j - {pl});\n"
                    f"  for (int64_t q = {qa}; q < {qb}; q++) {{ const {t} v = src[q * {sw}], m = best[q]; "
                    f"at[q] = ((v == m) | ((v != v) & (m != m))) ? off + ({idx})(q * {sw}) : at[q]; }}\n"
                    f"}}\n")
    return f"""memset(out0, 0, {x.size} * sizeof(*out0));
{parallel_for(dy.size * kh * kw).rstrip(chr(10))}
for (int64_t p = 0; p < {n * ch}; p++) {{
  const {t} *restrict img = in0 + p * {h * w};
  const {t} *restrict gr = in2 + p * {oh * ow};
  {t} *restrict dst = out0 + p * {h * w};
  {t} best[{ow}];
  {idx} at[{ow}];
  for (int64_t r = 0; r < {oh}; r++) {{
    const int64_t h0 = r * {sh} - {pt};
    const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};
{_indent(interior + edge, 4)}    for (int64_t q = 0; q < {ow}; q++) if (at[q] >= 0) dst[at[q]] += gr[r * {ow} + q];
  }}
}}"""


# The two-pass vector form of MaxPoolGrad pays from this many window taps and output columns on; below it
# (2x2 windows, narrow maps) its extra pass and vector tails cost more than the scalar scan saves
# (docs/benchmarks.md, "Training kernels").
MAX_GRAD_VECTOR_MIN_TAPS = 6
MAX_GRAD_VECTOR_MIN_COLUMNS = 8


def _vector_rows_pay(k: KernelSpec) -> bool:
    kh, kw = k.attrs["kernel_size"]
    return kh * kw >= MAX_GRAD_VECTOR_MIN_TAPS and k.inputs[2].shape[3] >= MAX_GRAD_VECTOR_MIN_COLUMNS


def _indent(code: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line + "\n" if line else "\n" for line in code.splitlines())


def _pool_grad_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, _, dy = k.inputs
        if dy.size == 0 or x.size == 0:
            return f"memset(out0, 0, {x.size} * sizeof(*out0));" if x.size else "/* empty */"
        if not avg and x.dtype in ("float32", "float64") and _vector_rows_pay(k):
            return _max_grad_rows(k)
        h, w = x.shape[2:]
        oh, ow = dy.shape[2:]
        t, c = ctype(x.dtype), compute_ctype(x.dtype)
        half = is_half(x.dtype)
        acc = "ob_acc" if half else "out0"  # half: the float32 image in the workspace
        if avg:
            body = (f"const {c} share = g / ({c})({K.avg_divisor(x.shape, k.attrs)});\n"
                    "for (int64_t i = hs; i < h1; i++) for (int64_t j = ws; j < w1; j++) "
                    f"dst[i * {w} + j] += share;")
        else:
            # The first maximum of the window takes the whole gradient (ties: first in row-major order).
            body = (f"{c} s = -INFINITY; int64_t best = -1;\n"
                    "for (int64_t i = hs; i < h1; i++) for (int64_t j = ws; j < w1; j++) {\n"
                    f"  const {c} v = {load(x.dtype, f'img[i * {w} + j]')};\n"
                    "  if (best < 0 || v > s || (v != v && s == s)) { s = v; best = i * " + str(w) + " + j; }\n"
                    "}\n"
                    "if (best >= 0) dst[best] += g;")
        planes = (f"const {t} *restrict img = in0 + p * {h * w};\n"
                  f"const {t} *restrict gr = in2 + p * {oh * ow};\n"
                  f"{c} *restrict dst = {acc} + p * {h * w};")
        body = f"const {c} g = {load(x.dtype, f'gr[r * {ow} + q]')};\n{body}"
        # half: the float32 image rounds once into the output
        head = "float *restrict ob_acc = (float *)ob_ws;\n" if half else ""
        tail = f"\nfor (int64_t i = 0; i < {x.size}; i++) out0[i] = {store(x.dtype, 'ob_acc[i]')};" if half else ""
        # Planes are independent (each window writes only its own plane): split them over the threads.
        return (f"{head}memset({acc}, 0, {x.size} * sizeof(*{acc}));\n"
                + parallel_for(dy.size * k.attrs["kernel_size"][0] * k.attrs["kernel_size"][1]).rstrip("\n")
                + K.pool_windows(x.shape, (oh, ow), k.attrs, planes, body) + tail)

    return emit


register("Conv2DBackpropInput", _backprop(BK.backprop_input, _input_shapes), blas=True)
register("Conv2DBackpropFilter", _backprop(BK.backprop_filter, _filter_shapes), blas=True)
register("MaxPoolGrad", _pool_grad_emit(False))
register("AvgPoolGrad", _pool_grad_emit(True))
