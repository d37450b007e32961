"""C source generation and the kernel ABI.

Kernel ABI (version :data:`ABI_VERSION`): every kernel is an exported function

    void <symbol>(void *const *args);

where ``args`` holds the data pointers of the inputs, then of the outputs, each a dense C-contiguous
buffer of the type and shape of the kernel's descriptor, then (ABI 2) the kernel's workspace when its op
declares one (``OpDef.workspace``: scratch bytes, 64-byte aligned, planned in the graph's arena). One
uniform signature means ctypes argtypes are set once and the executor precomputes one pointer array per node,
so a call costs one FFI transition.

Op families emit only the body; this module wraps it with typed, ``restrict``-qualified views
``in0..inN`` and ``out0..outM``, and a shared prelude of helpers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from ...dtypes import BY_NAME
from ...ir import TensorType
from .blas_threads import BRIDGE
from .f16_blocks import PRELUDE_F16_BLOCKS, USES_F16_BLOCKS

ABI_VERSION = 2  # 2: a workspace pointer after the outputs (kernels whose op declares one)

# The prelude comes in sections, and a translation unit includes only those its kernels use
# (:func:`prelude_for`): parsing <math.h> + <tgmath.h> + <stdlib.h> is most of what one compiler call costs
# before any kernel (docs/benchmarks.md, "Cold builds"), and copies, BLAS glue and integer kernels need none
# of it. Which sections a batch gets depends only on the text of its kernels, itself fixed by their keys.
PRELUDE_CORE = r"""
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#define OB_EXPORT __attribute__((visibility("default")))
/* Per-kernel optimisation level (OpDef.opt_class -> the compiler identity's class_opt, both in the key):
   gcc's optimize attribute; other compilers build every function at the command line's level. */
#if defined(__GNUC__) && !defined(__clang__)
#define OB_OPT(level) __attribute__((optimize(level)))
#else
#define OB_OPT(level)
#endif
static inline int64_t ob_floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t ob_mod_i64(int64_t a, int64_t b) {
  int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
"""

PRELUDE_STDLIB = r"""
#include <stdlib.h>
"""

PRELUDE_MATH_HEADERS = r"""
#include <math.h>
#include <tgmath.h>
"""

PRELUDE_HALF = r"""
/* Half types. float16 is stored as gcc's _Float16 where the compiler has it (__FLT16_MAX__: gcc >= 12 on
   x86-64 and aarch64; conversions are then the hardware's or libgcc's, correctly rounded), else as its IEEE
   binary16 bits in a uint16_t with the software conversions below (round to nearest even, subnormals, inf and
   NaN handled; double -> half goes through float there, a double rounding that only differs at exact ties of
   the float). Which one a kernel uses is decided by the compiler's predefined macros, so it is fixed by the
   compiler identity that is part of every kernel's key. bfloat16 is always uint16_t bits: the high half of a
   float32 (round to nearest even, NaN kept quiet), as ml_dtypes and TensorFlow define it. Kernels load a half
   into float, compute in float and round once on store. */
#if defined(__FLT16_MAX__) && !defined(OB_SOFT_HALF)
typedef _Float16 ob_f16;
static inline float ob_f16_to_f32(ob_f16 h) { return (float)h; }
static inline ob_f16 ob_f16_from_f32(float f) { return (ob_f16)f; }
static inline ob_f16 ob_f16_from_f64(double d) { return (ob_f16)d; }
static inline ob_f16 ob_f16_from_bits(uint16_t b) { ob_f16 h; memcpy(&h, &b, sizeof h); return h; }
#else
typedef uint16_t ob_f16;
static inline float ob_f16_to_f32(ob_f16 h) {
  const uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) { const float f = (float)m * 0x1p-24f; return s ? -f : f; }  /* zero and subnormals: exact */
  const uint32_t b = s | (e == 0x1f ? 0x7f800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}
static inline ob_f16 ob_f16_from_f32(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  const uint16_t s = (uint16_t)((b >> 16) & 0x8000u);
  const uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(s | 0x7e00u | ((a >> 13) & 0x3ffu));  /* NaN, made quiet */
  if (a >= 0x477ff000u) return (uint16_t)(s | 0x7c00u);  /* >= 65520 (and inf) rounds to inf */
  if (a >= 0x38800000u) {  /* normal result (>= 2^-14): rebias the exponent, round to nearest even */
    const uint32_t r = a - 0x38000000u;
    return (uint16_t)(s | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  float af;
  memcpy(&af, &a, sizeof af);
  return (uint16_t)(s | (uint16_t)rintf(af * 0x1p24f));  /* subnormal: units of 2^-24, exact scaling */
}
static inline ob_f16 ob_f16_from_f64(double d) { return ob_f16_from_f32((float)d); }
static inline ob_f16 ob_f16_from_bits(uint16_t b) { return b; }
#endif
typedef uint16_t ob_bf16;
static inline float ob_bf16_to_f32(ob_bf16 h) {
  const uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}
static inline ob_bf16 ob_bf16_from_f32(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (ob_bf16)((b >> 16) | 0x40u);  /* NaN stays NaN (quiet) */
  return (ob_bf16)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
static inline ob_bf16 ob_bf16_from_f64(double d) { return ob_bf16_from_f32((float)d); }  /* as ml_dtypes */
"""

PRELUDE_MATH = r"""
/* expf that gcc vectorises (libm's expf is a scalar call without -ffast-math): exp(x) = 2^k * exp(r) with
   k = round(x / ln2) by the 1.5 * 2^23 trick and |r| <= ln2 / 2, Cephes' degree-6 polynomial; within 1 ulp
   of exp for normal results (checked densely over [-110, 95]). 2^k is applied as two factors so denormal
   results and overflow to inf come out right; NaN propagates. Denormal results are slow (CPU microcode), as
   with any float arithmetic. */
static inline float ob_expf(float x) {
  float xc = x > -104.0f ? x : -104.0f;
  xc = xc < 89.0f ? xc : 89.0f;
  const float k = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = (xc - k * 0.693359375f) - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const int32_t ki = (int32_t)k, k1 = ki >> 1;
  const int32_t b1 = (k1 + 127) << 23, b2 = (ki - k1 + 127) << 23;
  float f1, f2;
  memcpy(&f1, &b1, sizeof f1);
  memcpy(&f2, &b2, sizeof f2);
  const float y = p * f1 * f2;
  return x != x ? x : y;
}
/* tanh for float32 that gcc vectorises, and that costs less than libmvec's tanhf (one 16-lane call per 16
   floats, slower than NumPy's own SIMD tanh): for a = |x| and t = a^2, tanh(a) = (a + (a t) P(t)) / Q(t), P of
   degree 3, Q of degree 4: one division, no branch. The coefficients are a minimax fit of tanh(a)/a on
   [0, 9.0109] in relative error (2.2e-8; Loeb's iteration of linear programs in float64, made for opbuild).
   Rounded to float32 and evaluated with FMA, the result is within 5.7 ulp of the correctly rounded tanh over
   every float32 (5.63 at worst, mean 0.59 ulp on [0.01, 9]; libmvec and NumPy: 1.37 and 0.35), a relative error
   below 3.4e-7: the float32 roundings of P and Q, not the fit, dominate. The numerator a + (a t) P is exactly a
   for tiny a (where tanh(a) rounds to a); the quotient is clamped to 1 (rounding could exceed it) and replaced
   by exactly 1 above 9.010913, the largest float whose tanh rounds below 1, which also covers inf (where the
   quotient is inf / inf); NaN fails both comparisons and propagates; copysignf gives the sign back (-0.0 stays
   -0.0). */
static inline float ob_tanhf(float x) {
  const float a = fabsf(x), t = a * a;
  const float p = ((1.3400455e-08f * t + 2.0647401e-05f) * t + 0.0034981582f) * t + 0.13383277f;
  const float q = (((7.796839e-07f * t + 0.0003289665f) * t + 0.025887022f) * t + 0.46716598f) * t + 1.0f;
  float r = ((a * t) * p + a) / q;
  r = r > 1.0f ? 1.0f : r;
  r = a > 9.010913f ? 1.0f : r;
  return copysignf(r, x);
}
/* tanh for float64 that gcc vectorises, faster than NumPy's (libmvec's tanh is slower than NumPy's):
   tanh(a) = -m / (m + 2) with m = expm1(-2a), a = |x|. -2a = k ln2 - 2r with k = round(-2a / ln2) (the
   1.5 * 2^52 trick, which leaves k in the low bits of kf) and |r| <= ln2 / 4 (ln2 / 2 in two parts), so
   expm1(-2a) = 2^k (expm1(-2r) + 1) - 1, where expm1 on |-2r| <= ln2 / 2 is its Taylor polynomial of degree 13
   (truncation error below 1.4e-17 relative) and 2^k (k >= -56 below the threshold) is built from the bits of
   kf. Within 2.6 ulp of the correctly rounded tanh on dense samples of [0, 19.1] (NumPy: 1.2). Exactly a below
   2^-27 (where tanh(a) rounds to a), exactly 1 above 19.061547465398494 (the largest double whose tanh rounds
   below 1; also inf and huge a, where k and m are garbage); NaN propagates; copysign gives the sign back. */
static inline double ob_tanh(double x) {
  const double a = fabs(x);
  const double kf = a * -2.8853900817779268 + 0x1.8p52;
  const double k = kf - 0x1.8p52;
  const double r = (k * 0.34657359027997264 + a) + k * 1.1595234069231498e-17;
  const double y = -2.0 * r;
  double p = 1.6059043836821613e-10;
  p = p * y + 2.08767569878681e-09;
  p = p * y + 2.505210838544172e-08;
  p = p * y + 2.755731922398589e-07;
  p = p * y + 2.7557319223985893e-06;
  p = p * y + 2.48015873015873e-05;
  p = p * y + 0.0001984126984126984;
  p = p * y + 0.001388888888888889;
  p = p * y + 0.008333333333333333;
  p = p * y + 0.041666666666666664;
  p = p * y + 0.16666666666666666;
  p = p * y + 0.5;
  const double e = (y * y) * p + y;
  uint64_t b;
  memcpy(&b, &kf, sizeof b);
  b = (b << 52) + ((uint64_t)1023 << 52);
  double s;
  memcpy(&s, &b, sizeof s);
  const double m = s * e + (s - 1.0);
  double v = m / (m + 2.0);
  v = a < 0x1p-27 ? a : v;
  v = a > 19.061547465398494 ? 1.0 : v;
  return copysign(v, x);
}
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

# The gemm functions and their integer type differ between BLAS builds (NumPy's ILP64 OpenBLAS names them
# scipy_cblas_sgemm64_ with 64-bit sizes): the compile command defines the macros (targets/cpu/compilers/blas.py).
BLAS_DECLS = r"""
#if !defined(OB_BLAS_SGEMM) || !defined(OB_BLAS_DGEMM) || !defined(OB_BLAS_INT)
#error "OB_BLAS_SGEMM, OB_BLAS_DGEMM and OB_BLAS_INT must be defined by the compile command"
#endif
enum { ObRowMajor = 101, ObNoTrans = 111, ObTrans = 112 };
extern void OB_BLAS_SGEMM(int order, int ta, int tb, OB_BLAS_INT m, OB_BLAS_INT n, OB_BLAS_INT k, float alpha,
    const float *a, OB_BLAS_INT lda, const float *b, OB_BLAS_INT ldb, float beta, float *c, OB_BLAS_INT ldc);
extern void OB_BLAS_DGEMM(int order, int ta, int tb, OB_BLAS_INT m, OB_BLAS_INT n, OB_BLAS_INT k, double alpha,
    const double *a, OB_BLAS_INT lda, const double *b, OB_BLAS_INT ldb, double beta, double *c, OB_BLAS_INT ldc);
"""


def gemm_symbols(dtype: str) -> tuple[str, str, str]:
    """(cblas gemm function of :data:`BLAS_DECLS`, C literal 1, C literal 0) for float32 or float64."""
    if dtype == "float32":
        return "OB_BLAS_SGEMM", "1.0f", "0.0f"
    return "OB_BLAS_DGEMM", "1.0", "0.0"


def ctype(dtype: str) -> str:
    """The C storage type of a buffer element of a dtype name (``ob_f16``/``ob_bf16`` for the half types)."""
    return BY_NAME[dtype].c_type


def compute_ctype(dtype: str) -> str:
    """The C type a kernel computes a dtype in: ``float`` for float16/bfloat16, the storage type otherwise."""
    return BY_NAME[dtype].compute_c


def is_half(dtype: str) -> bool:
    """float16 or bfloat16: stored in 16 bits, computed in float32."""
    return BY_NAME[dtype].is_half


_HALF_PREFIX = {"float16": "ob_f16", "bfloat16": "ob_bf16"}


def load(dtype: str, ref: str) -> str:
    """C expression: the stored element ``ref`` of ``dtype`` as a value of :func:`compute_ctype`."""
    return f"{_HALF_PREFIX[dtype]}_to_f32({ref})" if is_half(dtype) else ref


def store(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C expression: ``expr`` (of C type ``src_ctype``, only read for the half types) converted to the storage
    type of ``dtype``. Half types round once here (from double directly where the compiler can)."""
    if is_half(dtype):
        suffix = "f64" if src_ctype == "double" else "f32"
        cast = "" if src_ctype in ("float", "double") else f"({'double' if suffix == 'f64' else 'float'})"
        return f"{_HALF_PREFIX[dtype]}_from_{suffix}({cast}({expr}))"
    return f"({ctype(dtype)})({expr})"


def round_trip(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C expression: ``expr`` rounded to ``dtype`` and back to its compute type (what a fused kernel keeps
    of an intermediate, so fused and unfused ops give the same bits)."""
    if dtype == "float16" and src_ctype == "float":  # the same bits in float arithmetic gcc vectorises
        return f"ob_f16_round({expr})"
    return load(dtype, store(dtype, expr, src_ctype)) if is_half(dtype) else f"({ctype(dtype)})({expr})"


# Optimisation level per kernel class (ops/registry.py OpDef.opt_class), applied per function (OB_OPT); None
# keeps the command line's -O3. The mapping is part of the compiler identity, the class part of the
# descriptor: both are in every key. glue (loops around one GEMM call) and copy (data movement) gain nothing
# measurable from -O3's unrolling and loop versioning, which cost most of their compile time; -O2 keeps
# gcc 12's cheap vectorisation of plain copies, -O1 the glue's straight loops.
CLASS_OPT: dict[str, str | None] = {"compute": None, "copy": "O2", "glue": "O1"}


def kernel_function(symbol: str, inputs: Sequence[TensorType], outputs: Sequence[TensorType], body: str,
                    opt: str | None = None, workspace: bool = False) -> str:
    """Wrap an op body into an exported ABI function with typed views of its arguments. ``opt`` (``"O2"``,
    ...) builds this function at that optimisation level (``OB_OPT``) instead of the command line's.
    ``workspace``: the op declares scratch memory (``OpDef.workspace``); its address, the argument after the
    outputs, reaches the body as ``char *ob_ws``.

    The body is a static function ``<symbol>_body`` whose typed buffers ``in0..``, ``out0..`` are
    ``restrict`` *parameters*, called (and inlined) by the exported ``<symbol>(args)``. gcc honours restrict
    on parameters, also once inlined, but not on local pointers loaded from ``args``: with locals, every
    vectorised loop carried a runtime alias check and a scalar copy of itself (more code, ~10% more compile
    time, docs/benchmarks.md "Cold builds"). Buffers never overlap, except an in-place elementwise map (or an
    optimizer update) writing ``out[i]`` over the ``in[i]`` it has just read, which restrict code handles."""
    attr = f'OB_OPT("{opt}") ' if opt else ""
    params, casts = [], []
    for i, t in enumerate(inputs):
        c = ctype(t.dtype)
        params.append(f"const {c} *restrict in{i}")
        casts.append(f"(const {c} *)args[{i}]")
    for j, t in enumerate(outputs):
        c = ctype(t.dtype)
        params.append(f"{c} *restrict out{j}")
        casts.append(f"({c} *)args[{len(inputs) + j}]")
    if workspace:
        params.append("char *restrict ob_ws")
        casts.append(f"(char *)args[{len(inputs) + len(outputs)}]")
    lines = [f"static inline {attr}void {symbol}_body({', '.join(params) or 'void'}) {{",
             "  " + body.strip().replace("\n", "\n  "),
             "}",
             f"OB_EXPORT {attr}void {symbol}(void *const *args) {{",
             f"  {'(void)args; ' if not casts else ''}{symbol}_body({', '.join(casts)});",
             "}"]
    return "\n".join(lines) + "\n"


# Identifiers a kernel may call without <math.h>: C keywords that precede a parenthesis, the core section's
# helpers, string.h, stdlib.h (its own section) and the BLAS macros. Any other call, or a math macro, pulls in
# the math sections; a call the trimmed prelude does not declare is a compile error
# (-Werror=implicit-function-declaration in compilers/gcc.py), never a silent int-returning call.
_NON_MATH_CALLS = frozenset({
    "if", "for", "while", "switch", "return", "sizeof", "_Alignof", "__builtin_expect", "__builtin_memcpy",
    "__builtin_memset", "__builtin_assume_aligned", "__builtin_prefetch", "OB_OPT", "ob_floordiv_i64",
    "ob_mod_i64", "memcpy", "memset", "memmove", "memcmp", "OB_BLAS_SGEMM", "OB_BLAS_DGEMM", "OB_BLAS_INT",
    "malloc", "free", "calloc", "aligned_alloc", "posix_memalign", "abs", "labs", "llabs", "_Pragma",
})
_STDLIB_CALLS = frozenset({"malloc", "free", "calloc", "aligned_alloc", "posix_memalign", "abs", "labs", "llabs"})
_CALL = re.compile(r"(?<!void )\b([A-Za-z_]\w*)\s*\(")  # not the kernel's own "void ob_<hash>("
_BODY = re.compile(r"ob_\w+_body")  # the exported function's call of its body (kernel_function)
_MATH_MACROS = re.compile(r"\b(INFINITY|NAN|HUGE_VALF?|M_[A-Z0-9_]+|FP_[A-Z]+|MATH_ERR\w*)\b")
_HALF = re.compile(r"\bob_b?f16")


def prelude_for(functions: Sequence[str]) -> str:
    """The prelude sections ``functions`` use: always the core (stdint, stdbool, string, the export and
    optimisation macros, integer floor division); stdlib.h when they call its allocation or abs functions;
    the half-type conversions when they name ``ob_f16``/``ob_bf16``; the math headers (<math.h>, <tgmath.h>),
    opbuild's vectorisable exp/tanh and the libmvec declarations when they call anything else or name a math
    macro (half conversions use rintf, so they bring the math sections too)."""
    text = "\n".join(functions)
    calls = {m.group(1) for m in _CALL.finditer(text) if not _BODY.fullmatch(m.group(1))}
    # Casts such as "(float)(x)" match as "float(": type names are not calls.
    calls -= {"float", "double", "int", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
              "uint32_t", "uint64_t", "bool", "char", "long", "unsigned", "size_t", "ob_f16", "ob_bf16",
              "OB_EXPORT"}
    half = bool(_HALF.search(text))
    math = half or bool(_MATH_MACROS.search(text)) or any(c not in _NON_MATH_CALLS for c in calls)
    parts = [PRELUDE_CORE]
    if math or calls & _STDLIB_CALLS:
        parts.append(PRELUDE_STDLIB)
    if math:
        parts.append(PRELUDE_MATH_HEADERS)
    if half:
        parts.append(PRELUDE_HALF)
    if USES_F16_BLOCKS.search(text):  # float16 block conversions (f16_blocks.py)
        parts.append(PRELUDE_F16_BLOCKS)
    if math:
        parts.append(PRELUDE_MATH)
    return "".join(parts)


# Every section: what a translation unit included before sections existed (tests, benchmarks).
PRELUDE = PRELUDE_CORE + PRELUDE_STDLIB + PRELUDE_MATH_HEADERS + PRELUDE_HALF + PRELUDE_F16_BLOCKS + PRELUDE_MATH


def translation_unit(functions: Sequence[str], needs_blas: bool) -> str:
    """A complete C file holding one or more kernel functions, with the prelude sections they use (BLAS
    users also carry the bridge that runs OpenBLAS's threads on OpenMP's pool: targets/cpu/blas_threads.py)."""
    return prelude_for(functions) + (BLAS_DECLS + BRIDGE if needs_blas else "") + "\n" + "\n".join(functions)


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
    """A C literal of ``value`` in ``dtype``'s storage type (handles inf/nan for floats; the half types as
    their exact bits)."""
    if is_half(dtype):  # the exact stored bits, rounded by NumPy / ml_dtypes as the reference rounds
        bits = int(np.array(value, dtype=BY_NAME[dtype].np_dtype).view(np.uint16))
        return f"ob_f16_from_bits({bits:#06x})" if dtype == "float16" else f"((ob_bf16){bits:#06x})"
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
    if BY_NAME[dtype].is_unsigned:
        return f"{int(value)}ULL" if dtype == "uint64" else f"{int(value)}U"
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


# Elementwise loops over at least this many elements run on OpenMP's threads when the compiler supports it
# (compilers/gcc.py: OPENMP_FLAGS; without -fopenmp the pragma is ignored). One core streams a large map
# at its memory bandwidth (NumPy's speed); waking a second thread costs about as much as mapping 100k
# elements, so below that a split gains nothing (docs/benchmarks.md).
PARALLEL_MIN_ELEMENTS = 1 << 17


def parallel_for(n: int) -> str:
    """The pragma (with its newline) that splits the next ``for`` loop, covering ``n`` elements in all, over
    OpenMP's threads in equal static chunks; empty for small loops."""
    return "#pragma omp parallel for schedule(static)\n" if n >= PARALLEL_MIN_ELEMENTS else ""


def broadcast_loop(out_shape: Sequence[int], in_shapes: Sequence[Sequence[int]], stmt: str,
                   parallel: bool = False) -> str:
    """A loop nest over ``out_shape`` where ``stmt`` may use ``o`` (output offset) and ``p0, p1, ...``
    (offsets of each input under NumPy broadcasting). Contiguous inputs collapse into one flat loop.
    ``parallel``: split the outermost loop over threads when the nest is large (:func:`parallel_for`)."""
    operands = [strides(out_shape)] + [broadcast_strides(s, out_shape) for s in in_shapes]
    shape, op_strides = _collapse(out_shape, operands)
    n_in = len(in_shapes)
    if not shape:  # a single element
        decls = " ".join(f"const int64_t p{k} = 0;" for k in range(n_in))
        return f"{{ const int64_t o = 0; {decls} (void)o; {stmt} }}"
    lines = []
    depth = len(shape)
    total = 1
    for extent in shape:
        total *= extent
    if parallel and shape[0] > 1:
        lines.append(parallel_for(total).rstrip("\n"))
    for d in range(depth):
        lines.append(f"for (int64_t i{d} = 0; i{d} < {shape[d]}; i{d}++) {{")
    names = ["o"] + [f"p{k}" for k in range(n_in)]
    for name, st in zip(names, op_strides):
        terms = [f"i{d}" if st[d] == 1 else f"i{d} * {st[d]}" for d in range(depth) if st[d] != 0]
        lines.append(f"const int64_t {name} = {' + '.join(terms) if terms else '0'};")
    lines.append(stmt)
    lines.append("}" * depth)
    return "\n".join(lines)




def nan_max(a: str, b: str) -> str:
    """C expression: the larger of ``a`` and ``b``, NaN if either is NaN (np.maximum; once an accumulator
    ``a`` is NaN it stays NaN). Vectorises to compare-and-blend."""
    return f"(({b} > {a} || {b} != {b}) ? {b} : {a})"


def nan_min(a: str, b: str) -> str:
    """C expression: the smaller of ``a`` and ``b``, NaN if either is NaN (np.minimum)."""
    return f"(({b} < {a} || {b} != {b}) ? {b} : {a})"

def simd_lanes(dtype: str) -> int:
    """How many independent partial results a reduction keeps: two 512-bit registers' worth, so the
    vectoriser can use several vector accumulators and hide the latency of each add."""
    return max(1, 128 // BY_NAME[dtype].np_dtype.itemsize)


def lane_reduce(acc: str, acc_type: str, n: int, elem: Callable[[str], str], combine: Callable[[str, str], str],
                identity: str, lanes: int) -> str:
    """C statements declaring ``acc_type acc`` = the reduction of ``elem(j)`` for ``j`` in ``[0, n)``.

    ``elem(j)`` maps a C index expression to the element's C expression (evaluated once per element);
    ``combine(a, b)`` maps two C variable names to their combination and ``identity`` is its neutral
    element. The main loop keeps ``lanes`` (a power of two) independent partial results in a small array
    that gcc maps onto SIMD registers: floating-point reductions vectorise without -ffast-math because
    nothing is reassociated. The lanes are then combined pairwise and the ``n % lanes`` tail folded in last,
    so a sum adds only about n/lanes terms in sequence (more accurate than one running sum). Helper
    variables are prefixed with ``acc``.
    """
    j, e = f"{acc}_j", f"{acc}_e"
    if n < 2 * lanes:  # too short for lanes to pay off: one sequential loop (n is a static constant)
        return (f"{acc_type} {acc} = {identity};\n"
                f"for (int64_t {j} = 0; {j} < {n}; {j}++) "
                f"{{ const {acc_type} {e} = {elem(j)}; {acc} = {combine(acc, e)}; }}")
    main = n - n % lanes
    v, j0, ln, w, b = f"{acc}_v", f"{acc}_j0", f"{acc}_l", f"{acc}_w", f"{acc}_b"
    return "\n".join([
        f"{acc_type} {acc};",
        "{",
        f"  {acc_type} {v}[{lanes}];",
        f"  for (int {ln} = 0; {ln} < {lanes}; {ln}++) {v}[{ln}] = {identity};",
        f"  for (int64_t {j0} = 0; {j0} < {main}; {j0} += {lanes})",
        f"    for (int {ln} = 0; {ln} < {lanes}; {ln}++) {{ const int64_t {j} = {j0} + {ln}; "
        f"const {acc_type} {e} = {elem(j)}; const {acc_type} {b} = {v}[{ln}]; {v}[{ln}] = {combine(b, e)}; }}",
        f"  for (int {w} = {lanes // 2}; {w} > 0; {w} >>= 1)",
        f"    for (int {ln} = 0; {ln} < {w}; {ln}++) {{ const {acc_type} {b} = {v}[{ln}], {e} = {v}[{ln} + {w}]; "
        f"{v}[{ln}] = {combine(b, e)}; }}",
        f"  {acc} = {v}[0];",
        f"  for (int64_t {j} = {main}; {j} < {n}; {j}++) {{ const {acc_type} {e} = {elem(j)}; "
        f"{acc} = {combine(acc, e)}; }}",
        "}",
    ])
def _offset(base, idx: Sequence[str], st: Sequence[int]) -> str:
    terms = [str(base)] if base not in (0, "0", "") else []
    terms += [v if s == 1 else f"{v} * {s}" for v, s in zip(idx, st, strict=True) if s != 0]
    return " + ".join(terms) if terms else "0"


def strided_copy(counts: Sequence[int], dst: str, dst_strides: Sequence[int], src: str,
                 src_strides: Sequence[int], dst_base: int | str = 0, src_base: int | str = 0,
                 var: str = "c", tile: int = 32) -> str:
    """C statements copying a strided box: for every index vector ``i`` below ``counts``,
    ``dst[dst_base + sum(i * dst_strides)] = src[src_base + sum(i * src_strides)]``.

    Strides are in elements and may be zero or negative; bases are ints or C expressions. The generated code
    is what makes data-movement kernels fast rather than per-element index math:
      * dims that both sides walk contiguously merge into one (``_collapse``), size-1 dims vanish;
      * an innermost run contiguous on both sides is one ``memcpy`` of a constant length (gcc inlines short
        ones), so Concat/Split/Slice/Tile/Pad move whole rows;
      * an innermost source stride of 0 (broadcast) loads the value once and stores it along the run;
      * a transpose (destination contiguous innermost, source contiguous along another dim) is blocked into
        ``tile`` x ``tile`` tiles so both sides stay in cache.
    Loop indices are ``{var}0, {var}1, ...`` (pick ``var`` to nest inside other loops).
    """
    if any(int(c) == 0 for c in counts):
        return "/* empty copy */"
    shape, (ds, ss) = _collapse(counts, [dst_strides, src_strides])
    run = 1
    if shape and ds[-1] == 1 and ss[-1] == 1:
        run = shape.pop()
        ds.pop()
        ss.pop()
    depth = len(shape)
    idx = [f"{var}{d}" for d in range(depth)]
    # Transpose: blocked loops over the destination's innermost dim and the source's unit-stride dim.
    k = None
    if run == 1 and depth >= 2 and ds[-1] == 1:
        k = next((d for d in range(depth - 1) if ss[d] == 1), None)
    if k is not None and shape[k] >= tile and shape[-1] >= tile:
        last = depth - 1
        outer = [d for d in range(depth) if d not in (k, last)]
        lines = [f"for (int64_t {idx[d]} = 0; {idx[d]} < {shape[d]}; {idx[d]}++) {{" for d in outer]
        for d in (k, last):
            lines.append(f"for (int64_t {idx[d]}b = 0; {idx[d]}b < {shape[d]}; {idx[d]}b += {tile}) {{")
        for d in (k, last):
            b = f"{idx[d]}b"
            lines.append(f"const int64_t {idx[d]}e = {b} + {tile} < {shape[d]} ? {b} + {tile} : {shape[d]};")
        for d in (k, last):
            lines.append(f"for (int64_t {idx[d]} = {idx[d]}b; {idx[d]} < {idx[d]}e; {idx[d]}++) {{")
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {src}[{_offset(src_base, idx, ss)}];")
        lines.append("}" * (len(outer) + 4))
        return "\n".join(lines)
    lines = [f"for (int64_t {idx[d]} = 0; {idx[d]} < {shape[d]}; {idx[d]}++) {{" for d in range(depth)]
    if run > 1:
        lines.append(f"memcpy({dst} + {_offset(dst_base, idx, ds)}, {src} + {_offset(src_base, idx, ss)}, "
                     f"{run} * sizeof(*{dst}));")
    elif depth and ss[-1] == 0:
        # Broadcast along the innermost dim: one load per run, then a store loop gcc vectorises.
        outer_idx, inner = idx[:-1], idx[-1]
        lines.pop()
        lines.append(f"const __typeof__({src}[0]) {var}v = {src}[{_offset(src_base, outer_idx, ss[:-1])}];")
        lines.append(f"for (int64_t {inner} = 0; {inner} < {shape[-1]}; {inner}++) {{")
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {var}v;")
    else:
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {src}[{_offset(src_base, idx, ss)}];")
    lines.append("}" * depth)
    return "\n".join(lines)
