"""The C prelude section of float16 block conversions (a self-contained helper block of codegen's prelude).

Why it exists: gcc 12 cannot vectorise any loop that holds a ``_Float16`` value on x86-64
without AVX512-FP16 (``-fopt-info-vec-missed``: "not vectorized: unsupported data-type float" at
``(ob_f16)f``), so a float16 kernel that converts on every load and store ran element by element, with one
scalar F16C conversion per element and scalar libm calls (GeLU: 26x float32's time). Kernels built with
:mod:`.blocked` convert a block of float16 elements into a float32 stack buffer instead, evaluate the
float32 expression in a loop that vectorises exactly as the float32 kernel's does, and convert the float32
results back a block at a time.

The conversions here are F16C's 8-wide ``vcvtph2ps``/``vcvtps2ph`` through gcc's and clang's builtins (the
ones ``_mm256_cvtph_ps``/``_mm256_cvtps_ph`` expand to): ``<immintrin.h>`` would cost ~0.7 s of parsing per
compiler call. Immediate 0 is round to nearest even, and both instructions are the ones the scalar
``_Float16`` conversions compile to, so the bits are those of ``ob_f16_to_f32``/``ob_f16_from_f32`` (NaN
quieted by the hardware in both). Without F16C, or with the software half path (``OB_SOFT_HALF``), the
blocks are loops of the scalar conversions, the same bits again. The tail that is not a multiple of 8 uses
the scalar conversions. ``ob_f16_round_block`` rounds a float block to float16 and back in place (a fused
kernel's float16 member). Two per-element helpers serve loops that cannot use blocks, in operations gcc
vectorises: ``ob_f16_ld`` (one element to float from its bits) and ``ob_f16_round`` (the round trip in float
arithmetic); both give the scalar conversions' bits.

codegen.prelude_for appends :data:`PRELUDE_F16_BLOCKS` after the half section when a kernel names one of
these helpers; sources.py hashes this file into every kernel key.
"""

from __future__ import annotations

import re

PRELUDE_F16_BLOCKS = r"""
/* float16 <-> float32 a block at a time (targets/cpu/f16_blocks.py): F16C's 8-wide conversions where the
   compiler has _Float16 and the CPU F16C, the scalar conversions otherwise; equal bits either way. */
#if defined(__F16C__) && defined(__FLT16_MAX__) && !defined(OB_SOFT_HALF) && defined(__GNUC__)
typedef float ob_v8sf __attribute__((vector_size(32)));
typedef short ob_v8hi __attribute__((vector_size(16)));
/* Two loops with separate bounds (not one index carried over): gcc then sees that the tail of a constant
   n that is a multiple of 8 never runs, instead of warning about it (-Waggressive-loop-optimizations). */
static inline void ob_f16_load_block(float *restrict dst, const ob_f16 *restrict src, int64_t n) {
  const int64_t nv = n - n % 8;
  for (int64_t i = 0; i < nv; i += 8) {
    ob_v8hi h;
    memcpy(&h, src + i, sizeof h);
    const ob_v8sf f = __builtin_ia32_vcvtph2ps256(h);
    memcpy(dst + i, &f, sizeof f);
  }
  for (int64_t i = nv; i < n; i++) dst[i] = ob_f16_to_f32(src[i]);
}
static inline void ob_f16_store_block(ob_f16 *restrict dst, const float *restrict src, int64_t n) {
  const int64_t nv = n - n % 8;
  for (int64_t i = 0; i < nv; i += 8) {
    ob_v8sf f;
    memcpy(&f, src + i, sizeof f);
    const ob_v8hi h = __builtin_ia32_vcvtps2ph256(f, 0);  /* 0: round to nearest even */
    memcpy(dst + i, &h, sizeof h);
  }
  for (int64_t i = nv; i < n; i++) dst[i] = ob_f16_from_f32(src[i]);
}
static inline float ob_f16_round(float x);
/* x[0..n) rounded to float16 and back in place (a fused kernel's float16 member, a block at a time). */
static inline void ob_f16_round_block(float *restrict x, int64_t n) {
  const int64_t nv = n - n % 8;
  for (int64_t i = 0; i < nv; i += 8) {
    ob_v8sf f;
    memcpy(&f, x + i, sizeof f);
    f = __builtin_ia32_vcvtph2ps256(__builtin_ia32_vcvtps2ph256(f, 0));
    memcpy(x + i, &f, sizeof f);
  }
  for (int64_t i = nv; i < n; i++) x[i] = ob_f16_round(x[i]);
}
/* One float16 element as float in integer and float operations that gcc vectorises wherever the element is
   loaded (reductions, normalisations): the bits of F16C's vcvtph2ps. The exponent is rebiased by 112 (31 for
   inf and NaN, a NaN made quiet as F16C makes it); zero and subnormals are m * 2^-24, exact in float. The
   element is read as bits through a may_alias type: a _Float16 value anywhere in a loop stops gcc 12. */
typedef uint16_t ob_f16_bits __attribute__((may_alias));
static inline float ob_f16_ld(const ob_f16 *p) {
  const uint32_t h = *(const ob_f16_bits *)p, em = h & 0x7fffu;
  uint32_t b = (em << 13) + 0x38000000u;
  b = em >= 0x7c00u ? b + 0x38000000u : b;
  b = em > 0x7c00u ? b | 0x00400000u : b;
  const float sub = (float)(int32_t)em * 0x1p-24f;  /* computed always: a select, not a branch */
  float f;
  memcpy(&f, &b, sizeof f);
  f = em < 0x0400u ? sub : f;
  memcpy(&b, &f, sizeof b);
  b |= (h & 0x8000u) << 16;
  memcpy(&f, &b, sizeof f);
  return f;
}
#else
static inline float ob_f16_round(float x);
static inline void ob_f16_round_block(float *restrict x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] = ob_f16_round(x[i]);
}
static inline float ob_f16_ld(const ob_f16 *p) { return ob_f16_to_f32(*p); }
static inline void ob_f16_load_block(float *restrict dst, const ob_f16 *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = ob_f16_to_f32(src[i]);
}
static inline void ob_f16_store_block(ob_f16 *restrict dst, const float *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = ob_f16_from_f32(src[i]);
}
#endif
/* x rounded to float16 and back, the bits of ob_f16_to_f32(ob_f16_from_f32(x)) (F16C or software), in float
   arithmetic that gcc vectorises: the round trip a fused kernel applies to every float16 member. For |x| in
   the binade 2^e (e clamped to [-14, 15]), |x| + M - M with M = 1.5 * 2^(e + 13) rounds |x| to a multiple of
   2^(e - 10), float16's spacing there (2^-24 for its subnormals), to nearest even in one float32 addition:
   every such sum lies in M's binade, where the float32 spacing is exactly 2^(e - 10), and M is an even
   multiple of it. A result above 65504 (65520 and up, inf) is inf, as the conversion overflows; NaN keeps
   the ten payload bits float16 holds, made quiet; the sign is put back last (-0.0 stays -0.0). */
static inline float ob_f16_round(float x) {
  uint32_t b, e;
  memcpy(&b, &x, sizeof b);
  const uint32_t a = b & 0x7fffffffu;
  e = a & 0x7f800000u;
  e = e < 0x38800000u ? 0x38800000u : e;
  e = e > 0x47000000u ? 0x47000000u : e;
  const uint32_t mb = e + 0x06c00000u;
  float m, ax;
  memcpy(&m, &mb, sizeof m);
  memcpy(&ax, &a, sizeof ax);
  const float r = (ax + m) - m;
  uint32_t rb;
  memcpy(&rb, &r, sizeof rb);
  rb = r > 65504.0f ? 0x7f800000u : rb;
  rb = a > 0x7f800000u ? (a | 0x00400000u) & 0x7fffe000u : rb;
  rb |= b & 0x80000000u;
  float y;
  memcpy(&y, &rb, sizeof y);
  return y;
}
"""

USES_F16_BLOCKS = re.compile(r"\bob_f16_((load|store|round)_block|ld|round)\b")
