"""The CPU's Cast kernels to and from the storage-only formats (dtypes.LOWP): the 8-bit floats (float8_e4m3fn,
float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz), float4_e2m1fn and the 4- and 2-bit integers.

Each element is one byte: a float format's code (in the low bits for float4) or an integer format's value.
The conversions follow ml_dtypes' ``astype`` bit for bit (the arrays' own semantics, and the Cast reference):

* **to a small float**: the source value (as a double: exact for every float type, so nothing rounds twice)
  rounds to the nearest representable magnitude, ties to the even code; beyond the format's largest value
  (past the rounding boundary above it) it becomes the format's infinity, or NaN where the format has no
  infinity (float4_e2m1fn has neither: it saturates). NaN keeps its sign where the format has a signed NaN.
  ONNX's ``saturate=1`` (its default) is applied by the importer before the Cast: a clamp to the largest value.
* **from a small float**: a table of the 2^bits values (exact in float32), then the ordinary Cast rule from
  float32 (half types round once, integers saturate: docs/dtypes.md).
* **to a small integer**: floats truncate toward zero (NaN and infinities give 0), then every source wraps
  modulo 2^bits (two's complement), as ml_dtypes does.
* **from a small integer**: its value as int8/uint8, then the ordinary Cast rule.

All tables and boundaries are derived from ml_dtypes when the kernel is generated; the boundaries between
neighbouring values are midpoints of two short binary fractions, exact in double, so the comparisons are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from ....core.dtypes import BY_NAME, LOWP, LOWP_FLOATS
from ....core.ir import KernelSpec
from ..codegen import compute_ctype, load, parallel_for


@dataclass(frozen=True)
class FloatFormat:
    """A small float format's tables: ``decode`` (float32 bits of every code), the positive magnitudes'
    codes ``mags`` and the rounding ``bounds`` between them (``ups[i]``: a tie at bound i rounds up; the last
    bound is the overflow boundary above the largest value), and the special codes."""

    sign: int
    decode: tuple[int, ...]
    mags: tuple[int, ...]
    bounds: tuple[float, ...]
    ups: tuple[bool, ...]
    nan: tuple[int, int]  # +NaN, -NaN
    overflow: tuple[int, int]  # +, - beyond the largest value
    neg_zero: int


def _codes(dt: np.dtype, values: list[float]) -> list[int]:
    return [int(c) for c in np.array(values, dtype=np.float64).astype(dt).view(np.uint8)]


@cache
def float_format(name: str) -> FloatFormat:
    """The tables of small float format ``name`` (one of dtypes.LOWP_FLOATS), from ml_dtypes."""
    dt = BY_NAME[name].np_dtype
    n = 16 if name.startswith("float4") else 256
    values = np.arange(n, dtype=np.uint8).view(dt).astype(np.float32)
    sign = n // 2
    mags = [c for c in range(sign) if np.isfinite(values[c])]
    mag_values = [float(values[c]) for c in mags]
    assert mag_values == sorted(mag_values), name
    # The boundary above the largest value: half an ulp of the largest value's binade beyond it.
    top = mag_values[-1] + (mag_values[-1] - mag_values[-2]) / 2
    bounds = [(a + b) / 2 for a, b in zip(mag_values, mag_values[1:])] + [top]
    ups = [mags[i] % 2 == 1 for i in range(len(mags))]  # a tie leaves an odd code for its (even) neighbour
    nan = _codes(dt, [np.nan, -np.nan])
    over = _codes(dt, [np.inf, -np.inf])
    return FloatFormat(sign, tuple(int(v) for v in values.view(np.uint32)), tuple(mags), tuple(bounds),
                       tuple(ups), (nan[0], nan[1]), (over[0], over[1]), _codes(dt, [-0.0])[0])


def _array(ctype: str, name: str, items: list[str]) -> str:
    return f"static const {ctype} {name}[{len(items)}] = {{{', '.join(items)}}};"


def _encode_float(name: str, x: str) -> tuple[str, str]:
    """(declarations, statement setting ``uint8_t c`` from the double ``x``) for small float ``name``."""
    f = float_format(name)
    decls = " ".join([
        _array("double", "ob_bound", [float(b).hex() for b in f.bounds]),
        _array("unsigned char", "ob_up", [str(int(u)) for u in f.ups]),
        _array("uint8_t", "ob_mag", [str(c) for c in f.mags]),
    ])
    m = len(f.bounds)
    stmt = (f"uint8_t c; const int neg = signbit({x}) != 0; "
            f"if ({x} != {x}) c = neg ? {f.nan[1]} : {f.nan[0]}; "
            f"else {{ const double a = fabs({x}); int lo = 0, hi = {m}; "
            f"while (lo < hi) {{ const int mid = (lo + hi) >> 1; "
            f"if (a > ob_bound[mid] || (a == ob_bound[mid] && ob_up[mid])) lo = mid + 1; else hi = mid; }} "
            f"if (lo == {m}) c = neg ? {f.overflow[1]} : {f.overflow[0]}; "
            f"else if (!neg) c = ob_mag[lo]; "
            f"else c = ob_mag[lo] ? (uint8_t)(ob_mag[lo] | {f.sign}) : {f.neg_zero}; }}")
    return decls, stmt


def _wrap_int(name: str, v: str) -> str:
    """C expression: int64 ``v`` wrapped modulo 2^bits into small integer ``name``'s storage byte (its two's
    complement bits in the low bits, ml_dtypes' layout)."""
    return f"(uint8_t)((uint64_t)({v}) & {(1 << BY_NAME[name].bits) - 1}u)"


def _unwrap_int(name: str, ref: str) -> str:
    """C expression: the value (int64) of small integer ``name`` stored in byte ``ref``."""
    d = BY_NAME[name]
    mask = (1 << d.bits) - 1
    if d.is_unsigned:
        return f"(int64_t)({ref} & {mask}u)"
    half = 1 << (d.bits - 1)
    return f"((int64_t)(({ref} & {mask}u) ^ {half}u) - {half})"


def _source(src: str) -> tuple[str, str, str]:
    """(declarations, statements, C variable) reading element ``in0[o]`` of ``src`` as a plain C value:
    a small float decoded to float, a small integer as its int8/uint8 value, any other dtype as its compute
    type (the half types as float). Also returns the dtype name the value stands for."""
    if src in LOWP_FLOATS:
        f = float_format(src)
        decls = _array("uint32_t", "ob_dec", [f"{v}u" for v in f.decode])
        read = "union { uint32_t u; float f; } cv_; cv_.u = ob_dec[in0[o]]; const float x = cv_.f;"
        return decls, read, "float32"
    if src in LOWP:
        plain = "uint8" if BY_NAME[src].is_unsigned else "int8"
        return "", f"const int64_t x = {_unwrap_int(src, 'in0[o]')};", plain
    return "", f"const {compute_ctype(src)} x = {load(src, 'in0[o]')};", src


def cast_emit(k: KernelSpec, plain_cast: Callable[[str, str], str]) -> str:
    """The body of a Cast kernel whose input or output is a storage-only format (see the module).
    ``plain_cast(src, dst)`` is the ordinary Cast's C expression converting ``x`` of dtype ``src`` (its compute
    type) to the storage type of ``dst`` (ops/elementwise.py), used after decoding a small format."""
    src, dst = k.inputs[0].dtype, k.outputs[0].dtype
    n = k.inputs[0].size
    if src == dst:  # a copy: every code kept as it is (NaN payloads included), as astype does
        return f"{parallel_for(n)}for (int64_t o = 0; o < {n}; o++) out0[o] = in0[o];"
    decls, read, as_dt = _source(src)
    if dst in LOWP_FLOATS:
        enc_decls, enc = _encode_float(dst, "xd")
        decls += " " + enc_decls
        stmt = f"{read} const double xd = (double)x; {enc} out0[o] = c;"
    elif dst in LOWP:
        if BY_NAME[as_dt].is_float:  # truncate toward zero; NaN, infinities and |x| >= 2^63 give 0
            v = "(fabs(xd) < 0x1p63 ? (int64_t)xd : (int64_t)0)"
            stmt = f"{read} const double xd = trunc((double)x); out0[o] = {_wrap_int(dst, v)};"
        else:
            stmt = f"{read} out0[o] = {_wrap_int(dst, '(int64_t)x')};"
    else:  # a small format to an ordinary dtype: the ordinary Cast rule from its plain value
        stmt = f"{read} out0[o] = {plain_cast(as_dt, dst)};"
    return f"{decls} {parallel_for(n)}for (int64_t o = 0; o < {n}; o++) {{ {stmt} }}"
