"""CPU kernels of MaxPool, AvgPool and GlobalAvgPool (ops/convolution.py), written for gcc's vectoriser.

A pooling kernel walks one output row at a time into a row of accumulators (one per output column). Each
input row of the windows adds its elements to every column's accumulator with the column index innermost, so
the accumulators are independent and gcc turns the update into vector compares and blends (max) or adds
(average). Only the interior columns -- windows fully inside the input's width -- take that loop; the few
columns whose windows meet the left or right padding (or run past the input under ``ceil_mode``) take a
clipped scalar loop. Rows are clipped once per output row. The elements of each window are visited in the
same row-major order as the plain loop, so averages are bit-for-bit what the window-by-window loop gives.

Max propagates NaN as NumPy's max does: the update takes ``v`` when ``v > s`` or when ``v`` is NaN, and a
NaN accumulator never compares below anything, so it stays NaN; written branch-free (``|`` of the two
compares) it vectorises. Padding never contributes to a max, and contributes zeros to an average only when
``count_include_pad``. float16/bfloat16 load each element into float and round each result once on store.

GlobalAvgPool sums each plane in double (float32 sums over large images would otherwise lose digits) with
eight independent partial sums, which gcc vectorises, then rounds the mean once.
"""

from __future__ import annotations

import numpy as np

from ....core.dtypes import ALL_FLOATS
from ....core.ir import KernelSpec
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, parallel_for, store
from . import conv_kernels as K
from . import register

# GlobalAvgPool's independent partial sums per plane (a multiple of every vector width in doubles).
GAP_LANES = 8


def _max_init(dtype: str) -> str:
    """C initial value of a max over ``dtype`` elements (computed in :func:`compute_ctype`)."""
    if dtype in ALL_FLOATS:
        return "-INFINITY"
    return c_literal(int(np.iinfo(np.dtype(dtype)).min), dtype)


def interior_columns(w: int, ow: int, kw: int, sw: int, pl: int) -> tuple[int, int]:
    """The output columns [qa, qb) whose windows lie fully inside an input row of width ``w`` (window start
    ``q * sw - pl`` >= 0 and end ``q * sw - pl + kw`` <= ``w``); an empty range has ``qa == qb``."""
    qa = min(ow, -(-pl // sw))
    qb = min(ow, (w + pl - kw) // sw + 1)
    return qa, max(qa, qb)


def _update(avg: bool, acc: str) -> str:
    """C statement folding the element ``v`` into the accumulator ``acc``."""
    if avg:
        return f"{acc} += v;"
    # NaN-propagating max, like NumPy's max: once the accumulator is NaN it stays NaN.
    return f"{acc} = ((v > {acc}) | (v != v)) ? v : {acc};"


def _edge_loop(lo: int, hi: int, w: int, kw: int, sw: int, pl: int, dtype: str, avg: bool) -> str:
    """C: the clipped windows of output columns [lo, hi) of the current input row ``src``."""
    if lo >= hi:
        return ""
    c = compute_ctype(dtype)
    return (f"for (int64_t q = {lo}; q < {hi}; q++) {{\n"
            f"  const int64_t w0 = q * {sw} - {pl};\n"
            f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
            f"  for (int64_t j = ws; j < w1; j++) {{ const {c} v = {load(dtype, 'src[j]')}; "
            f"{_update(avg, 'acc[q]')} }}\n"
            f"}}\n")


def _pool_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, out = k.inputs[0], k.outputs[0]
        if out.size == 0:
            return ""
        n, ch, h, w = x.shape
        oh, ow = out.shape[2:]
        (kh, kw), (sh, sw), (pt, _, pl, _) = k.attrs["kernel_size"], k.attrs["strides"], k.attrs["pad"]
        t, c = ctype(x.dtype), compute_ctype(x.dtype)
        qa, qb = interior_columns(w, ow, kw, sw, pl)
        init = "0" if avg else _max_init(x.dtype)
        interior = ""
        if qa < qb:
            interior = (f"for (int64_t j = 0; j < {kw}; j++)\n"
                        f"  for (int64_t q = {qa}; q < {qb}; q++) {{\n"
                        f"    const {c} v = {load(x.dtype, f'src[q * {sw} + j - {pl}]')};\n"
                        f"    {_update(avg, 'acc[q]')}\n"
                        f"  }}\n")
        edges = (_edge_loop(0, qa, w, kw, sw, pl, x.dtype, avg)
                 + _edge_loop(qb, ow, w, kw, sw, pl, x.dtype, avg))
        if avg:
            result = f"acc[q] / ({c})({K.avg_divisor(x.shape, k.attrs)})"
            window = (f"  const int64_t w0 = q * {sw} - {pl};\n"
                      f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
                      "  (void)ws; (void)w1;\n")
        else:
            result, window = "acc[q]", ""
        store_expr = store(x.dtype, result) if is_half(x.dtype) else result  # half: rounded once here
        return f"""
{parallel_for(out.size * kh * kw)}for (int64_t p = 0; p < {n * ch}; p++) {{
  const {t} *restrict img = in0 + p * {h * w};
  {t} *restrict dst = out0 + p * {oh * ow};
  {c} acc[{ow}];
  for (int64_t r = 0; r < {oh}; r++) {{
    const int64_t h0 = r * {sh} - {pt};
    const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};
    (void)hs; (void)h1;
    for (int64_t q = 0; q < {ow}; q++) acc[q] = {init};
    for (int64_t i = hs; i < h1; i++) {{
      const {t} *restrict src = img + i * {w};
{_indent(interior + edges, 6)}    }}
    for (int64_t q = 0; q < {ow}; q++) {{
{_indent(window, 2)}      dst[r * {ow} + q] = {store_expr};
    }}
  }}
}}"""

    return emit


def _indent(code: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line + "\n" if line else "\n" for line in code.splitlines())


def _gap_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, c, h, w = x.shape
    t = ctype(x.dtype)
    hw, lanes = h * w, GAP_LANES
    body = hw - hw % lanes
    # A half type loads each element into float and rounds the double mean once.
    mean = f"s * {c_literal(1.0 / hw, 'float64')}" if hw else "NAN"  # NumPy: the mean of nothing
    result = store(x.dtype, mean, "double") if is_half(x.dtype) else f"({t})({mean})"
    combine = " + ".join(f"part[{i}]" for i in range(lanes))
    return (f"{parallel_for(x.size)}for (int64_t p = 0; p < {n * c}; p++) {{\n"
            f"  const {t} *restrict img = in0 + p * {hw};\n"
            f"  double part[{lanes}] = {{0}};\n"
            f"  for (int64_t i = 0; i < {body}; i += {lanes})\n"
            f"    for (int64_t l = 0; l < {lanes}; l++) part[l] += {load(x.dtype, 'img[i + l]')};\n"
            f"  for (int64_t i = {body}; i < {hw}; i++) part[i - {body}] += {load(x.dtype, 'img[i]')};\n"
            f"  const double s = {combine};\n"
            f"  out0[p] = {result};\n"
            f"}}")


register("MaxPool", _pool_emit(False))
register("AvgPool", _pool_emit(True))
register("GlobalAvgPool", _gap_emit)
