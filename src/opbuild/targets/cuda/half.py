"""The half types (float16, bfloat16) on the GPU target: their storage, their conversions (a prelude section) and
the helpers an emitter calls to load, compute and store them, as the CPU target does (docs/dtypes.md).

Storage: ``ob_f16`` and ``ob_bf16`` are distinct 2-byte structs holding the bits (IEEE binary16; the high half
of a float32), not CUDA's ``__half``/``__nv_bfloat16``: nothing of ``cuda_fp16.h`` is needed, a forgotten
conversion is a compile error (a struct has no arithmetic) rather than integer arithmetic on bits, and the
conversions below are integer code, so g++ on the host (tests/targets/cuda/host_emulation.py) computes
exactly the bits the device does. They round to nearest even and handle subnormals, infinities and NaN as the
CPU target's conversions do: half -> float is exact (a NaN keeps its payload, as NumPy's); float -> half
makes a NaN quiet and keeps its payload's top bits; double -> float16 rounds once, as the CPU's ``_Float16``
and NumPy do; double -> bfloat16 goes through float, as ml_dtypes does.

Semantics (the CPU's): a half element is loaded into ``float``, the float32 expression of the op is evaluated
and the result rounds once on store; reductions accumulate in float; fused kernels round each member's result
to its dtype (:func:`round_trip`), as the unfused op stores it.

How an emitter opts in. Half types reach an emitter only for the ops listed by :func:`allow` (checked by
``codegen.check_dtypes``; every other op keeps refusing them with ``codegen.Unsupported`` naming the op and
the dtype). An emitter that opts in declares its pointers with ``codegen.ctype`` (the struct type), computes
in :func:`compute_ctype`, reads elements with :func:`load` and writes them with :func:`store`; kernels that
only move elements copy the structs as they are. Then, in its module::

    from .. import half
    half.allow("MyOp", "MyOpGrad")
"""

from __future__ import annotations

import numpy as np

from ...core.dtypes import BY_NAME

HALF_DTYPES = ("float16", "bfloat16")

PRELUDE_HALF = r"""
struct ob_f16 { uint16_t bits; };
struct ob_bf16 { uint16_t bits; };
#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint32_t ob_bits_f32(float f) { return __float_as_uint(f); }
__device__ __forceinline__ float ob_f32_of_bits(uint32_t b) { return __uint_as_float(b); }
__device__ __forceinline__ uint64_t ob_bits_f64(double d) { return (uint64_t)__double_as_longlong(d); }
#else
__device__ __forceinline__ uint32_t ob_bits_f32(float f) { uint32_t b; __builtin_memcpy(&b, &f, 4); return b; }
__device__ __forceinline__ float ob_f32_of_bits(uint32_t b) { float f; __builtin_memcpy(&f, &b, 4); return f; }
__device__ __forceinline__ uint64_t ob_bits_f64(double d) { uint64_t b; __builtin_memcpy(&b, &d, 8); return b; }
#endif
__device__ __forceinline__ ob_f16 ob_f16_from_bits(uint16_t b) { ob_f16 h; h.bits = b; return h; }
__device__ __forceinline__ ob_bf16 ob_bf16_from_bits(uint16_t b) { ob_bf16 h; h.bits = b; return h; }
__device__ __forceinline__ float ob_f16_to_f32(ob_f16 h) {
  const uint32_t s = (uint32_t)(h.bits & 0x8000u) << 16, e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu;
  if (e == 0x1f) return ob_f32_of_bits(s | 0x7f800000u | (m << 13));  /* inf, NaN (payload kept) */
  if (e != 0) return ob_f32_of_bits(s | ((e + 112) << 23) | (m << 13));
  if (m == 0) return ob_f32_of_bits(s);
  uint32_t k = 0, mm = m;  /* subnormal: normalise the significand */
  while (!(mm & 0x400u)) { mm <<= 1; k++; }
  return ob_f32_of_bits(s | ((113 - k) << 23) | ((mm & 0x3ffu) << 13));
}
/* The magnitude bits of a finite value 2^(exp - 1075) * sig (sig < 2^53, normalised: sig >= 2^52 unless exp
   is the minimum) rounded to binary16, to nearest even; exp is the biased float64 exponent. */
__device__ __forceinline__ uint16_t ob_f16_round_sig(int32_t exp, uint64_t sig) {
  if (exp >= 1039) return 0x7c00u;  /* >= 2^16: inf */
  int32_t e16 = exp - 1008;  /* the binary16 exponent field for a normal result */
  int32_t shift = 42;  /* 52 - 10 fraction bits */
  if (e16 <= 0) { shift += 1 - e16; e16 = 0; }  /* subnormal (or zero) result: fewer bits kept */
  if (shift > 63) return 0;
  const uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
  uint64_t r = q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
  /* r holds the implicit bit for a normal result: adding the exponent field carries into it correctly,
     the significand rounding up to 2^11 bumps the exponent (and 65520 becomes inf). */
  r = e16 > 0 ? (r - 0x400u) + ((uint64_t)e16 << 10) : r;
  return r >= 0x7c00u ? (uint16_t)0x7c00u : (uint16_t)r;
}
__device__ __forceinline__ ob_f16 ob_f16_from_f32(float f) {
  const uint32_t b = ob_bits_f32(f), a = b & 0x7fffffffu;
  const uint16_t s = (uint16_t)((b >> 16) & 0x8000u);
  if (a > 0x7f800000u) return ob_f16_from_bits((uint16_t)(s | 0x7e00u | ((a >> 13) & 0x3ffu)));
  if (a == 0x7f800000u) return ob_f16_from_bits((uint16_t)(s | 0x7c00u));
  const uint32_t e = a >> 23;
  const uint64_t sig = (uint64_t)(e ? (a & 0x7fffffu) | 0x800000u : (a & 0x7fffffu)) << 29;
  return ob_f16_from_bits((uint16_t)(s | ob_f16_round_sig((int32_t)(e ? e : 1) + 896, sig)));
}
__device__ __forceinline__ ob_f16 ob_f16_from_f64(double d) {
  const uint64_t b = ob_bits_f64(d), a = b & 0x7fffffffffffffffull;
  const uint16_t s = (uint16_t)((b >> 48) & 0x8000u);
  if (a > 0x7ff0000000000000ull) return ob_f16_from_bits((uint16_t)(s | 0x7e00u | ((a >> 42) & 0x3ffu)));
  if (a == 0x7ff0000000000000ull) return ob_f16_from_bits((uint16_t)(s | 0x7c00u));
  const uint32_t e = (uint32_t)(a >> 52);
  const uint64_t sig = e ? (a & 0xfffffffffffffull) | 0x10000000000000ull : (a & 0xfffffffffffffull);
  return ob_f16_from_bits((uint16_t)(s | ob_f16_round_sig((int32_t)(e ? e : 1), sig)));
}
__device__ __forceinline__ float ob_bf16_to_f32(ob_bf16 h) { return ob_f32_of_bits((uint32_t)h.bits << 16); }
__device__ __forceinline__ ob_bf16 ob_bf16_from_f32(float f) {
  const uint32_t b = ob_bits_f32(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return ob_bf16_from_bits((uint16_t)((b >> 16) | 0x40u));
  return ob_bf16_from_bits((uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16));
}
__device__ __forceinline__ ob_bf16 ob_bf16_from_f64(double d) { return ob_bf16_from_f32((float)d); }
__device__ __forceinline__ float ob_f16_round(float f) { return ob_f16_to_f32(ob_f16_from_f32(f)); }
__device__ __forceinline__ float ob_bf16_round(float f) { return ob_bf16_to_f32(ob_bf16_from_f32(f)); }
"""

_PREFIX = {"float16": "ob_f16", "bfloat16": "ob_bf16"}

#: Ops whose GPU emitters handle the half types (see the module docstring); :func:`allow` adds to it.
HALF_OPS: set[str] = set()


def allow(*ops: str) -> None:
    """Declare that the GPU emitters of ``ops`` handle float16 and bfloat16 (load, compute in float, store)."""
    HALF_OPS.update(ops)


def is_half(dtype: str) -> bool:
    """float16 or bfloat16: stored in 16 bits, computed in float."""
    return dtype in _PREFIX


def compute_ctype(dtype: str) -> str:
    """The C++ type a kernel computes ``dtype`` in: ``float`` for the half types, the storage type otherwise."""
    return "float" if dtype in _PREFIX else BY_NAME[dtype].c_type


def load(dtype: str, ref: str) -> str:
    """C++: the stored element ``ref`` of ``dtype`` as a value of :func:`compute_ctype` (exact)."""
    return f"{_PREFIX[dtype]}_to_f32({ref})" if dtype in _PREFIX else ref


def store(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C++: ``expr`` (of C++ type ``src_ctype``) converted to ``dtype``'s storage type; a half type rounds once
    here (from a double directly for float16, through float for bfloat16, as the CPU target)."""
    if dtype in _PREFIX:
        if src_ctype == "double":
            return f"{_PREFIX[dtype]}_from_f64((double)({expr}))"
        return f"{_PREFIX[dtype]}_from_f32((float)({expr}))"
    return f"({BY_NAME[dtype].c_type})({expr})"


def round_trip(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C++: ``expr`` rounded to ``dtype`` and back into its compute type (an intermediate of a fused kernel,
    kept exactly as the unfused op stores it)."""
    if dtype in _PREFIX:
        if src_ctype == "double":
            return load(dtype, store(dtype, expr, "double"))
        return f"{_PREFIX[dtype]}_round((float)({expr}))"
    return f"({BY_NAME[dtype].c_type})({expr})"


def literal(value: object, dtype: str) -> str:
    """C++: the half value nearest ``value`` (rounded by NumPy / ml_dtypes, as the references round it) as its
    storage struct."""
    with np.errstate(over="ignore", invalid="ignore"):  # beyond the type's range: inf, as the reference
        bits = int(np.array([value], dtype=np.float64).astype(np.dtype(dtype)).view(np.uint16)[0])
    return f"{_PREFIX[dtype]}_from_bits({bits:#06x})"


__all__ = ["HALF_DTYPES", "HALF_OPS", "PRELUDE_HALF", "allow", "compute_ctype", "is_half", "literal", "load",
           "round_trip", "store"]
