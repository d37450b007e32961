"""Cast to and from the storage-only formats (float8 x4, float4_e2m1fn, int4/uint4/int2/uint2; ops/lowp.py),
bit for bit against ml_dtypes' astype, which is also the Cast reference (constant folding uses it)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.dtypes import LOWP, LOWP_FLOATS
from opbuild.ops.elementwise import cast_reference

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("graph_mode")]

_RNG = np.random.default_rng(0)
# Every float16 value (ties and subnormals of every small format are among them), random float32 of several
# magnitudes, and the edges: each format's rounding boundary above its largest value, infinities, NaN, -0.
_F32 = np.concatenate([np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32),
                       (_RNG.standard_normal(512) * 300).astype(np.float32),
                       np.array([464, 465, 463.9, 480, 61440, 57344, 240, 248, 256, 5, 7, 1e30, -1e30,
                                 np.inf, -np.inf, np.nan, -0.0], np.float32)])


def _cast(x: np.ndarray, dt: str) -> np.ndarray:
    return ops.Cast()(ms.Tensor(x), dt).asnumpy()


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dst", LOWP)
@pytest.mark.parametrize("src", ["float32", "float16", "bfloat16", "float64"])
def test_float_to_small_format_is_ml_dtypes_bit_for_bit(src: str, dst: str) -> None:
    with np.errstate(all="ignore"):
        x = _F32.astype(np.dtype(src))
        want = x.astype(np.dtype(dst))
    got = _cast(x, dst)
    assert _same_bits(got, want), np.flatnonzero(got.view(np.uint8) != want.view(np.uint8))[:5]
    assert _same_bits(cast_reference(x, dst), want)


@pytest.mark.parametrize("dst", ["int4", "uint4", "int2", "uint2", "float8_e4m3fn", "float8_e5m2"])
def test_integers_to_small_format(dst: str) -> None:
    x = np.arange(-600, 600, dtype=np.int32)
    want = x.astype(np.dtype(dst))  # integers wrap modulo 2^bits; floats round (ml_dtypes)
    assert _same_bits(_cast(x, dst), want)


def _all_codes(name: str) -> np.ndarray:
    if name in LOWP_FLOATS:
        return np.arange(16 if name.startswith("float4") else 256, dtype=np.uint8).view(np.dtype(name))
    lo, hi = ml_dtypes.iinfo(np.dtype(name)).min, ml_dtypes.iinfo(np.dtype(name)).max
    return np.arange(int(lo), int(hi) + 1).astype(np.dtype(name))


@pytest.mark.parametrize("src", LOWP)
@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "bfloat16", "int32", "uint8", "bool", "int4",
                                 "float8_e5m2"])
def test_every_code_of_a_small_format_converts_as_the_reference(src: str, dst: str) -> None:
    codes = _all_codes(src)
    got = _cast(codes, dst)
    assert _same_bits(got, cast_reference(codes, dst))
    if dst.startswith("float") and dst != "float8_e5m2":  # decoding is exact: ml_dtypes agrees
        assert _same_bits(got, codes.astype(np.dtype(dst)))


def test_same_format_cast_keeps_every_code() -> None:
    codes = _all_codes("float8_e5m2")  # several NaN codes: a copy, not a re-encoding
    assert _same_bits(_cast(codes, "float8_e5m2"), codes)


def test_arithmetic_rejects_storage_only_formats() -> None:
    x = ms.Tensor(np.zeros(3, ml_dtypes.float8_e4m3fn))
    with pytest.raises(Exception, match="float8_e4m3fn is not supported"):
        ops.Add()(x, x)


def test_nan_to_integer_is_zero_in_the_reference() -> None:
    """The Cast reference matches the kernel's documented rule (NaN -> 0), not NumPy's undefined result."""
    x = np.array([np.nan, 1e20, -1e20, 2.7], np.float32)
    np.testing.assert_array_equal(cast_reference(x, "int32"), [0, 2**31 - 1, -2**31, 2])
    np.testing.assert_array_equal(_cast(x, "int32"), [0, 2**31 - 1, -2**31, 2])
