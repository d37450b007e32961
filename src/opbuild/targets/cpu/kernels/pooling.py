"""CPU kernels of MaxPool, AvgPool and GlobalAvgPool (ops/convolution.py), written for gcc's vectoriser.

A pooling kernel computes one output row at a time in two passes, both with unit-stride or constant-stride
inner loops that gcc vectorises: first it folds the window's input rows (clipped to the input once per
output row) into one row ``col`` (a max or a sum per input column), then it folds ``col``'s window columns
into a row of independent accumulators, one per output column. Only the interior columns -- windows fully
inside the input's width -- take the clip-free loop; the few columns whose windows meet the left or right
padding (or run past the input under ``ceil_mode``) take a clipped scalar loop. Folding the rows first
keeps the first pass contiguous whatever the stride; a sum then adds the window's elements column by
column, so an average may differ from a row-major sum of the same window in its last bit.

Max propagates NaN as NumPy's max does: the update takes ``v`` when ``v > s`` or when ``v`` is NaN, and a
NaN accumulator never compares below anything, so it stays NaN; written branch-free (``|`` of the two
compares) it vectorises. Padding never contributes to a max, and contributes zeros to an average only when
``count_include_pad``. float16/bfloat16 compute in float and round each result once on store (float16 rows
convert by blocks, targets/cpu/blocked.py).

GlobalAvgPool sums each plane in double (float32 sums over large images would otherwise lose digits) with
eight independent partial sums, which gcc vectorises, then rounds the mean once.
"""

from __future__ import annotations

import numpy as np

from ....core.dtypes import ALL_FLOATS
from ....core.ir import KernelSpec
from ..blocked import convert_in, convert_out
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, parallel_for, store
from .registry import register

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


def _edge_loop(lo: int, hi: int, w: int, kw: int, sw: int, pl: int, avg: bool) -> str:
    """C: the clipped windows of output columns [lo, hi) over the folded row ``col``."""
    if lo >= hi:
        return ""
    return (f"for (int64_t q = {lo}; q < {hi}; q++) {{\n"
            f"  const int64_t w0 = q * {sw} - {pl};\n"
            f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
            f"  for (int64_t j = ws; j < w1; j++) {{ const __typeof__(col[0]) v = col[j]; {_update(avg, 'acc[q]')} }}\n"
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
                        f"    const {c} v = col[q * {sw} + j - {pl}];\n"
                        f"    {_update(avg, 'acc[q]')}\n"
                        f"  }}\n")
        edges = _edge_loop(0, qa, w, kw, sw, pl, avg) + _edge_loop(qb, ow, w, kw, sw, pl, avg)
        if avg:  # the divisor is (rows counted) * (columns counted): the columns' factors computed once
            rows, cols = _avg_factors(x.shape, k.attrs)
            result = "acc[q] / (rowf * colf[q])"
            factors = (f"{c} colf[{ow}];\n"
                       f"for (int64_t q = 0; q < {ow}; q++) {{\n"
                       f"  const int64_t w0 = q * {sw} - {pl};\n"
                       f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
                       f"  (void)ws; (void)w1;\n"
                       f"  colf[q] = ({c})({cols});\n"
                       f"}}\n")
            row_factor = f"const {c} rowf = ({c})({rows});\n"
        else:
            result, factors, row_factor = "acc[q]", "", ""
        if x.dtype == "float16":  # rows converted by blocks (targets/cpu/blocked.py), rounded once on store
            row_load, row_elem = f"float rowv[{w}]; {convert_in(x.dtype, 'rowv', 'src', w)}\n", "rowv[j]"
            row_store = (f"float res[{ow}];\nfor (int64_t q = 0; q < {ow}; q++) res[q] = {result};\n"
                         f"{convert_out(x.dtype, f'dst + r * {ow}', 'res', ow)}\n")
        else:  # bfloat16 converts per element (a shift), rounded once on store
            row_load, row_elem = "", load(x.dtype, "src[j]")
            store_expr = store(x.dtype, result) if is_half(x.dtype) else result
            row_store = f"for (int64_t q = 0; q < {ow}; q++) dst[r * {ow} + q] = {store_expr};\n"
        return f"""
{parallel_for(out.size * kh * kw)}for (int64_t p = 0; p < {n * ch}; p++) {{
  const {t} *restrict img = in0 + p * {h * w};
  {t} *restrict dst = out0 + p * {oh * ow};
  {c} col[{w}], acc[{ow}];
{_indent(factors, 2)}  for (int64_t r = 0; r < {oh}; r++) {{
    const int64_t h0 = r * {sh} - {pt};
    const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};
    (void)hs; (void)h1;
{_indent(row_factor, 4)}    for (int64_t j = 0; j < {w}; j++) col[j] = {init};
    for (int64_t i = hs; i < h1; i++) {{
      const {t} *restrict src = img + i * {w};
{_indent(row_load, 6)}      for (int64_t j = 0; j < {w}; j++) {{ const {c} v = {row_elem}; {_update(avg, 'col[j]')} }}
    }}
    for (int64_t q = 0; q < {ow}; q++) acc[q] = {init};
{_indent(interior + edges, 4)}{_indent(row_store, 4)}  }}
}}"""

    return emit


def _avg_factors(x_shape, attrs: dict) -> tuple[str, str]:
    """C expressions of AvgPool's divisor as (rows counted, columns counted), whose product is
    ``conv_kernels.avg_divisor``: with ``count_include_pad`` the window clipped to the padded input (PyTorch's
    rule), else the real pixels only."""
    h, w = x_shape[2:]
    (kh, kw), (_, pb, _, pr) = attrs["kernel_size"], attrs["pad"]
    if attrs["count_include_pad"]:
        return (f"(h0 + {kh} < {h + pb} ? h0 + {kh} : {h + pb}) - h0",
                f"(w0 + {kw} < {w + pr} ? w0 + {kw} : {w + pr}) - w0")
    return "h1 - hs", "w1 - ws"


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
