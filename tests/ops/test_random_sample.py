"""The random sampling family (ops/random_sample.py) and its functional API: kernels against their NumPy
references, distributions (moments and Kolmogorov-Smirnov against the exact laws, moments against MindSpore
2.10's samples in tests/fixtures/mindspore/linalg_random.npz), MindSpore's seeding rules, dtypes, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "linalg_random.npz"
N = 20000


def _state(seed: int, counter: int = 0) -> Tensor:
    return Tensor(np.array([seed, counter], np.int64))


@pytest.mark.parametrize("op", ["StandardNormal", "UniformReal", "StandardLaplace"])
def test_kernels_match_their_references(op):
    attrs = {"shape": (7, 33)}
    got = apply(op, attrs, [_state(12345, 3)]).asnumpy()
    want = get_op(op).reference(attrs, np.array([12345, 3], np.int64))
    assert got.dtype == np.float32 and got.shape == (7, 33)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    other = apply(op, attrs, [_state(12345, 4)]).asnumpy()
    assert not np.array_equal(got, other)


def test_uniform_int_kernel_matches_reference():
    lo, hi = np.array(-3, np.int32), np.array(9, np.int32)
    got = apply("UniformInt", {"shape": (500,)}, [_state(9), Tensor(lo), Tensor(hi)]).asnumpy()
    want = get_op("UniformInt").reference({"shape": (500,)}, np.array([9, 0]), lo, hi)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    assert got.min() == -3 and got.max() == 8


@pytest.mark.parametrize("name,dist", [
    ("randn", stats.norm()), ("rand", stats.uniform()), ("standard_normal", stats.norm()),
    ("normal", stats.norm(2.0, 3.0)), ("uniform", stats.uniform(-1.0, 4.0)), ("laplace", stats.laplace(1.0, 2.0))])
def test_distributions_pass_ks_and_match_mindspore_moments(name, dist):
    ms.set_seed(7)
    f32 = Tensor(np.float32(0))
    draw = {
        "randn": lambda: ops.randn(N, 2), "rand": lambda: ops.rand(N, 2),
        "standard_normal": lambda: ops.standard_normal((N, 2)),
        "normal": lambda: ops.normal((N, 2), f32 + 2.0, f32 + 3.0),
        "uniform": lambda: ops.uniform((N, 2), f32 - 1.0, f32 + 3.0),
        "laplace": lambda: ops.laplace((N, 2), f32 + 1.0, f32 + 2.0),
    }[name]
    x = draw().asnumpy()
    ref = np.load(FIXTURE)
    assert list(x.shape) == ref[f"rand_{name}_shape"].tolist() and str(x.dtype) == str(ref[f"rand_{name}_dtype"])
    assert stats.kstest(x.ravel(), dist.cdf).pvalue > 1e-3
    mean, std = x.astype(np.float64).mean(), x.astype(np.float64).std()
    ms_mean, ms_std = ref[f"rand_{name}_moments"][:2]
    # Two samples of 40000 draws: their means differ by a few standard errors at most.
    se = ms_std / np.sqrt(x.size)
    assert abs(mean - ms_mean) < 6 * se * np.sqrt(2) and abs(std - ms_std) < 0.05 * ms_std


@pytest.mark.parametrize("name", ["uniform_int", "randint"])
def test_integer_draws_match_mindspore(name):
    ms.set_seed(7)
    x = (ops.uniform((N, 2), Tensor(np.int32(1)), Tensor(np.int32(7)), dtype=ms.int32) if name == "uniform_int"
         else ops.randint(1, 7, (N, 2))).asnumpy()
    ref = np.load(FIXTURE)
    assert str(x.dtype) == str(ref[f"rand_{name}_dtype"])
    assert x.min() == 1 and x.max() == 6
    counts = np.bincount(x.ravel(), minlength=7)[1:]
    assert stats.chisquare(counts).pvalue > 1e-3
    assert abs(x.mean() - ref[f"rand_{name}_moments"][0]) < 0.06


def test_set_seed_repeats_and_calls_advance():
    ms.set_seed(1)
    a, b = ops.randn(5).asnumpy(), ops.randn(5).asnumpy()
    c = ops.rand(5, seed=3).asnumpy()
    ms.set_seed(1)
    assert np.array_equal(ops.randn(5).asnumpy(), a) and np.array_equal(ops.randn(5).asnumpy(), b)
    assert np.array_equal(ops.rand(5, seed=3).asnumpy(), c)
    assert not np.array_equal(a, b)
    ms.set_seed(2)
    assert not np.array_equal(ops.randn(5).asnumpy(), a)


def test_primitive_seeds_follow_mindspore_rules():
    ms.set_seed(0)
    p1, p2 = ops.StandardNormal(seed=4, seed2=5), ops.StandardNormal(seed=4, seed2=5)
    first = p1((6,)).asnumpy()
    assert np.array_equal(first, p2((6,)).asnumpy())  # same op seeds: same stream
    assert not np.array_equal(first, p1((6,)).asnumpy())  # a primitive advances at each call
    assert not np.array_equal(first, ops.StandardNormal(seed=4, seed2=6)((6,)).asnumpy())
    ms.set_seed(5)  # MindSpore's primitives with op seeds ignore the global seed (in PYNATIVE_MODE)
    assert np.array_equal(first, ops.StandardNormal(seed=4, seed2=5)((6,)).asnumpy())


class _Sampler(nn.Cell):
    def construct(self, x):
        return x + ops.randn(3)


def test_graph_draws_fresh_values_per_call_and_repeats_after_set_seed(graph_mode):
    ms.set_seed(11)
    net = _Sampler()
    zero = Tensor(np.zeros(3, np.float32))
    a, b = net(zero).asnumpy(), net(zero).asnumpy()
    assert not np.array_equal(a, b)
    ms.set_seed(11)
    net = _Sampler()
    assert np.array_equal(net(zero).asnumpy(), a)


def test_dtypes_and_errors():
    assert ops.randn(2, 3, dtype=ms.float64).dtype == ms.float64
    assert ops.rand((2, 3)).shape == (2, 3)
    assert ops.randint(0, 3, (4,), dtype=ms.int32).dtype == ms.int32
    with pytest.raises(ValueError, match="less than"):
        ops.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="float"):
        ops.randn(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="seed"):
        ops.randn(2, seed=-1)
    with pytest.raises(ValueError, match="non-negative"):
        ops.rand(-1)
    with pytest.raises(ValueError, match="seed"):
        ops.UniformReal(seed=-2)
