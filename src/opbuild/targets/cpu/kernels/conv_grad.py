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


def _pool_grad_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, _, dy = k.inputs
        if dy.size == 0 or x.size == 0:
            return f"memset(out0, 0, {x.size} * sizeof(*out0));" if x.size else "/* empty */"
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
