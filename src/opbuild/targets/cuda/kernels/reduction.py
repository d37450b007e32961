"""GPU kernels of the row reductions: ReduceSum/Mean/Max/Min/Prod and ArgMax/ArgMin (ops/reduction.py), and
Softmax/LogSoftmax (ops/normalization.py).

Layout. Each output element reduces one *row*: the elements sharing its kept coordinates. Where the reduced
axes are adjacent (size-1 axes set aside) the input is viewed as ``(outer, R, inner)`` and a row's elements
are ``R`` elements ``inner`` apart; any other axis set is reduced in gather form (:func:`gather_layout`): the
row's first element comes from the output index through the kept axes' strides, its ``j``-th from ``j``
through the reduced axes' (a mixed-radix offset), so no transpose and no workspace are needed. Each row is
reduced by one block (a block-stride loop over rows, so any grid computes the same): every thread combines a
strided part of the row, then a tree in shared memory combines the ``BLOCK`` partial results; each output
element is written once, by thread 0 of its block. Integer sums and products accumulate in the unsigned type
of the same width and wrap as NumPy's ``np.sum(x, dtype=x.dtype)``; max and min propagate NaN as ``np.max``
does. float16 and bfloat16 load into float, accumulate in float and round once on store, as the CPU; float16
Softmax rounds each step as MindSpore's CPU kernel does (``x - max``, each exponential and their sum), the
other half Softmax/LogSoftmax round once.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops.reduction import REDUCTIONS
from .. import half
from ..codegen import Unsupported, ctype
from .layout import strides
from .registry import register

# NaN-propagating max and min of a and b, as np.max / np.min reduce.
NAN_MAX = "((a > b || a != a) ? a : b)"
NAN_MIN = "((a < b || a != a) ? a : b)"


def row_layout(op: str, shape: Sequence[int], axes: Sequence[int]) -> tuple[int, int, int]:
    """``(outer, R, inner)`` of reducing ``axes`` of ``shape``; :class:`Unsupported` when the reduced axes
    (size-1 axes aside) are not adjacent."""
    real = [a for a in sorted(axes) if shape[a] != 1]
    if not real:
        outer = 1
        for d in shape:
            outer *= d
        return outer, 1, 1
    first, last = real[0], real[-1]
    if any(shape[a] != 1 and a not in real for a in range(first, last + 1)):
        raise Unsupported(f"the GPU target reduces only adjacent axes for {op} yet (axes {tuple(axes)} of "
                          f"shape {tuple(shape)})")
    outer = reduced = inner = 1
    for a, d in enumerate(shape):
        if a < first:
            outer *= d
        elif a <= last:
            reduced *= d
        else:
            inner *= d
    return outer, reduced, inner


def _combine(op: str, dt: str) -> tuple[str, str, str]:
    """``(accumulator C type, neutral element, combine expression in a and b)`` of reduction ``op``."""
    d = BY_NAME[dt]
    acc = half.compute_ctype(dt)
    if d.is_int and op in ("ReduceSum", "ReduceProd"):
        acc = f"uint{d.bits}_t" if not d.is_unsigned else acc
    if op in ("ReduceSum", "ReduceMean"):
        return acc, "0", "(a + b)"
    if op == "ReduceProd":
        return acc, "1", "(a * b)"
    if dt == "bool":
        return acc, ("false" if op == "ReduceMax" else "true"), ("(a || b)" if op == "ReduceMax" else "(a && b)")
    if d.is_float:
        inf = "(1.0 / 0.0)" if dt == "float64" else "(1.0f / 0.0f)"
        return acc, (f"-{inf}" if op == "ReduceMax" else inf), (NAN_MAX if op == "ReduceMax" else NAN_MIN)
    lo, hi = ("0", f"UINT{d.bits}_MAX") if d.is_unsigned else (f"INT{d.bits}_MIN", f"INT{d.bits}_MAX")
    return acc, (lo if op == "ReduceMax" else hi), ("(a > b ? a : b)" if op == "ReduceMax" else "(a < b ? a : b)")


def block_reduce(acc: str, combine: str, var: str, result: str) -> str:
    """CUDA C combining every thread's ``var`` (of type ``acc``) into ``result`` (seen by every thread) with
    ``combine`` (in ``a`` and ``b``), through shared memory."""
    return (f"    __shared__ {acc} sh_{result}[OB_BLOCK];\n"
            f"    auto comb_{result} = [](const {acc} a, const {acc} b) -> {acc} {{ return ({acc}){combine}; }};\n"
            f"    sh_{result}[threadIdx.x] = {var}; __syncthreads();\n"
            f"    for (int w_ = OB_BLOCK / 2; w_ > 0; w_ >>= 1) {{\n"
            f"      if (threadIdx.x < w_) sh_{result}[threadIdx.x] = comb_{result}(sh_{result}[threadIdx.x], "
            f"sh_{result}[threadIdx.x + w_]);\n"
            f"      __syncthreads();\n    }}\n"
            f"    const {acc} {result} = sh_{result}[0]; __syncthreads();\n")


def _mixed_radix(shape: Sequence[int], st: Sequence[int], var: str) -> str:
    """C: the offset ``sum(coord_d * st[d])`` of flat index ``var`` over the C-contiguous ``shape``."""
    terms, inner, total = [], 1, 1
    for d in shape:
        total *= d
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] > 1:
            coord = var if inner == 1 else f"({var} / {inner}LL)"
            if inner * shape[d] < total:
                coord = f"({coord} % {shape[d]}LL)"
            terms.append(coord if st[d] == 1 else f"{coord} * {st[d]}LL")
        inner *= shape[d]
    return " + ".join(terms) or "0"


class Rows:
    """Where the elements of each reduced row are: ``count`` rows of ``length`` elements; ``base`` (C, of
    ``row``) the offset of a row's first element, :meth:`at` the offset of its ``j``-th: the reduced axes'
    ``shape`` and element strides ``st``."""

    def __init__(self, count: int, length: int, base: str, shape: Sequence[int], st: Sequence[int]):
        self.count, self.length, self.base, self._shape, self._st = count, length, base, shape, st

    def at(self, j: str) -> str:
        """C: the offset of element ``j`` of the current row (``base`` is in scope)."""
        elem = _mixed_radix(self._shape, self._st, j)
        return "base" if elem == "0" else f"base + {elem}"


def gather_layout(shape: Sequence[int], axes: Sequence[int]) -> Rows:
    """The rows of reducing ``axes`` of ``shape`` (any set): adjacent reduced axes as ``(outer, R, inner)``,
    any other set in gather form (module docstring)."""
    axes = sorted({a % len(shape) for a in axes}) if shape else []
    real = [a for a in axes if shape[a] != 1]
    try:
        outer, r, inner = row_layout("", shape, axes)
    except Unsupported:
        st = strides(shape)
        kept = [a for a in range(len(shape)) if a not in real]
        count = length = 1
        for a in kept:
            count *= shape[a]
        for a in real:
            length *= shape[a]
        base = _mixed_radix([shape[a] for a in kept], [st[a] for a in kept], "row")
        return Rows(count, length, base, [shape[a] for a in real], [st[a] for a in real])
    base = f"(row / {inner}LL) * {inner * r}LL + row % {inner}LL" if inner > 1 else f"row * {r}LL"
    return Rows(outer * inner, r, base, [r], [inner])


def _rows(rows: Rows, body: str) -> str:
    """``body`` once per row (``row``; ``base`` the offset of its first element)."""
    return (f"  for (int64_t row = blockIdx.x; row < {rows.count}LL; row += gridDim.x) {{\n"
            f"    const int64_t base = {rows.base};\n{body}  }}")


def _emit_reduce(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    rows = gather_layout(x.shape, k.attrs["axis"] if k.attrs["axis"] else range(x.rank))
    acc, neutral, combine = _combine(k.op, x.dtype)
    xj = half.load(x.dtype, f"in0[{rows.at('j')}]")
    partial = (f"    {acc} p_ = ({acc}){neutral};\n"
               f"    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) {{ const {acc} a = p_, "
               f"b = ({acc}){xj}; p_ = ({acc}){combine}; }}\n")
    total = f"(total / ({acc})RLEN)" if REDUCTIONS[k.op].mean else "total"
    body = (partial + block_reduce(acc, combine, "p_", "total")
            + f"    if (threadIdx.x == 0) out0[row] = {half.store(out.dtype, total, acc)};\n")
    return f"#define RLEN {rows.length}LL\n" + _rows(rows, body) + "\n#undef RLEN"


def _emit_softmax(k: KernelSpec) -> str:
    x = k.inputs[0]
    dt = x.dtype
    rows = gather_layout(x.shape, (k.attrs["axis"] % max(x.rank, 1),))
    t = half.compute_ctype(dt)
    inf = "(1.0 / 0.0)" if dt == "float64" else "(1.0f / 0.0f)"
    loop = "    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) "
    xj = half.load(dt, f"in0[{rows.at('j')}]")
    yj = f"out0[{rows.at('j')}]"
    f16 = dt == "float16" and k.op == "Softmax"
    # float16 Softmax: x - max, its exponential and their sum each rounded to float16 (MindSpore's CPU kernel)
    e = half.round_trip(dt, f"exp({half.round_trip(dt, f'{xj} - mx')})") if f16 else f"exp({xj} - mx)"
    body = (f"    {t} m_ = -{inf};\n"
            f"{loop}{{ const {t} a = m_, b = {xj}; m_ = {NAN_MAX}; }}\n"
            + block_reduce(t, NAN_MAX, "m_", "mx")
            + f"    {t} s_ = 0;\n{loop}s_ += {e};\n"
            + block_reduce(t, "(a + b)", "s_", "sum"))
    if k.op == "Softmax":
        denom = half.round_trip(dt, "sum") if f16 else "sum"
        body += f"{loop}{yj} = {half.store(dt, f'{e} / {denom}', t)};\n"
    else:
        body += f"{loop}{yj} = {half.store(dt, f'{xj} - mx - log(sum)', t)};\n"
    return f"#define RLEN {rows.length}LL\n" + _rows(rows, body) + "\n#undef RLEN"


def _emit_arg(k: KernelSpec) -> str:
    """ArgMax/ArgMin along one axis: each thread keeps its best (value, index), then a tree in shared memory
    keeps the better pair; the first NaN wins, then the larger (smaller) value, then the smaller index: NumPy's
    first occurrence. A half x is compared in float (the conversion is exact and monotonic)."""
    x, out = k.inputs[0], k.outputs[0]
    rows = gather_layout(x.shape, (k.attrs["axis"] % max(x.rank, 1),))
    t = half.compute_ctype(x.dtype)
    better = ">" if k.op == "ArgMax" else "<"
    # pair b replaces pair a when it comes first among NaNs, or beats a's value, or ties it at a smaller index
    wins = (f"((bv != bv) ? (av == av || bi < ai) : (av == av && (bv {better} av || (bv == av && bi < ai))))")
    xj = half.load(x.dtype, f"in0[{rows.at('j')}]")
    body = (f"    {t} av = {half.load(x.dtype, 'in0[base]')}; int64_t ai = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) {{ "
            f"const {t} bv = {xj}; "
            f"const int64_t bi = j; if ({wins}) {{ av = bv; ai = bi; }} }}\n"
            f"    __shared__ {t} shv_[OB_BLOCK]; __shared__ int64_t shi_[OB_BLOCK];\n"
            f"    shv_[threadIdx.x] = av; shi_[threadIdx.x] = ai; __syncthreads();\n"
            f"    for (int w_ = OB_BLOCK / 2; w_ > 0; w_ >>= 1) {{\n"
            f"      if (threadIdx.x < w_) {{ const {t} av = shv_[threadIdx.x], bv = shv_[threadIdx.x + w_]; "
            f"const int64_t ai = shi_[threadIdx.x], bi = shi_[threadIdx.x + w_]; "
            f"if ({wins}) {{ shv_[threadIdx.x] = bv; shi_[threadIdx.x] = bi; }} }}\n"
            f"      __syncthreads();\n    }}\n"
            f"    if (threadIdx.x == 0) out0[row] = ({ctype(out.dtype)})shi_[0];\n    __syncthreads();\n")
    return f"#define RLEN {rows.length}LL\n" + _rows(rows, body) + "\n#undef RLEN"


for _op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
    register(_op, _emit_reduce)
register("Softmax", _emit_softmax)
register("LogSoftmax", _emit_softmax)
register("ArgMax", _emit_arg)
register("ArgMin", _emit_arg)
half.allow("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Softmax", "LogSoftmax", "ArgMax",
           "ArgMin")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Softmax", "LogSoftmax",
                        "ArgMax", "ArgMin")

__all__ = ["NAN_MAX", "NAN_MIN", "OPS", "Rows", "block_reduce", "gather_layout", "row_layout"]
