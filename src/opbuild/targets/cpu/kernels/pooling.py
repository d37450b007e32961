"""CPU kernels of MaxPool, AvgPool and GlobalAvgPool (ops/convolution.py), written for gcc's vectoriser.

A pooling kernel works through each plane in *bands* of output rows, in three unit-stride passes that gcc
vectorises, none of them with a bounds check:

1. Vertical fold: for each output row of the band, the window's input rows (clipped to the input once per
   row) fold into one padded row of the band buffer ``vb`` (a max or a sum per input column; a full window
   of a few rows in registers, one store per column). A padded row has the left padding's columns, the used
   input columns, then the right padding up to ``wp`` = ``owp * stride`` columns, its pads holding the
   fold's identity (-inf, the type's minimum, or 0), written once per plane. Padding thus needs no
   clipping: it never wins a max, and adds exact zeros to a sum.
2. Stride phases: with a column stride ``s`` > 1, the band is split into ``s`` phase rows (phase ``m`` holds
   the padded columns ``k * s + m``), so that window tap ``t`` of output column ``q`` is element ``q + t // s``
   of phase ``t % s``: a unit-stride read (stride 1 reads ``vb`` itself).
3. Horizontal fold over the band as ONE flat loop: the band's outputs form a domain of ``owp`` columns per
   row (``ow`` real ones, then ``ceil(kw / s) - 1`` dropped ones, which read the next row's or the buffers'
   tail and are never stored), so the loop runs over whole vectors whatever the output width. The real
   columns are then copied out (an average divides there; a max whose domain has no dropped column folds
   straight into the output).

The buffers are per plane, on the stack, or, for very wide rows, in the calling thread's slot of the kernel's
planned workspace (ops/pool_plan.py: the op's ``OpDef.workspace`` follows the same layout; no ``malloc``).

The sums add each window's elements in the same order as the scalar loop they replaced (rows first, then
columns), so an average matches it exactly, up to the sign of a zero sum. Max propagates NaN as NumPy's max
does: the update takes ``v`` when ``v > s`` or when ``v`` is NaN, and a NaN accumulator never compares below
anything, so it stays NaN; written branch-free (a max, then a NaN select) it vectorises. Padding contributes
zeros to an average's divisor only when ``count_include_pad``. float16/bfloat16 compute in float and round
each result once on store (float16 rows convert by blocks, targets/cpu/blocked.py).

GlobalAvgPool sums each plane in double (float32 sums over large images would otherwise lose digits): float32
and float64 planes in 8-double vectors (GCC's vector extension, which clang shares), reduced by a fixed tree
once per plane, so a small plane (MobileNet's 7x7) costs a few vector adds rather than a scalar combine;
half types keep eight scalar partial sums. The mean is rounded once.
"""

from __future__ import annotations

import numpy as np

from ....core.dtypes import ALL_FLOATS
from ....core.ir import KernelSpec
from ....ops.pool_plan import (  # noqa: F401 - re-exported: tests name the band layout through this module
    BAND_OUTPUTS,
    POOL_STACK_BYTES,
    UNROLL_TAPS,
    band_geometry,
    on_stack,
    plane_buffers,
    plane_slot,
    plane_slots,
)
from ....ops.scratch_plan import layout_bytes
from ..blocked import convert_in, convert_out
from ..codegen import c_literal, compute_ctype, ctype, is_half, load, parallel_for, store
from .registry import register
from .scratch import THREAD_NUM, carve, slot_pragma

# GlobalAvgPool's partial sums per plane: one vector of doubles (a multiple of every vector width in doubles).
GAP_LANES = 8
# GlobalAvgPool planes of at least this many vectors sum into four independent vector accumulators.
GAP_MULTI_VECTORS = 16


def _max_init(dtype: str) -> str:
    """C initial value of a max over ``dtype`` elements (computed in :func:`compute_ctype`)."""
    if dtype in ALL_FLOATS:
        return "-INFINITY"
    return c_literal(int(np.iinfo(np.dtype(dtype)).min), dtype)


def _update(avg: bool, acc: str) -> str:
    """C statement folding the element ``v`` into the accumulator ``acc``."""
    if avg:
        return f"{acc} += v;"
    # NaN-propagating max, like NumPy's max: once the accumulator is NaN it stays NaN (``v > NaN`` is false),
    # and a NaN ``v`` replaces it. Written as a plain max then a NaN select, gcc emits a max, a compare and a
    # masked move where the single select of an or of two compares costs a fourth instruction.
    return f"{{ const __typeof__({acc}) m_ = v > {acc} ? v : {acc}; {acc} = v != v ? v : m_; }}"


def _tap(t: int, sw: int, o: str = "o") -> str:
    """C lvalue of window tap ``t`` of domain output ``o``: a phase row (stride > 1) or the band itself."""
    return f"vb[{o} + {t}]" if sw == 1 else f"ph{t % sw}[{o} + {t // sw}]"


def _horizontal(kw: int, sw: int, owp: int, c: str, avg: bool) -> str:
    """C: fold the ``kw`` taps of every domain output of the band (``nb`` rows of ``owp``) into ``dom``."""
    if kw <= UNROLL_TAPS:
        taps = "".join(f"    v = {_tap(t, sw)}; {_update(avg, 'a')}\n" for t in range(1, kw))
        return (f"for (int64_t o = 0; o < nb * {owp}; o++) {{\n"
                f"  {c} a = {_tap(0, sw)}, v; (void)v;\n{taps}  dom[o] = a;\n}}\n")
    bases = ", ".join("vb" if sw == 1 else f"ph{m}" for m in range(min(sw, kw)))
    return (f"for (int64_t o = 0; o < nb * {owp}; o++) dom[o] = {_tap(0, sw)};\n"
            f"{{ {c} *const base[] = {{{bases}}};\n"
            f"  for (int64_t t = 1; t < {kw}; t++) {{\n"
            f"    const {c} *restrict tap = base[t % {sw}] + t / {sw};\n"
            f"    for (int64_t o = 0; o < nb * {owp}; o++) {{ const {c} v = tap[o]; {_update(avg, 'dom[o]')} }}\n"
            f"  }}\n}}\n")


def _pool_emit(avg: bool):
    def emit(k: KernelSpec) -> str:
        x, out = k.inputs[0], k.outputs[0]
        if out.size == 0:
            return ""
        n, ch, h, w = x.shape
        oh, ow = out.shape[2:]
        (kh, kw), (_, sw), (_, _, pl, _) = k.attrs["kernel_size"], k.attrs["strides"], k.attrs["pad"]
        t, c = ctype(x.dtype), compute_ctype(x.dtype)
        g = band_geometry(w, oh, ow, kw, sw, pl)
        owp, wp, wu, rows, tail = g["owp"], g["wp"], g["wu"], g["rows"], g["tail"]
        init = "0" if avg else _max_init(x.dtype)
        nph = min(sw, kw) if sw > 1 else 0
        vb_tail = tail if sw == 1 else 0
        direct = not avg and not is_half(x.dtype) and owp == ow  # the domain is the output band itself
        # The buffers (float16: also its converted rows, ``_vertical``, and a row of results) on the stack, or
        # one slot per thread of the workspace (ops/pool_plan.py).
        sizes = plane_buffers(avg, k.attrs, x, out)
        heap = not on_stack(avg, k.attrs, x, out)
        buffers = "".join(f"{c} {name}[{n}];\n" for name, n in sizes.items()) if not heap else \
            _slot(plane_slot(avg, k.attrs, x, out))
        pragma = parallel_for(out.size * kh * kw)
        if heap and pragma:  # no more threads than the workspace has slots
            pragma = slot_pragma(pragma, plane_slots(avg, k.attrs, x, out))
        elif heap:
            buffers = buffers.replace(THREAD_NUM, "const int64_t ob_slot = 0;")
        pads = (f"for (int64_t rr = 0; rr < {rows}; rr++) {{\n"
                f"  for (int64_t j = 0; j < {pl}; j++) vb[rr * {wp} + j] = {init};\n"
                f"  for (int64_t j = {pl + wu}; j < {wp}; j++) vb[rr * {wp} + j] = {init};\n}}\n")
        pads += f"for (int64_t j = 0; j < {vb_tail}; j++) vb[{rows * wp} + j] = {init};\n" if vb_tail else ""
        pads += "".join(f"for (int64_t j = 0; j < {tail}; j++) ph{m}[{rows * owp} + j] = {init};\n"
                        for m in range(nph) if tail)
        vertical = _vertical(x.dtype, x.shape, k.attrs, wp, wu, avg)
        phases = ""
        if nph:
            split = " ".join(f"ph{m}[o] = vb[o * {sw} + {m}];" for m in range(nph))
            phases = f"for (int64_t o = 0; o < nb * {owp}; o++) {{ {split} }}\n"
        horizontal = _horizontal(kw, sw, owp, c, avg)
        band = (f"{c} *restrict dom = dst + r0 * {ow};\n" if direct else "") + vertical + phases + horizontal
        band += _copy_out(avg, x.dtype, x.shape, k.attrs, ow, owp, direct)
        return f"""
{pragma}for (int64_t p = 0; p < {n * ch}; p++) {{
  const {t} *restrict img = in0 + p * {h * w};
  {t} *restrict dst = out0 + p * {oh * ow};
{_indent(buffers + pads + _factors(avg, x.shape, k.attrs, ow, c), 2)}  for (int64_t r0 = 0; r0 < {oh}; r0 += {rows}) {{
    const int64_t nb = {oh} - r0 < {rows} ? {oh} - r0 : {rows};
{_indent(band, 4)}  }}
}}"""

    return emit


def _slot(parts: list) -> str:
    """C: the per-plane buffers ``parts`` carved out of the calling thread's slot of the workspace."""
    return (f"{THREAD_NUM}\nchar *restrict ob_mine = ob_ws + ob_slot * {layout_bytes(parts)};\n"
            f"{carve(parts, 'ob_mine')}\n")


def _vertical(dtype: str, x_shape, attrs: dict, wp: int, wu: int, avg: bool) -> str:
    """C: fold each output row's window rows into its padded band row. A full window of at most UNROLL_TAPS
    rows folds in registers, one store per column (a row accumulated in memory would reload what the previous
    row's loop stored, which stalls where the two loops split the row into different vectors); clipped
    windows accumulate row by row. float16 rows convert by blocks into ``rowv`` first (one row of it, or a
    full window's rows)."""
    h, w = x_shape[2:]
    (kh, _), (sh, _), (pt, _, pl, _) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    t, c = ctype(dtype), compute_ctype(dtype)
    if dtype == "float16":  # rows converted by blocks (targets/cpu/blocked.py)
        row_load, elem = f"{convert_in(dtype, 'rowv', 'src', wu)}\n", "rowv[j]"
    else:  # bfloat16 converts per element (a shift)
        row_load, elem = "", load(dtype, "src[j]")
    rows = (f"for (int64_t j = 0; j < {wu}; j++) row[j] = {elem};\n"
            f"for (int64_t i = hs + 1; i < h1; i++) {{\n"
            f"  const {t} *restrict src = img + i * {w};\n"
            f"{_indent(row_load, 2)}"
            f"  for (int64_t j = 0; j < {wu}; j++) {{ const {c} v = {elem}; {_update(avg, 'row[j]')} }}\n"
            f"}}\n")
    if 1 < kh <= UNROLL_TAPS:
        if dtype == "float16":  # the window's other rows converted after the first, into rowv's next rows
            convert = "".join(f"  {convert_in(dtype, f'rowv + {i * wu}', f'src + {i * w}', wu)}\n"
                              for i in range(1, kh))
            tap = [f"rowv[j + {i * wu}]" for i in range(kh)]
        else:
            convert, tap = "", [load(dtype, f"src[j + {i * w}]") for i in range(kh)]
        taps = "".join(f"    v = {tap[i]}; {_update(avg, 'a')}\n" for i in range(1, kh))
        rows = (f"if (h1 - hs == {kh}) {{\n{convert}"
                f"  for (int64_t j = 0; j < {wu}; j++) {{\n"
                f"    {c} a = {elem}, v;\n{taps}    row[j] = a;\n  }}\n"
                f"}} else {{\n{_indent(rows, 2)}}}\n")
    return (f"for (int64_t rr = 0; rr < nb; rr++) {{\n"
            f"  const int64_t h0 = (r0 + rr) * {sh} - {pt};\n"
            f"  const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};\n"
            f"  {c} *restrict row = vb + rr * {wp} + {pl};\n"
            f"  const {t} *restrict src = img + hs * {w};\n"
            f"{_indent(row_load, 2)}{_indent(rows, 2)}}}\n")


def _factors(avg: bool, x_shape, attrs: dict, ow: int, c: str) -> str:
    """C: AvgPool's column factors of the divisor, computed once per plane (nothing for MaxPool)."""
    if not avg:
        return ""
    (_, kw), (_, sw), (_, _, pl, _) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    w = x_shape[3]
    _, cols = _avg_factors(x_shape, attrs)
    return (f"{c} colf[{ow}];\n"
            f"for (int64_t q = 0; q < {ow}; q++) {{\n"
            f"  const int64_t w0 = q * {sw} - {pl};\n"
            f"  const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};\n"
            f"  (void)ws; (void)w1;\n"
            f"  colf[q] = ({c})({cols});\n"
            f"}}\n")


def _copy_out(avg: bool, dtype: str, x_shape, attrs: dict, ow: int, owp: int, direct: bool) -> str:
    """C: the band's real outputs into ``dst``: an average divided by (rows counted) * (columns counted), the
    old divisor exactly; a half type rounded once."""
    if direct:
        return ""
    c = compute_ctype(dtype)
    result = f"dom[rr * {owp} + q]"
    row_factor = ""
    if avg:
        (kh, _), (sh, _), (pt, *_) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
        h = x_shape[2]
        rows, _ = _avg_factors(x_shape, attrs)
        row_factor = (f"  const int64_t h0 = (r0 + rr) * {sh} - {pt};\n"
                      f"  const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};\n"
                      f"  (void)hs; (void)h1;\n"
                      f"  const {c} rowf = ({c})({rows});\n")
        result = f"{result} / (rowf * colf[q])"
    dst = f"dst + (r0 + rr) * {ow}"
    if dtype == "float16":  # rounded once, by blocks
        body = (f"  for (int64_t q = 0; q < {ow}; q++) res[q] = {result};\n"
                f"  {convert_out(dtype, dst, 'res', ow)}\n")
    else:
        value = store(dtype, result) if is_half(dtype) else result
        body = f"  {ctype(dtype)} *restrict d = {dst};\n  for (int64_t q = 0; q < {ow}; q++) d[q] = {value};\n"
    return f"for (int64_t rr = 0; rr < nb; rr++) {{\n{row_factor}{body}}}\n"


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
    mean = f"s * {c_literal(1.0 / hw, 'float64')}" if hw else "NAN"  # NumPy: the mean of nothing
    result = store(x.dtype, mean, "double") if is_half(x.dtype) else f"({t})({mean})"
    head = (f"{parallel_for(x.size)}for (int64_t p = 0; p < {n * c}; p++) {{\n"
            f"  const {t} *restrict img = in0 + p * {hw};\n")
    if is_half(x.dtype):
        body = hw - hw % lanes
        combine = " + ".join(f"part[{i}]" for i in range(lanes))
        return (head + f"  double part[{lanes}] = {{0}};\n"
                f"  for (int64_t i = 0; i < {body}; i += {lanes})\n"
                f"    for (int64_t l = 0; l < {lanes}; l++) part[l] += {load(x.dtype, 'img[i + l]')};\n"
                f"  for (int64_t i = {body}; i < {hw}; i++) part[i - {body}] += {load(x.dtype, 'img[i]')};\n"
                f"  const double s = {combine};\n"
                f"  out0[p] = {result};\n}}")
    vectors = f"typedef double ob_gap_vd __attribute__((vector_size({lanes * 8})));\n"
    return vectors + head + _gap_vector_sum(hw) + f"  out0[p] = {result};\n}}"


def _gap_vector_sum(hw: int) -> str:
    """C: ``double s``, the sum of the plane ``img`` (``hw`` float32 or float64 elements) in vectors of
    GAP_LANES doubles. Each vector is built from its elements (``(ob_gap_vd){e[0], ...}``), which gcc
    compiles to one load and one conversion; a ``memcpy`` into a float vector then ``__builtin_convertvector``
    ran at half the speed on large planes (docs/benchmarks.md)."""
    lanes = GAP_LANES
    nvec = hw // lanes
    accs = 4 if nvec >= GAP_MULTI_VECTORS else 1
    elems = ", ".join(f"e[{i}]" for i in range(lanes))
    vec = lanes * accs
    body = hw - hw % vec
    lines = [f"  ob_gap_vd acc[{accs}] = {{{{0}}}};\n"]
    lines.append(f"  for (int64_t i = 0; i < {body}; i += {vec})\n"
                 f"    for (int64_t a = 0; a < {accs}; a++) {{\n"
                 f"      const __typeof__(img[0]) *e = img + i + a * {lanes}; acc[a] += (ob_gap_vd){{{elems}}};\n"
                 f"    }}\n")
    if hw // lanes * lanes > body:  # whole vectors left after the multi-accumulator loop
        lines.append(f"  for (int64_t i = {body}; i < {hw // lanes * lanes}; i += {lanes}) {{\n"
                     f"    const __typeof__(img[0]) *e = img + i; acc[0] += (ob_gap_vd){{{elems}}};\n  }}\n")
    for a in range(1, accs):
        lines.append(f"  acc[0] += acc[{a}];\n")
    lines.append(f"  double s = {_tree([f'acc[0][{i}]' for i in range(lanes)])};\n")
    lines.append(f"  for (int64_t i = {hw // lanes * lanes}; i < {hw}; i++) s += img[i];\n")
    return "".join(lines)


def _tree(terms: list[str]) -> str:
    """C: the sum of ``terms`` (a power of two of them) as a balanced tree, each level adding the two halves
    of the list (a vector's halves, as a horizontal reduction does)."""
    while len(terms) > 1:
        half = len(terms) // 2
        terms = [f"({a} + {b})" for a, b in zip(terms[:half], terms[half:], strict=True)]
    return terms[0]


register("MaxPool", _pool_emit(False))
register("AvgPool", _pool_emit(True))
register("GlobalAvgPool", _gap_emit)
