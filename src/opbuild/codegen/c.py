"""C source generation and the kernel ABI.

Kernel ABI (version :data:`ABI_VERSION`): every kernel is an exported function

    void <symbol>(void *const *args);

where ``args`` holds the data pointers of the inputs, then of the outputs, each a dense C-contiguous
buffer of the type and shape of the kernel's descriptor. One uniform signature means ctypes argtypes are
set once and the executor precomputes one pointer array per node, so a call costs one FFI transition.

Op families emit only the body; this module wraps it with typed, ``restrict``-qualified views
``in0..inN`` and ``out0..outM``, and a shared prelude of helpers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dtypes import BY_NAME
from ..ir import TensorType

ABI_VERSION = 1

PRELUDE = r"""
#include <math.h>
#include <tgmath.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#define OB_EXPORT __attribute__((visibility("default")))
static inline int64_t ob_floordiv_i64(int64_t a, int64_t b) { int64_t q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t ob_mod_i64(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
""" + r"""
/* Vector math: declare the libm functions that glibc's libmvec implements for SIMD (x86-64 vector ABI), so
   gcc vectorises loops calling exp/tanh/erf/... instead of calling the scalar function per element.
   glibc's <math.h> makes these declarations only under -ffast-math, which we must not use (it breaks NaN/inf
   semantics); the libmvec functions themselves handle NaN/inf/overflow exactly like the scalar ones, within
   4 ulp. The names are parenthesised so <tgmath.h>'s macros do not expand them. -lm links libmvec. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__FAST_MATH__) \
    && defined(__GLIBC_PREREQ)
#define OB_SIMD __attribute__((__simd__("notinbranch")))
#define OB_SIMD_FN(name) OB_SIMD float (name##f)(float); OB_SIMD double (name)(double);
#if __GLIBC_PREREQ(2, 22)
OB_SIMD_FN(exp) OB_SIMD_FN(log) OB_SIMD_FN(sin) OB_SIMD_FN(cos)
OB_SIMD float (powf)(float, float); OB_SIMD double (pow)(double, double);
#endif
#if __GLIBC_PREREQ(2, 35)
OB_SIMD_FN(tanh) OB_SIMD_FN(erf) OB_SIMD_FN(erfc) OB_SIMD_FN(log1p) OB_SIMD_FN(expm1) OB_SIMD_FN(exp2)
OB_SIMD_FN(log2) OB_SIMD_FN(log10) OB_SIMD_FN(sinh) OB_SIMD_FN(cosh) OB_SIMD_FN(tan) OB_SIMD_FN(atan)
OB_SIMD_FN(asin) OB_SIMD_FN(acos) OB_SIMD_FN(atanh) OB_SIMD_FN(asinh) OB_SIMD_FN(acosh) OB_SIMD_FN(cbrt)
#endif
#undef OB_SIMD_FN
#undef OB_SIMD
#endif
"""

BLAS_DECLS = r"""
enum { ObRowMajor = 101, ObNoTrans = 111, ObTrans = 112 };
extern void scipy_cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
    const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
extern void scipy_cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha,
    const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);
"""


def gemm_symbols(dtype: str) -> tuple[str, str, str]:
    """(cblas gemm function of :data:`BLAS_DECLS`, C literal 1, C literal 0) for float32 or float64."""
    if dtype == "float32":
        return "scipy_cblas_sgemm", "1.0f", "0.0f"
    return "scipy_cblas_dgemm", "1.0", "0.0"


def ctype(dtype: str) -> str:
    """The C element type of a dtype name."""
    return BY_NAME[dtype].c_type


def kernel_function(symbol: str, inputs: Sequence[TensorType], outputs: Sequence[TensorType], body: str) -> str:
    """Wrap an op body into an exported ABI function with typed views of its arguments."""
    lines = [f"OB_EXPORT void {symbol}(void *const *args) {{"]
    for i, t in enumerate(inputs):
        c = ctype(t.dtype)
        lines.append(f"  const {c} *restrict in{i} = (const {c} *)args[{i}];")
    for j, t in enumerate(outputs):
        c = ctype(t.dtype)
        lines.append(f"  {c} *restrict out{j} = ({c} *)args[{len(inputs) + j}];")
    lines.append("  " + body.strip().replace("\n", "\n  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


def translation_unit(functions: Sequence[str], needs_blas: bool) -> str:
    """A complete C file holding one or more kernel functions."""
    return PRELUDE + (BLAS_DECLS if needs_blas else "") + "\n" + "\n".join(functions)


def strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a C-contiguous array."""
    out = [0] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        out[i] = acc
        acc *= shape[i]
    return out


def broadcast_strides(in_shape: Sequence[int], out_shape: Sequence[int]) -> list[int]:
    """Strides of an input viewed with the output's shape under NumPy broadcasting (0 on broadcast dims)."""
    pad = len(out_shape) - len(in_shape)
    full = [1] * pad + list(in_shape)
    st = strides(full)
    return [0 if full[d] == 1 and out_shape[d] != 1 else st[d] for d in range(len(out_shape))]


def c_literal(value, dtype: str) -> str:
    """A C literal of ``value`` in ``dtype`` (handles inf/nan for floats)."""
    if dtype in ("float32", "float64"):
        v = float(value)
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        s = repr(v)
        return s + ("f" if dtype == "float32" else "")
    if dtype == "bool":
        return "1" if value else "0"
    suffix = "LL" if dtype == "int64" else ""
    return f"{int(value)}{suffix}"


def _collapse(shape: Sequence[int], operand_strides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """Merge adjacent dims that every operand walks contiguously (fewer, longer loops); drop size-1 dims."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in operand_strides]
    for d in dims:
        if out_shape and all(st[-1] == s[d] * shape[d] for st, s in zip(out_strides, operand_strides)):
            out_shape[-1] *= shape[d]
            for st, s in zip(out_strides, operand_strides):
                st[-1] = s[d]
            continue
        out_shape.append(shape[d])
        for st, s in zip(out_strides, operand_strides):
            st.append(s[d])
    return out_shape, out_strides


def broadcast_loop(out_shape: Sequence[int], in_shapes: Sequence[Sequence[int]], stmt: str) -> str:
    """A loop nest over ``out_shape`` where ``stmt`` may use ``o`` (output offset) and ``p0, p1, ...``
    (offsets of each input under NumPy broadcasting). Contiguous inputs collapse into one flat loop."""
    operands = [strides(out_shape)] + [broadcast_strides(s, out_shape) for s in in_shapes]
    shape, op_strides = _collapse(out_shape, operands)
    n_in = len(in_shapes)
    if not shape:  # a single element
        decls = " ".join(f"const int64_t p{k} = 0;" for k in range(n_in))
        return f"{{ const int64_t o = 0; {decls} (void)o; {stmt} }}"
    lines = []
    depth = len(shape)
    for d in range(depth):
        lines.append(f"for (int64_t i{d} = 0; i{d} < {shape[d]}; i{d}++) {{")
    names = ["o"] + [f"p{k}" for k in range(n_in)]
    for name, st in zip(names, op_strides):
        terms = [f"i{d}" if st[d] == 1 else f"i{d} * {st[d]}" for d in range(depth) if st[d] != 0]
        lines.append(f"const int64_t {name} = {' + '.join(terms) if terms else '0'};")
    lines.append(stmt)
    lines.append("}" * depth)
    return "\n".join(lines)
