"""The software float16 path of the generated C (``uint16_t`` bits with bit-twiddling conversions), used where
the compiler has no ``_Float16``. gcc 12 on x86-64 has it, so the path is forced with ``-DOB_SOFT_HALF``:
through ``OPBUILD_CFLAGS`` for kernels (the flags are part of the compiler identity, hence of every key), and
directly on the prelude for the conversions.

1. The conversions, compiled from the very prelude text kernels get, against NumPy's float16 bit for bit:
   half -> float over all 65,536 patterns (subnormals, infinities, NaN payloads); float -> half over every
   half value, every rounding midpoint (ties to even) and its float32 neighbours, the overflow threshold and
   a million random float32 patterns; and the same sets against the ``_Float16`` (hardware) conversions.
   bfloat16's conversions (always software) against ml_dtypes over all patterns too.
2. Kernels built with ``OPBUILD_CFLAGS=-DOB_SOFT_HALF`` get new keys and give the same bits as the
   ``_Float16`` kernels, except where the software double -> half conversion rounds twice (documented).
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops
from opbuild.targets.cpu import codegen

HARNESS = r"""
OB_EXPORT void h2f(const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = ob_f16_to_f32(ob_f16_from_bits(h[i]));
}
OB_EXPORT void f2h(const float *f, uint16_t *h, int64_t n) {
  for (int64_t i = 0; i < n; i++) { ob_f16 v = ob_f16_from_f32(f[i]); memcpy(&h[i], &v, 2); }
}
OB_EXPORT void d2h(const double *d, uint16_t *h, int64_t n) {
  for (int64_t i = 0; i < n; i++) { ob_f16 v = ob_f16_from_f64(d[i]); memcpy(&h[i], &v, 2); }
}
OB_EXPORT void b2f(const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = ob_bf16_to_f32(h[i]);
}
OB_EXPORT void f2b(const float *f, uint16_t *h, int64_t n) {
  for (int64_t i = 0; i < n; i++) h[i] = ob_bf16_from_f32(f[i]);
}
OB_EXPORT int soft(void) { return sizeof(ob_f16) == 2 && (ob_f16)1 == 1 && (ob_f16)0.5 == 0; }
"""

ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def _lib(tmp_path_factory, soft: bool):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler on this machine")  # the conversions need one; kernels do too
    d = tmp_path_factory.mktemp("soft" if soft else "hard")
    src, out = d / "conv.c", d / "conv.so"
    src.write_text(codegen.PRELUDE_CORE + codegen.PRELUDE_STDLIB + codegen.PRELUDE_MATH_HEADERS
                   + codegen.PRELUDE_HALF + HARNESS)
    flags = ["-DOB_SOFT_HALF"] if soft else []
    subprocess.run([cc, "-O2", "-std=gnu11", "-shared", "-fPIC", *flags, str(src), "-o", str(out), "-lm"],
                   check=True, capture_output=True)
    lib = ctypes.CDLL(str(out))
    for name in ("h2f", "f2h", "d2h", "b2f", "f2b"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    return lib


@pytest.fixture(scope="module")
def soft(tmp_path_factory):
    lib = _lib(tmp_path_factory, soft=True)
    assert lib.soft() == 1  # ob_f16 is the uint16_t bits: (ob_f16)0.5 truncates to integer 0
    return lib


@pytest.fixture(scope="module")
def hard(tmp_path_factory):
    lib = _lib(tmp_path_factory, soft=False)
    if lib.soft():
        pytest.skip("this compiler has no _Float16: the soft path is the only one")
    return lib


def _run(lib, name: str, x: np.ndarray, out_dtype) -> np.ndarray:
    x = np.ascontiguousarray(x)
    out = np.empty(x.shape, out_dtype)
    getattr(lib, name)(x.ctypes.data, out.ctypes.data, x.size)
    return out


def _float32_probes() -> np.ndarray:
    """float32 values that exercise every float16 rounding decision."""
    halves = ALL16.view(np.float16)
    finite = np.sort(halves[np.isfinite(halves)].astype(np.float32))
    finite = np.unique(finite)
    mids = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)  # exact in float32
    assert np.all(mids.astype(np.float64) == (finite[:-1].astype(np.float64) + finite[1:]) / 2)
    top = np.float32(65504.0)
    specials = np.array([np.inf, -np.inf, 65519.996, 65520.0, -65520.0, 1e-8, -1e-8, 2.0 ** -25, 2.0 ** -26,
                         3 * 2.0 ** -26, 1e30, -1e30, 0.0, -0.0, top, np.finfo(np.float32).tiny,
                         np.finfo(np.float32).max], np.float32)
    bits = np.random.default_rng(0).integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    rand = bits.view(np.float32)
    rand = rand[~np.isnan(rand)]  # NaNs have their own test (NumPy keeps a signalling one signalling)
    parts = [finite, mids, np.nextafter(mids, np.float32(np.inf)), np.nextafter(mids, np.float32(-np.inf)),
             specials, rand]
    return np.concatenate(parts).astype(np.float32)


def test_half_to_float_all_patterns_bit_exact(soft, hard):
    """All 65,536 patterns. The software path equals NumPy bit for bit, signalling NaN payloads included;
    the hardware conversion (F16C) quiets a signalling NaN as IEEE 754 says, the only difference."""
    want = ALL16.view(np.float16).astype(np.float32).view(np.uint32)
    got = _run(soft, "h2f", ALL16, np.float32).view(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(hex(ALL16[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
    signalling = np.isnan(ALL16.view(np.float16)) & ((ALL16 & 0x200) == 0)
    assert signalling.sum() == 2 * 511
    hw = _run(hard, "h2f", ALL16, np.float32).view(np.uint32)
    np.testing.assert_array_equal(hw[~signalling], want[~signalling])
    np.testing.assert_array_equal(hw[signalling], want[signalling] | 0x400000)


def test_float_to_half_bit_exact(soft, hard):
    x = _float32_probes()
    with np.errstate(over="ignore"):  # the probes include values that round to inf on purpose
        want = x.astype(np.float16).view(np.uint16)
    got = _run(soft, "f2h", x, np.uint16)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(float(x[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
    np.testing.assert_array_equal(_run(hard, "f2h", x, np.uint16), got)  # software == hardware


def test_float_to_half_round_trip_of_every_half(soft):
    halves = ALL16.view(np.float16)
    ok = ~np.isnan(halves)
    got = _run(soft, "f2h", halves.astype(np.float32), np.uint16)
    np.testing.assert_array_equal(got[ok], ALL16[ok])  # every non-NaN pattern, -0 and subnormals included


def test_nan_conversions(soft, hard):
    """float -> half keeps a NaN a NaN of the same sign with the payload's top bits, made quiet (0x200); a quiet
    NaN converts exactly as NumPy does."""
    f32_nans = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffe000, 0x7fa00000, 0x7fc02000],
                        np.uint32)
    got = _run(soft, "f2h", f32_nans.view(np.float32), np.uint16)
    want = ((f32_nans >> 16) & 0x8000) | 0x7e00 | ((f32_nans >> 13) & 0x3ff)
    np.testing.assert_array_equal(got, want.astype(np.uint16))
    assert np.all(np.isnan(got.view(np.float16)))
    quiet = (f32_nans & 0x400000) != 0
    np.testing.assert_array_equal(got[quiet], f32_nans.view(np.float32)[quiet].astype(np.float16).view(np.uint16))
    np.testing.assert_array_equal(_run(hard, "f2h", f32_nans.view(np.float32), np.uint16), got)


def test_double_to_half(soft, hard):
    """double -> half: exact through float wherever the double is a float (every probe), and the one
    documented difference: a double just above a float16 tie that float32 cannot tell from the tie is
    rounded twice by the software path (to even), once by _Float16 and NumPy (up)."""
    x = _float32_probes().astype(np.float64)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(_run(soft, "d2h", x, np.uint16), want)
    tie = np.array([1 + 2.0 ** -11 + 2.0 ** -40])
    assert int(_run(hard, "d2h", tie, np.uint16)[0]) == int(tie.astype(np.float16).view(np.uint16)[0]) == 0x3c01
    assert int(_run(soft, "d2h", tie, np.uint16)[0]) == 0x3c00


def test_bfloat16_conversions_all_patterns(soft):
    bf = ALL16.view(ml_dtypes.bfloat16)
    want = bf.astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(_run(soft, "b2f", ALL16, np.float32).view(np.uint32), want)
    x = _float32_probes()
    x = np.concatenate([x, bf.astype(np.float32)[np.isfinite(bf.astype(np.float32))]])
    np.testing.assert_array_equal(_run(soft, "f2b", x, np.uint16), x.astype(ml_dtypes.bfloat16).view(np.uint16))


# ---- kernels through the software path ---------------------------------------------------------------------

def _kernels(x16: np.ndarray, w16: np.ndarray) -> dict[str, np.ndarray]:
    """A few half kernels: elementwise (Add, GeLU), a reduction, Softmax, MatMul, LayerNorm, Cast from float32
    and from float64 (the double-rounding probe), ArgMax."""
    t, w = Tensor(x16), Tensor(w16)
    g, b = Tensor(np.ones(x16.shape[1], np.float16)), Tensor(np.zeros(x16.shape[1], np.float16))
    probe = np.array([1 + 2.0 ** -11 + 2.0 ** -40, 0.1, 65519.0, 1e-7])
    return {
        "add": ops.Add()(t, t),
        "gelu": ops.gelu(t),
        "sum": ops.ReduceSum()(t, 1),
        "softmax": ops.Softmax()(t),
        "matmul": ops.MatMul()(t, w),
        "layernorm": ops.LayerNorm(1, 1)(t, g, b)[0],
        "cast32": ops.Cast()(Tensor(x16.astype(np.float32) * np.float32(1.0009)), ms.float16),
        "cast64": ops.Cast()(Tensor(probe), ms.float16),
        "argmax": ops.Argmax()(t),
    }


def test_kernels_through_the_soft_path(pynative_mode, monkeypatch):
    rng = np.random.default_rng(1)
    x16 = (rng.standard_normal((8, 40)) * 3).astype(np.float16)
    w16 = rng.standard_normal((40, 6)).astype(np.float16)
    hard_out = {k: v.asnumpy() for k, v in _kernels(x16, w16).items()}
    hard_names = {k.name for k in ms.build_report().kernels}
    monkeypatch.setenv("OPBUILD_CFLAGS", "-DOB_SOFT_HALF")
    soft_out = {k: v.asnumpy() for k, v in _kernels(x16, w16).items()}
    report = ms.build_report()
    # New keys (the flag is part of the compiler identity): nothing of the _Float16 build is reused.
    assert report.reused == 0 and not {k.name for k in report.kernels} & hard_names
    # The software path is really in use: it rounds the double 1 + 2^-11 + 2^-40 twice (to 1.0), _Float16 once.
    assert soft_out["cast64"][0] == np.float16(1.0) and hard_out["cast64"][0] == np.float16(1.0009765625)
    np.testing.assert_array_equal(soft_out["cast64"][1:].view(np.uint16), hard_out["cast64"][1:].view(np.uint16))
    for name in hard_out:  # every other kernel computes in float and rounds once: the same bits
        if name != "cast64":
            assert soft_out[name].dtype == hard_out[name].dtype
            np.testing.assert_array_equal(soft_out[name].view(np.uint8), hard_out[name].view(np.uint8),
                                          err_msg=name)
    # ... and both match the float32 reference rounded once.
    x32 = x16.astype(np.float32)
    np.testing.assert_array_equal(soft_out["add"], (x32 + x32).astype(np.float16))
    np.testing.assert_array_equal(soft_out["argmax"], np.argmax(x16, 1))
    np.testing.assert_array_equal(soft_out["cast32"], (x32 * np.float32(1.0009)).astype(np.float16))
    want = (x32 @ w16.astype(np.float32)).astype(np.float16).astype(np.float32)
    assert np.all(np.abs(soft_out["matmul"].astype(np.float32) - want) <= 2.0 ** -10 * np.abs(want) + 1e-4)
