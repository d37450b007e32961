"""The C prelude of every translation unit, in sections, and the choice of the sections a batch needs.

C text lives here (the helpers every kernel may call: export and optimisation macros, integer floor division,
half-type conversions, vectorisable exp/tanh, the BLAS declarations). Like codegen.py, this file is hashed
into every kernel's key (sources.py): its text shapes the generated C, which no code walk can attribute.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .blas_threads import BRIDGE
from .f16_blocks import PRELUDE_F16_BLOCKS, USES_F16_BLOCKS
from .fft_prelude import PRELUDE_FFT, USES_FFT

# The prelude comes in sections, and a translation unit includes only those its kernels use
# (:func:`prelude_for`): parsing <math.h> + <tgmath.h> + <stdlib.h> is most of what one compiler call costs
# before any kernel (docs/benchmarks.md, "Cold builds"), and copies, BLAS glue and integer kernels need none
# of it. Which sections a batch gets depends only on the text of its kernels, itself fixed by their keys.
PRELUDE_CORE = r"""
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#define OB_EXPORT __attribute__((visibility("default")))
/* Per-kernel optimisation level (kernels.opt_class -> the compiler identity's class_opt, both in the key):
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
/* A kernel whose op declares a status (OpDef.status) reports the first bad element it meets (an index out of
   range: its value and its position) in the status words (flag, value, position) after its other arguments;
   the executor raises the op's error after the call. The flag is claimed once, so OpenMP threads meeting bad
   elements at once leave one consistent report (the reader runs after the threads have joined). */
static inline void ob_fail(int64_t *s, int64_t value, int64_t position) {
  int64_t free_ = 0;
  if (__atomic_compare_exchange_n(&s[0], &free_, 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    s[1] = value; s[2] = position;
  }
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

# The gemm/gemv functions and their integer type differ between BLAS builds (NumPy's ILP64 OpenBLAS names them
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
#ifdef OB_BLAS_SGEMV
extern void OB_BLAS_SGEMV(int order, int ta, OB_BLAS_INT m, OB_BLAS_INT n, float alpha, const float *a,
    OB_BLAS_INT lda, const float *x, OB_BLAS_INT incx, float beta, float *y, OB_BLAS_INT incy);
extern void OB_BLAS_DGEMV(int order, int ta, OB_BLAS_INT m, OB_BLAS_INT n, double alpha, const double *a,
    OB_BLAS_INT lda, const double *x, OB_BLAS_INT incx, double beta, double *y, OB_BLAS_INT incy);
#endif
/* A BLAS call too small to gain from the BLAS's threads runs on the calling thread alone (codegen.py
   BLAS_PARALLEL_MIN_MACS, docs/threads.md): waking the BLAS's workers on a busy machine can stall for
   a scheduler period. The count is restored only by the call that lowered it, so concurrent kernels
   leave it as they found it. Weak: a BLAS without the setters keeps its own policy. */
#if defined(OB_BLAS_SET_THREADS) && defined(OB_BLAS_GET_THREADS)
extern void OB_BLAS_SET_THREADS(int) __attribute__((weak));
extern int OB_BLAS_GET_THREADS(void) __attribute__((weak));
static inline int ob_blas_serial_begin(void) {
  if (!OB_BLAS_SET_THREADS || !OB_BLAS_GET_THREADS) return 0;
  const int n = OB_BLAS_GET_THREADS();
  if (n > 1) OB_BLAS_SET_THREADS(1);
  return n;
}
static inline void ob_blas_serial_end(int n) { if (n > 1) OB_BLAS_SET_THREADS(n); }
#else
static inline int ob_blas_serial_begin(void) { return 0; }
static inline void ob_blas_serial_end(int n) { (void)n; }
#endif
"""


# Identifiers a kernel may call without <math.h>: C keywords that precede a parenthesis, the core section's
# helpers, string.h, stdlib.h (its own section) and the BLAS macros. Any other call, or a math macro, pulls in
# the math sections; a call the trimmed prelude does not declare is a compile error
# (-Werror=implicit-function-declaration in compilers/gcc.py), never a silent int-returning call.
_NON_MATH_CALLS = frozenset({
    "if", "for", "while", "switch", "return", "sizeof", "_Alignof", "__builtin_expect", "__builtin_memcpy",
    "__builtin_memset", "__builtin_assume_aligned", "__builtin_prefetch", "OB_OPT", "ob_floordiv_i64",
    "ob_mod_i64", "ob_fail", "memcpy", "memset", "memmove", "memcmp", "OB_BLAS_SGEMM", "OB_BLAS_DGEMM", "OB_BLAS_SGEMV",
    "OB_BLAS_DGEMV", "OB_BLAS_INT", "ob_blas_serial_begin", "ob_blas_serial_end",
    "malloc", "free", "calloc", "aligned_alloc", "posix_memalign", "abs", "labs", "llabs", "_Pragma",
})
_STDLIB_CALLS = frozenset({"malloc", "free", "calloc", "aligned_alloc", "posix_memalign", "abs", "labs", "llabs"})
_CALL = re.compile(r"(?<!void )\b([A-Za-z_]\w*)\s*\(")  # not the kernel's own "void ob_<hash>("
_BODY = re.compile(r"ob_\w+_body")  # the exported function's call of its body (kernel_function)
_MATH_MACROS = re.compile(r"\b(INFINITY|NAN|HUGE_VALF?|M_[A-Z0-9_]+|FP_[A-Z]+|MATH_ERR\w*)\b")
_HALF = re.compile(r"\bob_b?f16")


def prelude_for(functions: Sequence[str]) -> str:
    """The prelude sections ``functions`` use: always the core (stdint, stdbool, string, the export and
    optimisation macros, integer floor division, ``ob_fail``); stdlib.h when they call its allocation or abs functions;
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
    if USES_FFT.search(text):  # pocketfft and its driver (fft_prelude.py)
        parts.append(PRELUDE_FFT)
    return "".join(parts)


# Every section: what a translation unit included before sections existed (tests, benchmarks).
PRELUDE = PRELUDE_CORE + PRELUDE_STDLIB + PRELUDE_MATH_HEADERS + PRELUDE_HALF + PRELUDE_F16_BLOCKS + PRELUDE_MATH


def translation_unit(functions: Sequence[str], needs_blas: bool) -> str:
    """A complete C file holding one or more kernel functions, with the prelude sections they use (BLAS
    users also carry the bridge that runs OpenBLAS's threads on OpenMP's pool: targets/cpu/blas_threads.py)."""
    return prelude_for(functions) + (BLAS_DECLS + BRIDGE if needs_blas else "") + "\n" + "\n".join(functions)
