"""The float16 block conversions and vectorisable helpers (targets/cpu/f16_blocks.py) give the scalar
conversions' bits.

``ob_f16_load_block``/``ob_f16_store_block``, ``ob_f16_ld`` (one element), ``ob_f16_round`` (the round
trip) and ``ob_f16_round_block`` are compiled from the very prelude text kernels get, three ways:
with ``-march=native`` (F16C's 8-wide instructions where the CPU has them, the scalar tail for the rest), with
``-DOB_SOFT_HALF`` (software conversions) and without F16C (``-mno-f16c``: the scalar loop). Each is compared
with the scalar ``ob_f16_to_f32``/``ob_f16_from_f32`` of the same build over all 65,536 half patterns and the
float32 probes of test_soft_half (every rounding midpoint and its neighbours, overflow, random patterns), at
lengths and offsets that are not multiples of the vector width, so both the vector body and the tail run
(at -O3 the helper loops vectorise, so their vector form is what is checked).
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from opbuild.targets.cpu import codegen
from opbuild.targets.cpu.compilers.gcc import BASE_FLAGS
from opbuild.targets.cpu.f16_blocks import PRELUDE_F16_BLOCKS

from .test_soft_half import ALL16, _float32_probes

pytestmark = pytest.mark.slow

HARNESS = r"""
OB_EXPORT void h2f(const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = ob_f16_to_f32(ob_f16_from_bits(h[i]));
}
OB_EXPORT void f2h(const float *f, uint16_t *h, int64_t n) {
  for (int64_t i = 0; i < n; i++) { ob_f16 v = ob_f16_from_f32(f[i]); memcpy(&h[i], &v, 2); }
}
OB_EXPORT void bh2f(const uint16_t *h, float *f, int64_t n) { ob_f16_load_block(f, (const ob_f16 *)h, n); }
OB_EXPORT void bf2h(const float *f, uint16_t *h, int64_t n) { ob_f16_store_block((ob_f16 *)h, f, n); }
OB_EXPORT void ld(const uint16_t *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = ob_f16_ld((const ob_f16 *)h + i);
}
OB_EXPORT void rt(const float *f, float *g, int64_t n) {
  for (int64_t i = 0; i < n; i++) g[i] = ob_f16_to_f32(ob_f16_from_f32(f[i]));
}
OB_EXPORT void fast_rt(const float *f, float *g, int64_t n) {
  for (int64_t i = 0; i < n; i++) g[i] = ob_f16_round(f[i]);
}
OB_EXPORT void block_rt(const float *f, float *g, int64_t n) { memcpy(g, f, n * 4); ob_f16_round_block(g, n); }
OB_EXPORT int vector_path(void) {
#if defined(__F16C__) && defined(__FLT16_MAX__) && !defined(OB_SOFT_HALF)
  return 1;
#else
  return 0;
#endif
}
"""

BUILDS = {"native": ["-march=native"], "soft": ["-march=native", "-DOB_SOFT_HALF"],
          "no_f16c": ["-march=native", "-mno-f16c"]}


@pytest.fixture(scope="module", params=sorted(BUILDS))
def lib(request, tmp_path_factory):
    cc = shutil.which("gcc")
    assert cc, "the kernels need gcc; so does this test"
    d = tmp_path_factory.mktemp(request.param)
    src, out = d / "blocks.c", d / "blocks.so"
    src.write_text(codegen.PRELUDE_CORE + codegen.PRELUDE_STDLIB + codegen.PRELUDE_MATH_HEADERS
                   + codegen.PRELUDE_HALF + PRELUDE_F16_BLOCKS + HARNESS)
    subprocess.run([cc, *BASE_FLAGS, *BUILDS[request.param], str(src), "-o", str(out), "-lm"], check=True,
                   capture_output=True)  # the kernels' flags (-O3, -fno-trapping-math, ...)
    handle = ctypes.CDLL(str(out))
    for name in ("h2f", "f2h", "bh2f", "bf2h", "ld", "rt", "fast_rt", "block_rt"):
        getattr(handle, name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    if request.param != "native":
        assert handle.vector_path() == 0
    return handle


def _call(lib, name: str, x: np.ndarray, out_dtype, start: int = 0, n: int | None = None) -> np.ndarray:
    """``name`` over ``x[start:start + n]`` (an unaligned start when ``start`` is odd)."""
    n = x.size - start if n is None else n
    out = np.zeros(n, out_dtype)
    getattr(lib, name)(x.ctypes.data + start * x.itemsize, out.ctypes.data, n)
    return out


@pytest.mark.parametrize("start,n", [(0, None), (3, 13), (1, 8), (5, 7), (0, 1), (7, 263)])
def test_block_loads_equal_scalar_conversion(lib, start, n):
    """All patterns (NaNs included) at lengths with and without an 8-element tail, unaligned starts."""
    want = _call(lib, "h2f", ALL16, np.float32, start, n).view(np.uint32)
    got = _call(lib, "bh2f", ALL16, np.float32, start, n).view(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(hex(ALL16[start + i]), hex(got[i]), hex(want[i])) for i in bad[:5]]


@pytest.mark.parametrize("start,n", [(0, None), (3, 13), (5, 7), (7, 263)])
def test_block_stores_equal_scalar_conversion(lib, start, n):
    """Every rounding decision (midpoints, ties to even, overflow, subnormals) and a million random floats;
    NaN made quiet the same way."""
    probes = np.concatenate([_float32_probes(), np.array([np.nan, -np.nan], np.float32),
                             np.array([0x7f800001, 0xffc01234], np.uint32).view(np.float32)])
    probes = np.random.default_rng(1).permutation(probes)  # every slice holds midpoints, not only exact halves
    want = _call(lib, "f2h", probes, np.uint16, start, n)
    got = _call(lib, "bf2h", probes, np.uint16, start, n)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(float(probes[start + i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
    if n is None:  # and the scalar conversion is NumPy's rounding (test_soft_half checks it more closely)
        finite = ~np.isnan(probes)
        np.testing.assert_array_equal(want[finite], probes[finite].astype(np.float16).view(np.uint16))


def _probes_with_nans() -> np.ndarray:
    nans = np.array([0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, 0x7fffffff, 0x7fc02001], np.uint32)
    return np.random.default_rng(2).permutation(np.concatenate([_float32_probes(), nans.view(np.float32)]))


def test_element_load_equals_scalar_conversion(lib):
    """ob_f16_ld over all 65,536 patterns, bit for bit (NaNs quiet or signalling, subnormals, -0.0)."""
    for start, n in ((0, None), (5, 301)):
        want = _call(lib, "h2f", ALL16, np.float32, start, n).view(np.uint32)
        got = _call(lib, "ld", ALL16, np.float32, start, n).view(np.uint32)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, [(hex(ALL16[start + i]), hex(got[i]), hex(want[i])) for i in bad[:5]]


def test_round_trip_equals_conversions(lib):
    """ob_f16_round(x) == ob_f16_to_f32(ob_f16_from_f32(x)) bit for bit: every rounding midpoint and its
    neighbours, overflow at 65520, subnormals, signed zeros, NaN payloads; and it is NumPy's round trip."""
    x = _probes_with_nans()
    want = _call(lib, "rt", x, np.float32).view(np.uint32)
    got = _call(lib, "fast_rt", x, np.float32).view(np.uint32)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(hex(x.view(np.uint32)[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
    for start, n in ((0, None), (3, 263)):  # and a block at a time (F16C's pair of conversions), with tails
        blk = _call(lib, "block_rt", x, np.float32, start, n).view(np.uint32)
        np.testing.assert_array_equal(blk, want[start:start + blk.size])
    finite = ~np.isnan(x)
    with np.errstate(over="ignore"):  # NumPy warns where float32 overflows float16 (to inf, as wanted)
        np.testing.assert_array_equal(got[finite], x[finite].astype(np.float16).astype(np.float32).view(np.uint32))


def test_prelude_section_only_where_named_and_hashed_into_every_key():
    """The block helpers join a translation unit only when a kernel names one (float32 kernels parse none of
    it), and their file is part of every kernel's code-generator hash (targets/cpu/sources.py), so editing the C
    text changes every key instead of reusing old binaries."""
    from opbuild.targets.cpu import f16_blocks, kernels

    assert PRELUDE_F16_BLOCKS not in codegen.prelude_for(["void f(void){ out0[0] = ob_f16_from_f32(1.0f); }"])
    assert PRELUDE_F16_BLOCKS in codegen.prelude_for(["void f(void){ ob_f16_load_block(b, in0, 8); }"])
    assert PRELUDE_F16_BLOCKS in codegen.prelude_for(["void f(void){ x = ob_f16_round(y); }"])
    assert f16_blocks.__file__ in kernels.emitter("Add").files()
    assert f16_blocks.__file__ in kernels.emitter("Reshape").files()


def test_float16_kernels_are_generated_blocked():
    """The float16 forms of a map, a broadcast map, a reduction and Softmax convert by blocks; float32 and
    bfloat16 kernels keep their plain loops (bfloat16's shifts vectorise as they are)."""
    from opbuild.core.ir import TensorType
    from opbuild.ops.registry import get
    from opbuild.targets.cpu.kernels import emit

    def body(op: str, shapes, dt: str, attrs=None) -> str:
        d = get(op)
        return emit(d.spec(attrs or {}, [TensorType(s, dt) for s in shapes]))

    for dt, blocked in (("float16", True), ("float32", False), ("bfloat16", False)):
        texts = [body("Add", [(1000,), (1000,)], dt), body("Mul", [(4, 300), (300,)], dt),
                 body("ReduceSum", [(4, 300)], dt, {"axis": [1], "keep_dims": False}), body("Softmax", [(4, 300)], dt)]
        for text in texts:
            assert ("ob_f16_load_block" in text) == blocked, text
