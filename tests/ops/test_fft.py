"""The FFT family against MindSpore 2.10's recorded outputs (scripts/record_complex_fft.py) and numpy.fft, in
PyNative and graph mode, and the cache contract of its kernels (ordinary entries, pocketfft in the key)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import ShapeError

# Builds about a hundred FFT kernels (each carrying pocketfft) and spawns processes for the cache test.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = np.load(ROOT / "tests" / "fixtures" / "mindspore" / "complex_fft.npz")
_spec = importlib.util.spec_from_file_location("record_complex_fft_recipe", ROOT / "scripts" / "record_complex_fft.py")


def _recipe():
    """The recorder's own input recipe and case table, read without importing MindSpore: the module is
    executed with a stand-in ``mindspore`` that only the recorder's main() would use."""
    import sys
    import types

    fake = types.ModuleType("mindspore")
    fake.Tensor, fake.ops = object, types.SimpleNamespace()
    saved = sys.modules.get("mindspore")
    sys.modules["mindspore"] = fake
    try:
        mod = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(mod)
    finally:
        if saved is None:
            del sys.modules["mindspore"]
        else:
            sys.modules["mindspore"] = saved
    return mod


RECIPE = _recipe()
INPUTS = RECIPE.inputs()
CASES = RECIPE.cases()


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    single = want.dtype in (np.float32, np.complex64)
    scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=2e-5 if single else 1e-12, atol=(2e-5 if single else 1e-12) * scale)


# MindSpore 2.10 gives wrong rows for a real-to-complex transform (rfft, ihfft and their N-D forms) of a complex
# input of rank > 1 (its result is the full transform's buffer cut short); opbuild refuses those inputs.
REFUSED = sorted(c for c, (fn, x, _) in CASES.items()
                 if fn in ("rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn")
                 and INPUTS[x].dtype.kind == "c" and INPUTS[x].ndim > 1)
COMPARED = sorted(set(CASES) - set(REFUSED))


class _All(nn.Cell):
    """Every compared case in one graph, so their kernels build in a few batched compiler calls (each FFT
    translation unit carries pocketfft once)."""

    def construct(self, *xs):
        by_name = dict(zip(sorted(INPUTS), xs, strict=True))
        return tuple(getattr(ops, CASES[c][0])(by_name[CASES[c][1]], **CASES[c][2]) for c in COMPARED)


@pytest.fixture(scope="module")
def graph_results() -> dict[str, np.ndarray]:
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        outs = _All()(*(ms.Tensor(INPUTS[k]) for k in sorted(INPUTS)))
    finally:
        ms.set_context(mode=old)
    return {c: o.asnumpy() for c, o in zip(COMPARED, outs, strict=True)}


@pytest.mark.parametrize("case", COMPARED)
def test_matches_mindspore(case, graph_results):
    """Graph mode (all cases in one graph) and PyNative (the same kernels, from the memory tier)."""
    fn, x, kw = CASES[case]
    want = FIXTURE[case]
    _close(graph_results[case], want)
    _close(getattr(ops, fn)(ms.Tensor(INPUTS[x]), **kw).asnumpy(), want)


@pytest.mark.parametrize("case", REFUSED)
def test_complex_input_of_real_transforms_is_refused(case):
    fn, x, kw = CASES[case]
    with pytest.raises(TypeError, match=f"ops.{fn}: a complex input of rank > 1 is not supported"):
        getattr(ops, fn)(ms.Tensor(INPUTS[x]), **kw)


class _Fft(nn.Cell):
    def __init__(self, fn, kw):
        super().__init__()
        self.fn, self.kw = fn, kw

    def construct(self, x):
        return self.fn(x, **self.kw)


@pytest.mark.parametrize("case", ["fft.c64", "irfft.f64", "hfft.v.n11", "rfftn.cube.s", "fftshift.c64"])
def test_one_op_graph_matches_mindspore(case):
    fn, x, kw = CASES[case]
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _Fft(getattr(ops, fn), kw)(ms.Tensor(INPUTS[x])).asnumpy()
    finally:
        ms.set_context(mode=old)
    _close(got, FIXTURE[case])


@pytest.mark.parametrize("n", [1, 2, 7, 13, 16, 97, 210, 1009])
def test_sizes_against_numpy(n):
    """Prime (Bluestein), smooth and power-of-two lengths, in double precision against numpy.fft."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))
    np.testing.assert_allclose(ops.fft(ms.Tensor(x)).asnumpy(), np.fft.fft(x), rtol=1e-10, atol=1e-10 * n)
    np.testing.assert_allclose(ops.ifft(ms.Tensor(x), dim=0).asnumpy(), np.fft.ifft(x, axis=0), rtol=1e-10,
                               atol=1e-12)
    r = x.real
    np.testing.assert_allclose(ops.rfft(ms.Tensor(r)).asnumpy(), np.fft.rfft(r), rtol=1e-10, atol=1e-10 * n)
    m = 2 * n
    np.testing.assert_allclose(ops.irfft(ms.Tensor(x), n=m).asnumpy(), np.fft.irfft(x, n=m), rtol=1e-10,
                               atol=1e-12)


def test_freqs_match_mindspore():
    _close(ops.fftfreq(5).asnumpy(), FIXTURE["fftfreq.5"])
    _close(ops.fftfreq(8, 0.1).asnumpy(), FIXTURE["fftfreq.8.d"])
    _close(ops.fftfreq(5, dtype=ms.float64).asnumpy(), FIXTURE["fftfreq.5.f64"])
    _close(ops.rfftfreq(7, 0.5).asnumpy(), FIXTURE["rfftfreq.7"])
    _close(ops.rfftfreq(8).asnumpy(), FIXTURE["rfftfreq.8"])


def test_bad_arguments_are_clear_errors():
    x = ms.Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="ops.fft: norm must be one of"):
        ops.fft(x, norm="bad")
    with pytest.raises(ValueError, match="ops.fft: n must be an integer greater than 0"):
        ops.fft(x, n=0)
    with pytest.raises(ValueError, match="ops.fft: dim 3 is out of range"):
        ops.fft(x, dim=3)
    with pytest.raises(TypeError, match="ops.rfft: input must be a float, integer or complex tensor, got bool"):
        ops.rfft(ms.Tensor(np.array([True, False])))
    with pytest.raises(ValueError, match="ops.fft2: s and dim must have the same length"):
        ops.fft2(ms.Tensor(np.ones((2, 2), np.float32)), s=(2,))
    with pytest.raises(ValueError, match="ops.irfft: the output length"):
        ops.irfft(ms.Tensor(np.ones(1, np.complex64)))


def test_complex_input_to_a_real_only_op_is_refused_by_name():
    spectrum = ops.fft(ms.Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(ShapeError, match="ReLU: dtype complex64 is not supported by ReLU"):
        ops.relu(spectrum)
    assert "max.c64__error" in FIXTURE.files  # MindSpore refuses it too
    with pytest.raises(ShapeError, match="ReduceMax: dtype complex64 is not supported"):
        ops.max(spectrum)


def test_kernels_are_ordinary_cache_entries(tmp_path, monkeypatch):
    """An FFT kernel is built once, named after its op, and reused by a new process's lookup; its key names
    pocketfft through the generator files (fft_prelude.py pins the vendored sources)."""
    from opbuild.targets.cpu import fft_prelude, kernels

    assert fft_prelude.__file__ in kernels.emitter("FFTN").files()
    cache = tmp_path / "cache"
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(cache))
    from ..conftest import run_python

    code = ("import numpy as np, opbuild as ms\n"
            "from opbuild import ops\n"
            "x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))\n"
            "y = ops.rfft(x, n=6)\n"
            "print(y.asnumpy()[1, 1])\n")
    first = run_python(code, env={"OPBUILD_CACHE_PATH": str(cache)})
    entries = {p.name: p.stat().st_mtime_ns for p in (cache / "rank_0" / "kernel_meta").glob("fftn_*.so")}
    assert len(entries) == 1, entries
    second = run_python(code, env={"OPBUILD_CACHE_PATH": str(cache)})
    # reused, not rebuilt: the same single entry, its binary untouched
    assert {p.name: p.stat().st_mtime_ns for p in (cache / "rank_0" / "kernel_meta").glob("fftn_*.so")} == entries
    assert first.stdout.split()[-1] == second.stdout.split()[-1]


def _numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


_RNG = np.random.default_rng(0)
_W1, _W2 = _RNG.standard_normal((3, 8)), _RNG.standard_normal((3, 8))
GRAD_CASES = {
    # real input -> complex spectrum (cut/padded) -> real loss through ops.real/ops.imag
    "fft_n": (lambda t: ops.sum(ops.real(ops.fft(t, n=8)) * ms.Tensor(_W1)
                                + ops.imag(ops.fft(t, n=8)) * ms.Tensor(_W2)),
              lambda a: (np.fft.fft(a, 8).real * _W1 + np.fft.fft(a, 8).imag * _W2).sum()),
    "rfft_ortho": (lambda t: ops.sum(ops.real(ops.rfft(t, norm="ortho")) * ms.Tensor(_W1[:, :4])
                                     + ops.imag(ops.rfft(t, norm="ortho")) * ms.Tensor(_W2[:, :4])),
                   lambda a: (np.fft.rfft(a, norm="ortho").real * _W1[:, :4]
                              + np.fft.rfft(a, norm="ortho").imag * _W2[:, :4]).sum()),
    # a complex half spectrum back to a real signal (odd length), and the 2-D Hermitian transform
    "irfft_odd": (lambda t: ops.sum(ops.irfft(ops.fft(t), n=7) * ms.Tensor(_W1[:, :7])),
                  lambda a: (np.fft.irfft(np.fft.fft(a), n=7) * _W1[:, :7]).sum()),
    "hfft2": (lambda t: ops.sum(ops.hfft2(ops.ifft(t, dim=0)) * ms.Tensor(_W1[:, :1])),
              lambda a: (np.fft.irfft2(np.conj(np.fft.ifft(a, axis=0)), norm="forward") * _W1[:, :1]).sum()),
    # |F x|^2 through conj and a complex product
    "fftn_power": (lambda t: ops.sum(ops.real(ops.fftn(t) * ops.conj(ops.fftn(t)))),
                   lambda a: (np.abs(np.fft.fftn(a)) ** 2).sum()),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(case):
    """Gradients of real losses through complex spectra, against central differences of numpy.fft."""
    f, ref = GRAD_CASES[case]
    x = np.random.default_rng(1).standard_normal((3, 6))
    got = ms.grad(f)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _numeric_grad(ref, x), rtol=1e-6, atol=1e-7)
