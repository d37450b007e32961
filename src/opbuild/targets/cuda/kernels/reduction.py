"""GPU kernels of the row reductions: ReduceSum/Mean/Max/Min/Prod and ArgMax/ArgMin (ops/reduction.py), and
Softmax/LogSoftmax (ops/normalization.py).

Layout. The input is viewed as ``(outer, R, inner)``: ``R`` the product of the reduced axes, which must be
adjacent once size-1 axes are set aside (any other set awaits a transpose: :class:`~..codegen.Unsupported`
says so). Each of the ``outer * inner`` rows is reduced by one block (a block-stride loop over rows, so any
grid computes the same): every thread combines a strided part of the row, then a tree in shared memory combines
the ``BLOCK`` partial results. Integer sums and products accumulate in the unsigned type of the same width and
wrap as NumPy's ``np.sum(x, dtype=x.dtype)``; max and min propagate NaN as ``np.max`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops.reduction import REDUCTIONS
from ..codegen import Unsupported, ctype
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
    acc = ctype(dt)
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


def _rows(outer: int, inner: int, body: str) -> str:
    """``body`` once per row (``row``; ``base`` its first element, ``step`` the stride between its elements)."""
    return (f"  for (int64_t row = blockIdx.x; row < {outer * inner}LL; row += gridDim.x) {{\n"
            f"    const int64_t base = (row / {inner}LL) * {inner}LL * RLEN + row % {inner}LL;\n"
            f"    const int64_t step = {inner}LL;\n{body}  }}")


def _emit_reduce(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    outer, r, inner = row_layout(k.op, x.shape, k.attrs["axis"] if k.attrs["axis"] else range(x.rank))
    acc, neutral, combine = _combine(k.op, x.dtype)
    partial = (f"    {acc} p_ = ({acc}){neutral};\n"
               f"    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) {{ const {acc} a = p_, "
               f"b = ({acc})in0[base + j * step]; p_ = ({acc}){combine}; }}\n")
    total = "(total / (" + ctype(out.dtype) + ")RLEN)" if REDUCTIONS[k.op].mean else "total"
    body = (partial + block_reduce(acc, combine, "p_", "total")
            + f"    if (threadIdx.x == 0) out0[row] = ({ctype(out.dtype)})({total});\n")
    return f"#define RLEN {r}LL\n" + _rows(outer, inner, body) + "\n#undef RLEN"


def _emit_softmax(k: KernelSpec) -> str:
    x = k.inputs[0]
    axis = k.attrs["axis"]
    outer, r, inner = row_layout(k.op, x.shape, (axis,))
    t = ctype(x.dtype)
    inf = "(1.0 / 0.0)" if x.dtype == "float64" else "(1.0f / 0.0f)"
    loop = "    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) "
    body = (f"    {t} m_ = -{inf};\n"
            f"{loop}{{ const {t} a = m_, b = in0[base + j * step]; m_ = {NAN_MAX}; }}\n"
            + block_reduce(t, NAN_MAX, "m_", "mx")
            + f"    {t} s_ = 0;\n{loop}s_ += exp(in0[base + j * step] - mx);\n"
            + block_reduce(t, "(a + b)", "s_", "sum"))
    if k.op == "Softmax":
        body += f"{loop}out0[base + j * step] = exp(in0[base + j * step] - mx) / sum;\n"
    else:
        body += f"{loop}out0[base + j * step] = in0[base + j * step] - mx - log(sum);\n"
    return f"#define RLEN {r}LL\n" + _rows(outer, inner, body) + "\n#undef RLEN"


def _emit_arg(k: KernelSpec) -> str:
    """ArgMax/ArgMin along one axis: each thread keeps its best (value, index), then a tree in shared memory
    keeps the better pair; the first NaN wins, then the larger (smaller) value, then the smaller index: NumPy's
    first occurrence."""
    x, out = k.inputs[0], k.outputs[0]
    outer, r, inner = row_layout(k.op, x.shape, (k.attrs["axis"],))
    t = ctype(x.dtype)
    better = ">" if k.op == "ArgMax" else "<"
    # pair b replaces pair a when it comes first among NaNs, or beats a's value, or ties it at a smaller index
    wins = (f"((bv != bv) ? (av == av || bi < ai) : (av == av && (bv {better} av || (bv == av && bi < ai))))")
    body = (f"    {t} av = in0[base]; int64_t ai = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < RLEN; j += OB_BLOCK) {{ const {t} bv = in0[base + j * step]; "
            f"const int64_t bi = j; if ({wins}) {{ av = bv; ai = bi; }} }}\n"
            f"    __shared__ {t} shv_[OB_BLOCK]; __shared__ int64_t shi_[OB_BLOCK];\n"
            f"    shv_[threadIdx.x] = av; shi_[threadIdx.x] = ai; __syncthreads();\n"
            f"    for (int w_ = OB_BLOCK / 2; w_ > 0; w_ >>= 1) {{\n"
            f"      if (threadIdx.x < w_) {{ const {t} av = shv_[threadIdx.x], bv = shv_[threadIdx.x + w_]; "
            f"const int64_t ai = shi_[threadIdx.x], bi = shi_[threadIdx.x + w_]; "
            f"if ({wins}) {{ shv_[threadIdx.x] = bv; shi_[threadIdx.x] = bi; }} }}\n"
            f"      __syncthreads();\n    }}\n"
            f"    if (threadIdx.x == 0) out0[row] = ({ctype(out.dtype)})shi_[0];\n    __syncthreads();\n")
    return f"#define RLEN {r}LL\n" + _rows(outer, inner, body) + "\n#undef RLEN"


for _op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
    register(_op, _emit_reduce)
register("Softmax", _emit_softmax)
register("LogSoftmax", _emit_softmax)
register("ArgMax", _emit_arg)
register("ArgMin", _emit_arg)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Softmax", "LogSoftmax",
                        "ArgMax", "ArgMin")

__all__ = ["NAN_MAX", "NAN_MIN", "OPS", "block_reduce", "row_layout"]
