"""CPU kernels of the normalisation family (ops/normalization.py): Softmax, LogSoftmax, BatchNorm (inference
form) and LayerNorm.

Kernels see the input as ``(outer, n, inner)`` around the normalised axis (or axes). When ``inner == 1`` each
row is contiguous and reduced with :func:`lane_reduce` (vectorised without -ffast-math); otherwise the
statistics of a block of ``inner`` columns are kept in small stack arrays and whole rows are combined into
them, so the hot loops are unit-stride and never recompute multi-dimensional indices.
Float32 statistics accumulate in float: lane_reduce's independent partial sums keep the error near
``(n / lanes) * eps * sum|x|``, well inside the tolerances the tests state."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ....core.ir import KernelSpec
from ....ops.normalization import _bn_channel_axis
from ..blocked import ROW_MAX, row_buffer
from ..codegen import (
    c_literal,
    compute_ctype,
    ctype,
    is_half,
    lane_reduce,
    load,
    nan_max,
    round_trip,
    simd_lanes,
    store,
)
from .registry import register

_BLOCK = 256  # columns whose statistics live in stack arrays at once (strided axis)


def _prod(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _add(a: str, b: str) -> str:
    return f"{a} + {b}"


def _ms_f16_exp(exp: str, x: str, mx: str) -> str:
    """float16 Softmax's exponential as MindSpore's CPU kernel has it: ``x - max`` and its exponential each
    rounded to float16 (the sum of these is rounded too before the division, so that every step is a float16
    result, which tests/compat/test_softmax_half.py checks against MindSpore bit for bit)."""
    return round_trip("float16", f"{exp}({round_trip('float16', f'{x} - {mx}')})")


def _softmax_f16_rows(log: bool, outer: int, n: int, rowbuf: str, exp: str, zero: str, ninf: str) -> str:
    """Softmax/LogSoftmax over contiguous float16 rows that fit a float buffer: the half branch of
    :func:`_softmax_emit` (same lane order, same float32 expressions, so the same bits) reading the row from
    the buffer ``xf``; each result overwrites its own element of ``xf``, which one block conversion rounds
    into the output (Softmax keeps the exponentials there instead of computing them twice). Every loop
    vectorises, where a _Float16 load or store keeps a loop scalar with gcc 12."""
    lanes = simd_lanes("float32")
    lines = [f"for (int64_t o = 0; o < {outer}; o++) {{",
             f"const ob_f16 *restrict xr = in0 + o * {n};",
             rowbuf,
             lane_reduce("mx", "float", n, lambda j: f"xf[{j}]", nan_max, ninf, lanes)]
    if log:
        lines += [lane_reduce("s", "float", n, lambda j: f"{exp}(xf[{j}] - mx)", _add, zero, lanes),
                  "const float ls = log(s);", f"for (int64_t j = 0; j < {n}; j++) xf[j] = (xf[j] - mx) - ls;"]
    else:  # the exponentials kept in xf: the very values the half branch recomputes, summed in the same order
        lines += [f"for (int64_t j = 0; j < {n}; j++) xf[j] = {_ms_f16_exp(exp, 'xf[j]', 'mx')};",
                  lane_reduce("s", "float", n, lambda j: f"xf[{j}]", _add, zero, lanes),
                  f"const float sr = {round_trip('float16', 's')};",
                  f"for (int64_t j = 0; j < {n}; j++) xf[j] = xf[j] / sr;"]
    lines += [f"ob_f16_store_block(out0 + o * {n}, xf, {n});", "}"]
    return "\n".join(lines)


def _softmax_emit(log: bool) -> Callable[[KernelSpec], str]:
    def emit(k: KernelSpec) -> str:
        x = k.inputs[0]
        dt, axis = x.dtype, k.attrs["axis"]
        st, ct = ctype(dt), compute_ctype(dt)  # storage type, compute type (float for the half types)
        half = is_half(dt)
        n = x.shape[axis]
        outer, inner = _prod(x.shape[:axis]), _prod(x.shape[axis + 1:])
        if x.size == 0:
            return "/* empty input: nothing to compute */"
        zero, ninf = c_literal(0, "float64" if ct == "double" else "float32"), "(-INFINITY)"
        exp = "ob_expf" if ct == "float" else "exp"  # ob_expf vectorises (targets/cpu/codegen.py)

        def ld(ref: str) -> str:
            return load(dt, ref)

        def sto(expr: str) -> str:
            return store(dt, expr, ct)

        rowbuf = row_buffer(dt, "xf", "xr", n) if inner == 1 else None
        if rowbuf:  # float16: the row converted once into xf (targets/cpu/blocked.py); results go back to xf
            return _softmax_f16_rows(log, outer, n, rowbuf, exp, zero, ninf)
        if inner == 1:
            lanes = simd_lanes("float32" if half else dt)
            lines = [f"for (int64_t o = 0; o < {outer}; o++) {{",
                     f"const {st} *restrict xr = in0 + o * {n};",
                     f"{st} *restrict yr = out0 + o * {n};",
                     lane_reduce("mx", ct, n, lambda j: ld(f"xr[{j}]"), nan_max, ninf, lanes)]
            if log:  # y = (x - max) - log(sum(exp(x - max)))
                lines += [lane_reduce("s", ct, n, lambda j: exp + '(' + ld(f'xr[{j}]') + ' - mx)', _add, zero, lanes),
                          f"const {ct} ls = log(s);",
                          f"for (int64_t j = 0; j < {n}; j++) yr[j] = {sto('(' + ld('xr[j]') + ' - mx) - ls')};"]
            elif dt == "float16":  # MindSpore's float16 steps (_ms_f16_exp), the exponentials recomputed
                lines += [lane_reduce("s", ct, n, lambda j: _ms_f16_exp(exp, ld(f'xr[{j}]'), 'mx'), _add, zero,
                                      lanes),
                          f"const float sr = {round_trip('float16', 's')};",
                          f"for (int64_t j = 0; j < {n}; j++) "
                          f"yr[j] = {sto(_ms_f16_exp(exp, ld('xr[j]'), 'mx') + ' / sr')};"]
            elif half:  # the exponentials are recomputed rather than stored: the output rounds once
                lines += [lane_reduce("s", ct, n, lambda j: exp + '(' + ld(f'xr[{j}]') + ' - mx)', _add, zero, lanes),
                          f"for (int64_t j = 0; j < {n}; j++) yr[j] = {sto(exp + '(' + ld('xr[j]') + ' - mx) / s')};"]
            else:  # y = exp(x - max) / sum(exp(x - max))
                lines += [f"for (int64_t j = 0; j < {n}; j++) yr[j] = {exp}(xr[j] - mx);",
                          lane_reduce("s", ct, n, lambda j: f"yr[{j}]", _add, zero, lanes),
                          f"for (int64_t j = 0; j < {n}; j++) yr[j] = yr[j] / s;"]
            return "\n".join(lines + ["}"])
        # Strided axis: per-column max and sum for a block of columns, rows combined whole.
        blk = min(inner, _BLOCK)
        col = "for (int64_t c = 0; c < w; c++)"
        row = f"for (int64_t r = 0; r < {n}; r++)"
        xrow = f"const {st} *restrict xr = xb + r * {inner};"
        yrow = f"{st} *restrict yr = yb + r * {inner};"
        lines = [
            f"for (int64_t o = 0; o < {outer}; o++)",
            f"for (int64_t c0 = 0; c0 < {inner}; c0 += {blk}) {{",
            f"const int64_t w = {inner} - c0 < {blk} ? {inner} - c0 : {blk};",
            f"const {st} *restrict xb = in0 + o * {n * inner} + c0;",
            f"{st} *restrict yb = out0 + o * {n * inner} + c0;",
            f"{ct} mx[{blk}], s[{blk}];",
            f"{col} {{ mx[c] = {ninf}; s[c] = {zero}; }}",
            f"{row} {{ {xrow} "
            f"{col} {{ const {ct} v = {ld('xr[c]')}, a = mx[c]; mx[c] = {nan_max('a', 'v')}; }} }}",
        ]
        if log:
            lines += [
                f"{row} {{ {xrow} {col} s[c] += {exp}({ld('xr[c]')} - mx[c]); }}",
                f"{col} s[c] = log(s[c]);",
                f"{row} {{ {xrow} {yrow} {col} yr[c] = {sto('(' + ld('xr[c]') + ' - mx[c]) - s[c]')}; }}",
            ]
        elif dt == "float16":
            e16 = _ms_f16_exp(exp, ld("xr[c]"), "mx[c]")
            lines += [
                f"{row} {{ {xrow} {col} s[c] += {e16}; }}",
                f"{col} s[c] = {round_trip('float16', 's[c]')};",
                f"{row} {{ {xrow} {yrow} {col} yr[c] = {sto(e16 + ' / s[c]')}; }}",
            ]
        elif half:
            lines += [
                f"{row} {{ {xrow} {col} s[c] += {exp}({ld('xr[c]')} - mx[c]); }}",
                f"{row} {{ {xrow} {yrow} {col} yr[c] = {sto(exp + '(' + ld('xr[c]') + ' - mx[c]) / s[c]')}; }}",
            ]
        else:
            lines += [
                f"{row} {{ {xrow} {yrow} "
                f"{col} {{ const {ct} e = {exp}(xr[c] - mx[c]); yr[c] = e; s[c] += e; }} }}",
                f"{row} {{ {yrow} {col} yr[c] = yr[c] / s[c]; }}",
            ]
        return "\n".join(lines + ["}"])

    return emit


def _bn_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    dt = x.dtype
    st, ct = ctype(dt), compute_ctype(dt)
    eps = c_literal(k.attrs["epsilon"], "float64" if ct == "double" else "float32")
    axis = _bn_channel_axis(k.attrs, x.rank)
    c = x.shape[axis]
    outer, inner = _prod(x.shape[:axis]), _prod(x.shape[axis + 1:])
    if x.size == 0:
        return "/* empty input: nothing to compute */"

    def p(i: int, ref: str) -> str:  # a per-channel parameter, loaded into the compute type
        return load(k.inputs[i].dtype, ref)

    # in1..in4 = scale, bias, mean, variance; y = (x - mean) * (scale / sqrt(variance + eps)) + bias,
    # computed in the compute type (float for a half x) and rounded once on store.
    if inner > 1:  # NCHW: one channel's plane is contiguous; its coefficients are scalars
        y = store(dt, f"({load(dt, 'xr[j]')} - mu) * a + b", ct)
        return "\n".join([
            f"for (int64_t o = 0; o < {outer}; o++)",
            f"for (int64_t ch = 0; ch < {c}; ch++) {{",
            f"const {ct} a = {p(1, 'in1[ch]')} / sqrt({p(4, 'in4[ch]')} + {eps}), mu = {p(3, 'in3[ch]')}, "
            f"b = {p(2, 'in2[ch]')};",
            f"const {st} *restrict xr = in0 + (o * {c} + ch) * {inner};",
            f"{st} *restrict yr = out0 + (o * {c} + ch) * {inner};",
            # A plane of 8-16 pixels (one or two AVX vectors; 16 is gcc's limit for complete unrolling) is not
            # unrolled: gcc -O3 would unroll it completely, then vectorise the channel loop across channels
            # with permutes, for up to twice the compile time (~40 ms more for one kernel) and a kernel 1.4-2.5x
            # slower than the plain vector loop kept here (docs/benchmarks.md, "Cold builds"). Shorter planes
            # gain from that cross-channel form, longer ones are not unrolled anyway.
            *(["#pragma GCC unroll 1"] if 8 <= inner <= 16 else []),
            f"for (int64_t j = 0; j < {inner}; j++) yr[j] = {y};",
            "}",
        ])
    # Channels last: the per-channel factors of a block of channels are computed once into stack arrays.
    blk = min(c, _BLOCK)
    y = store(dt, f"({load(dt, 'xr[j]')} - mu[j]) * a[j] + b[j]", ct)
    return "\n".join([
        f"for (int64_t c0 = 0; c0 < {c}; c0 += {blk}) {{",
        f"const int64_t w = {c} - c0 < {blk} ? {c} - c0 : {blk};",
        f"{ct} a[{blk}], mu[{blk}], b[{blk}];",
        f"for (int64_t j = 0; j < w; j++) {{ a[j] = {p(1, 'in1[c0 + j]')} / sqrt({p(4, 'in4[c0 + j]')} + {eps}); "
        f"mu[j] = {p(3, 'in3[c0 + j]')}; b[j] = {p(2, 'in2[c0 + j]')}; }}",
        f"for (int64_t o = 0; o < {outer}; o++) {{",
        f"const {st} *restrict xr = in0 + o * {c} + c0;",
        f"{st} *restrict yr = out0 + o * {c} + c0;",
        f"for (int64_t j = 0; j < w; j++) yr[j] = {y};",
        "}",
        "}",
    ])


def _ln_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    dt = x.dtype
    st, ct = ctype(dt), compute_ctype(dt)  # half types: statistics and arithmetic in float, one rounding
    cdt = "float64" if ct == "double" else "float32"
    bna, bpa = k.attrs["begin_norm_axis"], k.attrs["begin_params_axis"]
    rows, n, p = _prod(x.shape[:bna]), _prod(x.shape[bna:]), _prod(x.shape[bpa:])
    eps, zero = c_literal(k.attrs["epsilon"], cdt), c_literal(0, cdt)
    if x.size == 0:
        if rows == 0:
            return "/* empty input: nothing to compute */"
        nan = store(dt, "NAN", ct)
        return f"for (int64_t o = 0; o < {rows}; o++) {{ out1[o] = {nan}; out2[o] = {nan}; }}"  # stats of nothing
    lanes = simd_lanes(cdt)

    def ld(ref: str) -> str:
        return load(dt, ref)

    # float16 rows that fit float buffers (three rows of at most 32 KiB): x, gamma and beta converted by blocks
    # into xf, gf, bf and y rounded from xf (targets/cpu/blocked.py); the same float expressions in the same
    # order, so the same bits, and every loop vectorises.
    rowbuf = row_buffer(dt, "xf", "xr", n, ROW_MAX // 2) if p >= n else None
    if rowbuf:
        def ld(ref: str) -> str:  # x, gamma, beta elements from their float rows
            name, index = ref.split("[", 1)
            return {"xr": "xf", "g": "gf", "b": "bf"}[name] + "[" + index

    # gamma/beta cover the last p elements of x's flat index: a row of n elements reads them at offset
    # (o % (p / n)) * n when they span several rows, or repeats them n / p times when they are shorter.
    if p >= n:
        g_off = f"(o % {p // n}) * {n}" if p > n else "0"
        expr = f"({ld('xr[j]')} - mean) * rstd * {ld('g[j]')} + {ld('b[j]')}"
        affine = [f"const {st} *restrict g = in1 + {g_off}, *restrict b = in2 + {g_off};",
                  *([f"float gf[{n}], bf[{n}]; ob_f16_load_block(gf, g, {n}); ob_f16_load_block(bf, b, {n});"]
                    if rowbuf else []),
                  f"for (int64_t j = 0; j < {n}; j++) xf[j] = {expr};" if rowbuf else
                  f"for (int64_t j = 0; j < {n}; j++) yr[j] = {store(dt, expr, ct)};",
                  *([f"ob_f16_store_block(yr, xf, {n});"] if rowbuf else [])]
    else:
        y = store(dt, f"({ld(f'xr[q * {p} + j]')} - mean) * rstd * {ld('in1[j]')} + {ld('in2[j]')}", ct)
        affine = [f"for (int64_t q = 0; q < {n // p}; q++)",
                  f"for (int64_t j = 0; j < {p}; j++) yr[q * {p} + j] = {y};"]
    return "\n".join([
        f"for (int64_t o = 0; o < {rows}; o++) {{",
        f"const {st} *restrict xr = in0 + o * {n};",
        f"{st} *restrict yr = out0 + o * {n};",
        *([rowbuf] if rowbuf else []),
        lane_reduce("s", ct, n, lambda j: ld(f"xr[{j}]"), _add, zero, lanes),
        f"const {ct} mean = s / {c_literal(n, cdt)};",
        # Two passes (mean, then squared deviations): no cancellation, unlike E[x^2] - E[x]^2.
        lane_reduce("ss", ct, n, lambda j: f"({ld(f'xr[{j}]')} - mean) * ({ld(f'xr[{j}]')} - mean)", _add, zero,
                    lanes),
        f"const {ct} var = ss / {c_literal(n, cdt)};",
        f"const {ct} rstd = 1 / sqrt(var + {eps});",
        *affine,
        f"out1[o] = {store(dt, 'mean', ct)}; out2[o] = {store(dt, 'var', ct)};",
        "}",
    ])


register("Softmax", _softmax_emit(False))
register("LogSoftmax", _softmax_emit(True))
register("BatchNorm", _bn_emit)
register("LayerNorm", _ln_emit)
