"""CPU kernels of the reduction family (ops/reduction.py): each reduction's combine expression and neutral
element in C (:data:`COMBINE`), and the loops.

Kernel layout. The reduced and kept axes are collapsed into alternating groups (size-1 axes dropped,
neighbours of the same kind merged), then:
  * innermost group reduced: every output element reduces contiguous rows with :func:`lane_reduce`
    (independent SIMD partial results, no -ffast-math needed);
  * innermost group kept: each output row is initialised with the neutral element and whole input rows are
    combined into it (``out[j] = op(out[j], x[j])``, a vectorised loop), one row offset per reduced index.
Integer sums and products accumulate in the unsigned type of the same width: overflow wraps exactly as
NumPy's ``np.sum(x, dtype=x.dtype)`` does, without C's signed-overflow undefined behaviour. float16 and
bfloat16 accumulate in float32 (a float scratch row where the innermost group is kept) and round once when
the result is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ....core.dtypes import ALL_FLOATS, BY_NAME
from ....core.ir import KernelSpec
from ....ops.reduction import REDUCTIONS, Reduction
from ..blocked import convert_in, convert_out, lane_reduce_f16, load_vec, row_buffer
from ..codegen import (
    c_literal,
    compute_ctype,
    ctype,
    is_half,
    lane_reduce,
    nan_max,
    nan_min,
    simd_lanes,
    store,
    strides,
)
from .registry import register


@dataclass(frozen=True)
class Combine:
    """A reduction's C: ``combine(a, b)`` for floats, ``int_combine`` for ints, and its neutral element per
    dtype."""

    combine: Callable[[str, str], str]
    int_combine: Callable[[str, str], str]
    identity: Callable[[str], str]


def _unsigned(dt: str) -> str:
    """The unsigned C type of an integer dtype's width (wrap-around accumulator)."""
    return f"uint{BY_NAME[dt].bits}_t"


def _int_limit(dt: str, top: bool) -> str:
    d = BY_NAME[dt]
    if d.is_unsigned:
        return f"UINT{d.bits}_MAX" if top else "0"
    return f"INT{d.bits}_{'MAX' if top else 'MIN'}"


def _const(value: int) -> Callable[[str], str]:
    return lambda dt: c_literal(value, dt)


COMBINE: dict[str, Combine] = {
    "ReduceSum": Combine(lambda a, b: f"{a} + {b}", lambda a, b: f"{a} + {b}", _const(0)),
    "ReduceMean": Combine(lambda a, b: f"{a} + {b}", lambda a, b: f"{a} + {b}", _const(0)),
    "ReduceProd": Combine(lambda a, b: f"{a} * {b}", lambda a, b: f"{a} * {b}", _const(1)),
    "ReduceMax": Combine(nan_max, lambda a, b: f"({b} > {a} ? {b} : {a})",
                         lambda dt: "(-INFINITY)" if dt in ALL_FLOATS else _int_limit(dt, False)),
    "ReduceMin": Combine(nan_min, lambda a, b: f"({b} < {a} ? {b} : {a})",
                         lambda dt: "INFINITY" if dt in ALL_FLOATS else _int_limit(dt, True)),
}


@dataclass(frozen=True)
class _Group:
    size: int
    reduced: bool
    stride: int  # input element stride of the group's innermost axis


def _groups(shape: Sequence[int], axes: Sequence[int]) -> list[_Group]:
    """Collapse the axes into alternating kept/reduced groups: size-1 axes dropped, adjacent axes of the same
    kind merged (valid because the input is C-contiguous)."""
    st = strides(shape)
    groups: list[_Group] = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        red = d in axes
        if groups and groups[-1].reduced == red:
            groups[-1] = _Group(groups[-1].size * size, red, st[d])
        else:
            groups.append(_Group(size, red, st[d]))
    return groups


def _loops(groups: Sequence[_Group], prefix: str) -> tuple[list[str], list[str]]:
    """For-loop headers over ``groups`` (indices ``prefix0..``) and the terms of their input offset."""
    heads, terms = [], []
    for i, g in enumerate(groups):
        heads.append(f"for (int64_t {prefix}{i} = 0; {prefix}{i} < {g.size}; {prefix}{i}++) {{")
        terms.append(f"{prefix}{i}" if g.stride == 1 else f"{prefix}{i} * {g.stride}")
    return heads, terms


def _out_offset(kept: Sequence[_Group], prefix: str) -> str:
    """Offset of the output element/row indexed by ``prefix0..`` over ``kept`` (the output is contiguous in
    the kept groups' order, whatever keep_dims says)."""
    terms, acc = [], 1
    for i in range(len(kept) - 1, -1, -1):
        terms.append(f"{prefix}{i}" if acc == 1 else f"{prefix}{i} * {acc}")
        acc *= kept[i].size
    return " + ".join(reversed(terms)) or "0"


@dataclass(frozen=True)
class _Ctx:
    """What one reduction kernel's loops need: element and accumulator C types, combine, neutral element."""

    dtype: str
    ct: str
    acc_t: str
    comb: Callable[[str, str], str]
    ident: str
    lanes: int
    load: Callable[[str], str]  # element -> accumulator type
    finish: Callable[[str], str]  # accumulator -> stored output value
    finish_f32: Callable[[str], str] = str  # half types: accumulator -> the float value that finish rounds


def _emit_inner_reduced(c: _Ctx, kept: list[_Group], red: list[_Group]) -> list[str]:
    """Innermost group reduced: each output element reduces whole contiguous rows with lane_reduce (float16
    rows with lane_reduce_f16: the same lanes and order over block-converted chunks, so the same bits)."""
    kh, kt = _loops(kept, "k")
    rh, rt = _loops(red[:-1], "r")
    return [
        *kh,
        f"{c.acc_t} acc = {c.ident};",
        *rh,
        f"const {c.ct} *restrict xr = in0 + {' + '.join(kt + rt) or '0'};",
        lane_reduce_f16("racc", red[-1].size, "xr", c.comb, c.ident, c.lanes) if c.dtype == "float16" else
        lane_reduce("racc", c.acc_t, red[-1].size, lambda j: c.load(f"xr[{j}]"), c.comb, c.ident, c.lanes),
        f"acc = {c.comb('acc', 'racc')};",
        "}" * len(rh),
        f"out0[{_out_offset(kept, 'k')}] = {c.finish('acc')};",
        "}" * len(kh),
    ]


def _emit_inner_kept(c: _Ctx, kept: list[_Group], red: list[_Group], mean: bool) -> list[str]:
    """Innermost group kept (m elements): each output row starts at the neutral element and whole input rows
    are combined into it, a unit-stride loop over m per reduced index."""
    m = kept[-1].size
    kh, kt = _loops(kept[:-1], "k")
    rh, rt = _loops(red, "r")
    lines = [
        *kh,
        f"{c.ct} *restrict orow = out0 + ({_out_offset(kept[:-1], 'k')}) * {m};",
        f"const {c.ct} *restrict xb = in0 + {' + '.join(kt) or '0'};",
        f"for (int64_t j = 0; j < {m}; j++) orow[j] = ({c.ct}){c.ident};",
        *rh,
        f"const {c.ct} *restrict xr = xb + {' + '.join(rt)};",
        f"for (int64_t j = 0; j < {m}; j++) {{ const {c.acc_t} a = {c.load('orow[j]')}, b = {c.load('xr[j]')}; "
        f"orow[j] = ({c.ct})({c.comb('a', 'b')}); }}",
        "}" * len(rh),
    ]
    if mean:
        lines.append(f"for (int64_t j = 0; j < {m}; j++) orow[j] = {c.finish('orow[j]')};")
    return lines + ["}" * len(kh)]


def _emit_inner_kept_half(c: _Ctx, kept: list[_Group], red: list[_Group], block: int = 256) -> list[str]:
    """Innermost group kept, half types: as :func:`_emit_inner_kept`, but the running results live in a float
    scratch block (``block`` columns at a time, on the stack) so they round once, on the final store. float16
    input rows and the results convert by blocks (targets/cpu/blocked.py), so the loops vectorise."""
    f16 = c.dtype == "float16"
    m = kept[-1].size
    kh, kt = _loops(kept[:-1], "k")
    rh, rt = _loops(red, "r")
    return [
        *kh,
        f"{c.ct} *restrict orow = out0 + ({_out_offset(kept[:-1], 'k')}) * {m};",
        f"const {c.ct} *restrict xb = in0 + {' + '.join(kt) or '0'};",
        f"for (int64_t jb = 0; jb < {m}; jb += {block}) {{",
        f"const int64_t jn = {m} - jb < {block} ? {m} - jb : {block};",
        f"float acc[{block}];",
        f"for (int64_t j = 0; j < jn; j++) acc[j] = {c.ident};",
        *rh,
        f"const {c.ct} *restrict xr = xb + jb + {' + '.join(rt)};",
        *([f"float xf[{block}]; {convert_in(c.dtype, 'xf', 'xr', 'jn')}",
           f"for (int64_t j = 0; j < jn; j++) {{ const float a = acc[j], b = xf[j]; acc[j] = {c.comb('a', 'b')}; }}"]
          if f16 else
          [f"for (int64_t j = 0; j < jn; j++) {{ const float a = acc[j], b = {c.load('xr[j]')}; "
           f"acc[j] = {c.comb('a', 'b')}; }}"]),
        "}" * len(rh),
        *([f"for (int64_t j = 0; j < jn; j++) acc[j] = {c.finish_f32('acc[j]')};",
           convert_out(c.dtype, "orow + jb", "acc", "jn")] if f16 else
          [f"for (int64_t j = 0; j < jn; j++) orow[jb + j] = {c.finish('acc[j]')};"]),
        "}",
        "}" * len(kh),
    ]


def _reduce_emit(r: Reduction, cr: Combine) -> Callable[[KernelSpec], str]:
    def emit(k: KernelSpec) -> str:
        x, y = k.inputs[0], k.outputs[0]
        dt, ct = x.dtype, ctype(x.dtype)
        half = is_half(dt)
        is_int = BY_NAME[dt].is_int
        # unsigned: defined wrap-around, as NumPy; half types: float accumulators
        acc_t = _unsigned(dt) if (is_int and r.wraps) else compute_ctype(dt)
        lit_dt = "float32" if half else dt
        ident = cr.identity(lit_dt)
        if y.size == 0:
            return "/* empty output: nothing to compute */"
        if x.size == 0:  # reducing nothing: the neutral element (the mean of nothing is NaN, like NumPy)
            return f"for (int64_t o = 0; o < {y.size}; o++) out0[o] = {store(dt, 'NAN' if r.mean else ident)};"
        groups = _groups(x.shape, k.attrs["axis"])
        kept = [g for g in groups if not g.reduced]
        red = [g for g in groups if g.reduced]
        if not red:  # every reduced axis has size 1: a copy
            return f"for (int64_t o = 0; o < {y.size}; o++) out0[o] = in0[o];"
        count = c_literal(x.size // y.size, lit_dt)

        def load_acc(e: str) -> str:
            if half:  # float16: a load that keeps the reduction loop vectorisable (targets/cpu/blocked.py)
                return load_vec(dt, e)
            return f"({acc_t}){e}" if acc_t != ct else e

        def finish_f32(e: str) -> str:
            return f"{e} / {count}" if r.mean else e

        def finish(e: str) -> str:
            if half:
                return store(dt, finish_f32(e))
            return f"({ct})({e} / {count})" if r.mean else (f"({ct}){e}" if acc_t != ct else e)

        c = _Ctx(dt, ct, acc_t, cr.int_combine if is_int else cr.combine, ident, simd_lanes(lit_dt), load_acc, finish,
                 finish_f32)
        if groups[-1].reduced:
            lines = _emit_inner_reduced(c, kept, red)
        elif half:
            lines = _emit_inner_kept_half(c, kept, red)
        else:
            lines = _emit_inner_kept(c, kept, red, r.mean)
        return "\n".join(line for line in lines if line)

    return emit


_ARG_BLOCK = 256  # columns handled at once when the axis is not innermost (stack scratch of this size)


def _arg_emit(is_max: bool) -> Callable[[KernelSpec], str]:
    gt = ">" if is_max else "<"

    def emit(k: KernelSpec) -> str:
        x = k.inputs[0]
        # A half x is compared in float: its conversion is exact and monotonic, so the index is the same, and
        # the soft-half storage (uint16_t bits) would compare wrongly as integers.
        st, ct, it = ctype(x.dtype), compute_ctype(x.dtype), ctype(k.outputs[0].dtype)
        axis = k.attrs["axis"]
        n = x.shape[axis]
        outer = int(np.prod(x.shape[:axis], dtype=np.int64))
        inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
        if outer * inner == 0:
            return "/* empty output: nothing to compute */"
        nan = BY_NAME[x.dtype].is_float

        # float16 contiguous rows (up to ROW_MAX elements) are converted once into xf: both passes then read
        # floats (targets/cpu/blocked.py); the conversion is exact, so the index is the same.
        rowbuf = row_buffer(x.dtype, "xf", "xr", n) if inner == 1 else None

        def ld(ref: str) -> str:
            return "xf" + ref[2:] if rowbuf and ref.startswith("xr[") else load_vec(x.dtype, ref)

        def better(v: str, b: str) -> str:
            # v replaces the current best b: strictly better (first occurrence wins ties), or the first NaN.
            return f"({v} {gt} {b} || ({v} != {v} && {b} == {b}))" if nan else f"({v} {gt} {b})"

        if inner == 1:
            # Two vectorised passes over each contiguous row: its extreme value m (NaN-propagating), then the
            # first element equal to m (the first NaN when m is NaN), searched L elements at a time.
            lanes = simd_lanes("float32" if is_half(x.dtype) else x.dtype)
            main = n - n % lanes
            ident = ("(-INFINITY)" if is_max else "INFINITY") if nan else _int_limit(x.dtype, not is_max)
            comb = (nan_max if is_max else nan_min) if nan else (lambda a, b: f"({b} {gt} {a} ? {b} : {a})")

            def search(hit: str) -> list[str]:
                return [f"for (; j < {main}; j += {lanes}) {{ int hit = 0; "
                        f"for (int l = 0; l < {lanes}; l++) hit |= {hit.format(ld('xr[j + l]'))}; if (hit) break; }}",
                        f"while (!({hit.format(ld('xr[j]'))})) j++;"]

            lines = [f"for (int64_t o = 0; o < {outer}; o++) {{",
                     f"const {st} *restrict xr = in0 + o * {n};",
                     *([rowbuf] if rowbuf else []),
                     lane_reduce("m", ct, n, lambda j: ld(f"xr[{j}]"), comb, ident, lanes),
                     "int64_t j = 0;"]
            if nan:
                lines += ["if (m == m) {", *search("{0} == m"), "} else {", *search("{0} != {0}"), "}"]
            else:
                lines += search("{0} == m")
            lines += [f"out0[o] = ({it})j;", "}"]
            return "\n".join(lines)
        # The axis is strided: walk it row by row over a block of columns, selects vectorised over the block.
        blk = min(inner, _ARG_BLOCK)
        return "\n".join([
            f"for (int64_t o = 0; o < {outer}; o++)",
            f"for (int64_t c0 = 0; c0 < {inner}; c0 += {blk}) {{",
            f"const int64_t w = {inner} - c0 < {blk} ? {inner} - c0 : {blk};",
            f"const {st} *restrict xb = in0 + o * {n * inner} + c0;",
            f"{ct} bv[{blk}]; {it} bx[{blk}];",
            f"for (int64_t c = 0; c < w; c++) {{ bv[c] = {ld('xb[c]')}; bx[c] = 0; }}",
            f"for (int64_t r = 1; r < {n}; r++) {{",
            f"  const {st} *restrict xr = xb + r * {inner};",
            f"  for (int64_t c = 0; c < w; c++) {{ const {ct} v = {ld('xr[c]')}; const int t = {better('v', 'bv[c]')}; "
            f"bv[c] = t ? v : bv[c]; bx[c] = t ? ({it})r : bx[c]; }}",
            "}",
            f"for (int64_t c = 0; c < w; c++) out0[o * {inner} + c0 + c] = bx[c];",
            "}",
        ])

    return emit


for _name, _r in REDUCTIONS.items():
    register(_name, _reduce_emit(_r, COMBINE[_name]))
register("ArgMax", _arg_emit(True))
register("ArgMin", _arg_emit(False))
