"""Multinomial, RandomShuffle and RandpermV2 (ops/random_discrete.py) and ops.multinomial/shuffle/randperm:
kernels against their NumPy references, frequencies against the weights and MindSpore 2.10's (fixture),
permutation properties, seeding, dtypes, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import opbuild as ms
from opbuild import Tensor, ops
from opbuild.core.errors import ShapeError
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "linalg_random.npz"
PROBS = np.array([[0.1, 0.2, 0.7], [0.5, 0.0, 0.5]], np.float32)
STATE = np.array([31, 4], np.int64)


@pytest.mark.parametrize("replacement,k", [(True, 40), (False, 3)])
def test_multinomial_kernel_matches_reference(replacement, k):
    w = np.abs(np.random.default_rng(2).standard_normal((5, 6))).astype(np.float32)
    attrs = {"num_samples": k, "replacement": replacement, "dtype": "int32"}
    got = apply("Multinomial", attrs, [Tensor(STATE), Tensor(w)]).asnumpy()
    np.testing.assert_array_equal(got, get_op("Multinomial").reference(attrs, STATE, w))
    if not replacement:
        assert all(len(set(row)) == k for row in got.tolist())


def test_multinomial_frequencies_match_weights_and_mindspore():
    ms.set_seed(3)
    draws = ops.multinomial(Tensor(PROBS), 20000).asnumpy()
    ref = np.load(FIXTURE)
    assert str(draws.dtype) == str(ref["multinomial_dtype"]) and draws.shape == (2, 20000)
    freq = np.stack([np.bincount(row, minlength=3) / row.size for row in draws])
    np.testing.assert_allclose(freq, ref["multinomial_freq"], atol=0.02)
    assert stats.chisquare(np.bincount(draws[0], minlength=3), PROBS[0] * 20000).pvalue > 1e-3
    assert (draws[1] != 1).all()  # a zero weight is never drawn
    no_repl = ops.multinomial(Tensor(PROBS), 2, replacement=False).asnumpy()
    assert sorted(no_repl[1].tolist()) == sorted(ref["multinomial_norepl"][1].tolist()) == [0, 2]
    one_d = ops.multinomial(Tensor(np.array([0.2, 0.8], np.float32)), 3)
    assert one_d.shape == (3,)


def test_shuffle_permutes_rows_reproducibly():
    x = np.arange(40).reshape(10, 4).astype(np.float32)
    got = apply("RandomShuffle", {}, [Tensor(STATE), Tensor(x)]).asnumpy()
    np.testing.assert_array_equal(got, get_op("RandomShuffle").reference({}, STATE, x))
    assert sorted(got[:, 0].tolist()) == x[:, 0].tolist() and not np.array_equal(got, x)
    ms.set_seed(4)
    a = ops.shuffle(Tensor(x)).asnumpy()
    ms.set_seed(4)
    assert np.array_equal(ops.shuffle(Tensor(x)).asnumpy(), a)
    # a seeded object draws MindSpore's stream (tests/compat/test_random_streams.py): the same seeds repeat it,
    # and the object's generator goes on across calls
    first = ops.RandomShuffle(seed=9)(Tensor(x)).asnumpy()
    prim = ops.RandomShuffle(seed=9)
    assert np.array_equal(prim(Tensor(x)).asnumpy(), first) and not np.array_equal(prim(Tensor(x)).asnumpy(), first)
    assert sorted(first[:, 0].tolist()) == x[:, 0].tolist()


def test_randperm_is_a_function_of_seed_and_offset():
    ref = np.load(FIXTURE)
    p = ops.randperm(7, seed=3)
    assert str(p.asnumpy().dtype) == str(ref["randperm_dtype"])
    np.testing.assert_array_equal(np.sort(p.asnumpy()), ref["randperm_sorted"])
    assert np.array_equal(ops.randperm(7, seed=3).asnumpy(), p.asnumpy())
    assert not np.array_equal(ops.randperm(7, seed=3, offset=1).asnumpy(), p.asnumpy())
    assert str(ops.randperm(4, dtype=ms.float32).asnumpy().dtype) == str(ref["randperm_f32_dtype"])
    np.testing.assert_array_equal(ops.RandpermV2(seed=3)(7).asnumpy(), p.asnumpy())
    # Every position is uniform over the values: positions of 0 across many seeds.
    firsts = [int(ops.randperm(5, seed=s).asnumpy()[0]) for s in range(400)]
    assert stats.chisquare(np.bincount(firsts, minlength=5)).pvalue > 1e-3


def test_errors():
    with pytest.raises(ShapeError, match="num_samples"):
        ops.multinomial(Tensor(PROBS), 0)
    with pytest.raises(ShapeError, match="cannot exceed"):
        ops.multinomial(Tensor(PROBS), 4, replacement=False)
    with pytest.raises(ShapeError, match="1-D or 2-D"):
        ops.multinomial(Tensor(np.ones((2, 2, 2), np.float32)), 1)
    with pytest.raises(ValueError, match="seed"):
        ops.randperm(3, seed=-1)
    with pytest.raises(ShapeError, match="dtype"):
        ops.randperm(3, dtype=ms.bool_)
