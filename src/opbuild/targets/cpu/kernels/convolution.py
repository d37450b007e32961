"""CPU kernels of Conv2D and pooling (ops/convolution.py): the convolution's body comes from conv_kernels.py by
its ``algo``; pooling is a direct loop with window bounds clipped to the input (padding never contributes to a
max, and contributes zeros to an average only when ``count_include_pad``); float16/bfloat16 pooling loads each
element into float and rounds each result once on store."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....core.dtypes import ALL_FLOATS
from ....core.ir import KernelSpec, TensorType
from ....ops.conv_plan import nothing_to_compute
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, store
from . import conv_kernels as K
from . import register


def _conv_trivial(ins: Sequence[TensorType], out: TensorType, attrs: dict) -> str | None:
    """The body of a convolution with nothing to compute (empty output, or empty sums: zeros), else None."""
    if not nothing_to_compute(ins[0].shape, out.size, attrs):
        return None
    return f"memset(out0, 0, sizeof(out0[0]) * {out.size});" if out.size else ""


def _conv_kernel(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType], emit) -> tuple[int, str]:
    x, w = ins
    trivial = _conv_trivial(ins, outs[0], attrs)
    if trivial is not None:
        return 0, trivial
    return K.kernel(attrs, (x.shape, w.shape, outs[0].shape), x.dtype, (x.size, w.size, outs[0].size), emit)


def _conv_emit(k: KernelSpec) -> str:
    return _conv_kernel(k.attrs, k.inputs, k.outputs, K.forward)[1]


def _max_init(dtype: str) -> str:
    """C initial value of a max over ``dtype`` elements (computed in :func:`compute_ctype`)."""
    if dtype in ALL_FLOATS:
        return "-INFINITY"
    return c_literal(int(np.iinfo(np.dtype(dtype)).min), dtype)


def _pool_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, out = k.inputs[0], k.outputs[0]
        if out.size == 0:
            return ""
        h, w = x.shape[2:]
        oh, ow = out.shape[2:]
        t, c = ctype(x.dtype), compute_ctype(x.dtype)
        if avg:
            init, update = f"{c} s = 0;", "s += v;"
            result = f"s / ({c})({K.avg_divisor(x.shape, k.attrs)})"
        else:
            # NaN-propagating max, like NumPy's max: once s is NaN it stays NaN.
            init, update = f"{c} s = {_max_init(x.dtype)};", "if (v > s || v != v) s = v;"
            result = "s"
        store_expr = store(x.dtype, result) if is_half(x.dtype) else result  # half: rounded once here
        planes = (f"const {t} *restrict img = in0 + p * {h * w};\n"
                  f"{t} *restrict dst = out0 + p * {oh * ow};")
        body = (f"{init}\nfor (int64_t i = hs; i < h1; i++)\n"
                f"  for (int64_t j = ws; j < w1; j++) {{ const {c} v = {load(x.dtype, f'img[i * {w} + j]')}; "
                f"{update} }}\ndst[r * {ow} + q] = {store_expr};")
        return K.pool_windows(x.shape, (oh, ow), k.attrs, planes, body)

    return emit


def _gap_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, c, h, w = x.shape
    t = ctype(x.dtype)
    # Accumulate in double: float32 sums over large images would otherwise lose digits. A half type loads
    # each element into float and rounds the double mean once.
    mean = f"s * {c_literal(1.0 / (h * w), 'float64')}"
    result = store(x.dtype, mean, "double") if is_half(x.dtype) else f"({t})({mean})"
    return (f"for (int64_t p = 0; p < {n * c}; p++) {{\n"
            f"  const {t} *restrict img = in0 + p * {h * w};\n"
            f"  double s = 0;\n"
            f"  for (int64_t i = 0; i < {h * w}; i++) s += {load(x.dtype, 'img[i]')};\n"
            f"  out0[p] = {result};\n"
            f"}}")


register("Conv2D", _conv_emit, blas=True)
register("MaxPool", _pool_emit(False))
register("AvgPool", _pool_emit(True))
register("GlobalAvgPool", _gap_emit)
