"""The C prelude section of float16 block conversions (a self-contained helper block of codegen's prelude).

Why it exists (issue #16): gcc 12 cannot vectorise any loop that holds a ``_Float16`` value on x86-64
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
the scalar conversions.

codegen.prelude_for appends :data:`PRELUDE_F16_BLOCKS` after the half section when a kernel names
``ob_f16_load_block``/``ob_f16_store_block``; ops/sources.py hashes this file into every kernel key.
"""

from __future__ import annotations

import re

PRELUDE_F16_BLOCKS = r"""
/* float16 <-> float32 a block at a time (targets/cpu/f16_blocks.py): F16C's 8-wide conversions where the
   compiler has _Float16 and the CPU F16C, the scalar conversions otherwise; equal bits either way. */
#if defined(__F16C__) && defined(__FLT16_MAX__) && !defined(OB_SOFT_HALF) && defined(__GNUC__)
typedef float ob_v8sf __attribute__((vector_size(32)));
typedef short ob_v8hi __attribute__((vector_size(16)));
static inline void ob_f16_load_block(float *restrict dst, const ob_f16 *restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    ob_v8hi h;
    memcpy(&h, src + i, sizeof h);
    const ob_v8sf f = __builtin_ia32_vcvtph2ps256(h);
    memcpy(dst + i, &f, sizeof f);
  }
  for (; i < n; i++) dst[i] = ob_f16_to_f32(src[i]);
}
static inline void ob_f16_store_block(ob_f16 *restrict dst, const float *restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    ob_v8sf f;
    memcpy(&f, src + i, sizeof f);
    const ob_v8hi h = __builtin_ia32_vcvtps2ph256(f, 0);  /* 0: round to nearest even */
    memcpy(dst + i, &h, sizeof h);
  }
  for (; i < n; i++) dst[i] = ob_f16_from_f32(src[i]);
}
#else
static inline void ob_f16_load_block(float *restrict dst, const ob_f16 *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = ob_f16_to_f32(src[i]);
}
static inline void ob_f16_store_block(ob_f16 *restrict dst, const float *restrict src, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = ob_f16_from_f32(src[i]);
}
#endif
"""

USES_F16_BLOCKS = re.compile(r"\bob_f16_(load|store)_block\b")
