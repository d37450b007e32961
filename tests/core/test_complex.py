"""complex64/complex128 as dtypes: MindSpore's recorded results for the complex elementwise ops, promotion and
data movement (scripts/record_complex_fft.py, replayed here with ``mindspore`` resolving to opbuild), NumPy
round trips, and the clear refusal of every op that does not compute complex numbers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.dtypes import promote_types
from opbuild.core.errors import ShapeError

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = np.load(ROOT / "tests" / "fixtures" / "mindspore" / "complex_fft.npz")


def _recorder():
    """The recording script itself, its ``mindspore`` resolving to opbuild: the same calls MindSpore made."""
    spec = importlib.util.spec_from_file_location("record_complex_fft_on_opbuild",
                                                  ROOT / "scripts" / "record_complex_fft.py")
    saved = sys.modules.get("mindspore")
    sys.modules["mindspore"] = ms
    try:
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        if saved is None:
            del sys.modules["mindspore"]
        else:
            sys.modules["mindspore"] = saved
    return mod


REC = _recorder()
INPUTS = REC.inputs()
CALLS = REC.complex_cases()
# Recorded by MindSpore but refused here, each with an error naming the op (never a different result).
NOT_YET: dict[str, str] = {}
MS_REFUSES = sorted(c[: -len("__error")] for c in FIXTURE.files if c.endswith("__error") and c[:-7] in CALLS)
COMPARED = sorted(c for c in CALLS if c not in NOT_YET and c not in MS_REFUSES)


@pytest.mark.parametrize("case", COMPARED)
def test_matches_mindspore(case):
    got = CALLS[case](INPUTS)
    want = FIXTURE[case]
    assert str(got.dtype) == str(FIXTURE[case + "__dtype"]), (got.dtype, FIXTURE[case + "__dtype"])
    got = got.asnumpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    single = want.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(got, want, rtol=3e-6 if single else 1e-13, atol=1e-6 if single else 1e-13)


@pytest.mark.parametrize("case", MS_REFUSES + sorted(NOT_YET))
def test_refused_by_name(case):
    with pytest.raises((ShapeError, TypeError), match="complex64|complex128|Complex"):
        CALLS[case](INPUTS)


def test_mindspore_refuses_what_opbuild_refuses():
    assert set(MS_REFUSES) == {"relu.c64", "max.c64"}


def test_promotion_is_mindspore_s():
    c64, c128, f32, f64, i32 = (ms.complex64, ms.complex128, ms.float32, ms.float64, ms.int32)
    assert promote_types(c64, f32) == c64 and promote_types(f32, c64) == c64
    assert promote_types(c64, f64) == c128 and promote_types(c64, i32) == c64
    assert promote_types(c64, c128) == c128 and promote_types(c128, f32) == c128
    assert promote_types(c64, ms.float16) == c64 and promote_types(ms.bool_, c64) == c64


def test_numpy_round_trip_and_names():
    z = np.array([[1 + 2j, -0.5j], [np.inf + 1j, np.nan]], np.complex128)
    t = ms.Tensor(z)
    assert t.dtype == ms.complex128 and str(t.dtype) == "Complex128" and t.is_complex()
    np.testing.assert_array_equal(t.asnumpy(), z)
    assert ms.tensor([1 + 2j, 3j]).dtype == ms.complex128  # as MindSpore infers Python complex
    assert ms.Tensor(z.astype(np.complex64)).asnumpy().dtype == np.complex64
    assert ms.common.dtype.cfloat is ms.complex64 and ms.dtype_to_nptype(ms.complex128) is np.complex128


def test_complex_parts_keep_infinities():
    re = np.array([np.inf, 1.0, -np.inf], np.float32)
    im = np.array([1.0, np.inf, np.nan], np.float32)
    z = ops.Complex()(ms.Tensor(re), ms.Tensor(im)).asnumpy()
    np.testing.assert_array_equal(z.real, re)
    np.testing.assert_array_equal(z.imag, im)


def test_graph_mode_complex_chain():
    """A complex chain inside a graph (fusion leaves complex maps alone): |exp(z) * conj(z)| against NumPy."""
    class Net(ms.nn.Cell):
        def construct(self, z):
            return ops.real(ops.exp(z) * ops.conj(z)) + ops.imag(z * z)

    z = INPUTS["c64"]
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = Net()(ms.Tensor(z)).asnumpy()
    finally:
        ms.set_context(mode=old)
    want = (np.exp(z.astype(np.complex128)) * np.conj(z)).real + (z.astype(np.complex128) ** 2).imag
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)


def _numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


_R = np.random.default_rng(3)
_Y, _W = _R.standard_normal((2, 4)), _R.standard_normal((2, 4))
GRADS = {
    # a real variable as the real or the imaginary part of a complex tensor, through each non-holomorphic op
    "ComplexAbs": (lambda a: ops.sum(ops.ComplexAbs()(ops.Complex()(a, ms.Tensor(_Y))) * ms.Tensor(_W)),
                   lambda a: (np.abs(a + 1j * _Y) * _W).sum()),
    "angle": (lambda a: ops.sum(ops.angle(ops.Complex()(ms.Tensor(_Y), a)) * ms.Tensor(_W)),
              lambda a: (np.angle(_Y + 1j * a) * _W).sum()),
    "abs": (lambda a: ops.sum(ops.real(ops.abs(ops.Complex()(ms.Tensor(_Y), a))) * ms.Tensor(_W)),
            lambda a: (np.abs(_Y + 1j * a) * _W).sum()),
    "matmul": (lambda a: ops.sum(ops.imag(ops.matmul(ops.Complex()(a, ms.Tensor(_Y)),
                                                      ops.Complex()(ms.Tensor(_W.T), ops.transpose(a, (1, 0)))))),
               lambda a: ((a + 1j * _Y) @ (_W.T + 1j * a.T)).imag.sum()),
    "exp_conj_mean": (lambda a: ops.real(ops.mean(ops.exp(ops.Complex()(a, ms.Tensor(_Y))) * ops.conj(
        ops.Complex()(ms.Tensor(_W), a)))), lambda a: (np.exp(a + 1j * _Y) * np.conj(_W + 1j * a)).real.mean()),
}


@pytest.mark.parametrize("case", sorted(GRADS))
def test_gradients_through_complex_values(case):
    """Gradients of real losses with respect to a real tensor placed inside complex ones, against central
    differences (the convention-independent check: docs/fft.md)."""
    f, ref = GRADS[case]
    x = np.random.default_rng(4).standard_normal((2, 4))
    np.testing.assert_allclose(ms.grad(f)(ms.Tensor(x)).asnumpy(), _numeric_grad(ref, x), rtol=1e-6, atol=1e-7)


def test_tensor_methods_of_the_complex_parts():
    z = INPUTS["c64"]
    t = ms.Tensor(z)
    np.testing.assert_array_equal(t.real().asnumpy(), z.real)
    np.testing.assert_array_equal(t.imag().asnumpy(), z.imag)
    np.testing.assert_array_equal(t.conj().asnumpy(), np.conj(z))
    np.testing.assert_allclose(t.angle().asnumpy(), np.angle(z), rtol=1e-6, atol=1e-7)


def test_creation_of_complex_tensors():
    z = ms.Tensor(INPUTS["c64"][:, :1])
    assert ops.ones((2,), ms.complex64).asnumpy().tolist() == [1 + 0j, 1 + 0j]
    assert ops.zeros((2,), ms.complex128).asnumpy().dtype == np.complex128
    assert ops.full((2,), 1 - 2j, dtype=ms.complex64).asnumpy().tolist() == [1 - 2j, 1 - 2j]
    np.testing.assert_array_equal(ops.ones_like(z).asnumpy(), np.ones_like(INPUTS["c64"][:, :1]))
    np.testing.assert_array_equal(ops.zeros_like(z).asnumpy(), np.zeros((3, 1), np.complex64))
    np.testing.assert_array_equal(ops.broadcast_to(z, (3, 4)).asnumpy(),
                                  np.broadcast_to(INPUTS["c64"][:, :1], (3, 4)))
    inf = ops.Fill()(ms.complex64, (1,), float("inf")).asnumpy()
    assert inf[0].real == np.inf and inf[0].imag == 0


@pytest.mark.parametrize("name", ["c64", "c128"])
def test_checkpoints_of_mindspore_byte_for_byte(name, tmp_path):
    """MindSpore-written complex checkpoints load with their values and save back to the same bytes (MindSpore
    2.10 writes them, though its own load_checkpoint fails on them)."""
    src = ROOT / "tests" / "fixtures" / "mindspore" / "ckpt_complex" / f"{name}.ckpt"
    loaded = ms.load_checkpoint(str(src))
    np.testing.assert_array_equal(loaded["c"].asnumpy(), INPUTS[name])
    assert loaded["scalar"].asnumpy() == np.array(1.5 - 2j, INPUTS[name].dtype)
    out = tmp_path / "again.ckpt"
    ms.save_checkpoint([loaded["c"], loaded["scalar"]], str(out))
    assert out.read_bytes() == src.read_bytes()
