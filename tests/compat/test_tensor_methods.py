"""The Tensor methods opbuild computes where MindSpore 2.10's CPU backend has no kernel (so the recorded
fixtures hold MindSpore's error, not a value): checked against NumPy, in both modes where they are pure."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms

from ._util import run

X = np.array([[1.5, -2.0, 3.0], [-4.0, 5.5, -6.0]], np.float32)


@pytest.mark.parametrize("name,fn,ref", [
    ("clone", lambda t: t.clone(), lambda x: x),
    ("repeat", lambda t: t.repeat(2), lambda x: np.repeat(x, 2)),
    ("repeat_axis", lambda t: t.repeat(2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
    ("roll", lambda t: t.roll(1, 1), lambda x: np.roll(x, 1, 1)),
    ("roll_flat", lambda t: t.roll(2), lambda x: np.roll(x, 2)),
    ("roll_two", lambda t: t.roll((1, -1), (0, 1)), lambda x: np.roll(x, (1, -1), (0, 1))),
    ("floor_divide", lambda t: t.floor_divide(2.0), lambda x: np.floor_divide(x, 2.0)),
    ("addcdiv", lambda t: t.addcdiv(t, t * 0 + 4.0, value=2), lambda x: x + 2 * x / 4.0),
    ("log_softmax", lambda t: t.log_softmax(1),
     lambda x: x - x.max(1, keepdims=True) - np.log(np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True))),
    ("cumsum", lambda t: t.cumsum(1), lambda x: np.cumsum(x, 1)),
    ("sign", lambda t: t.sign(), np.sign),
])
def test_method_matches_numpy(mode, name, fn, ref):
    np.testing.assert_allclose(run(mode, fn, X), ref(X), rtol=1e-5, atol=1e-6)


def test_integer_cumsum_stays_integer(mode):
    out = run(mode, lambda t: t.cumsum(0), np.array([3, 1, 2], np.int32))
    assert out.dtype == np.int32 and out.tolist() == [3, 4, 6]


def test_in_place_fills(pynative_mode):
    t = ms.tensor(X)
    assert t.fill_(2.5) is t and t.asnumpy().tolist() == [[2.5] * 3] * 2
    assert t.zero_() is t and not t.asnumpy().any()


def test_fmin_fmax_ignore_nan(mode):
    a = np.array([1.0, np.nan, np.nan, 4.0], np.float32)
    b = np.array([np.nan, 2.0, np.nan, 3.0], np.float32)
    lo, hi = run(mode, lambda x, y: (x.fmin(y), x.fmax(y)), a, b)
    np.testing.assert_array_equal(lo, np.fmin(a, b))
    np.testing.assert_array_equal(hi, np.fmax(a, b))


def test_in_place_variants(pynative_mode):
    t = ms.tensor([-1.0, 2.0, 0.5])
    assert t.clamp_(0.0, 1.0) is t and t.tolist() == [0.0, 1.0, 0.5]
    assert t.masked_fill_(ms.tensor([True, False, False]), 9.0) is t and t.tolist() == [9.0, 1.0, 0.5]
    assert t.copy_(ms.tensor([4, 5, 6], ms.int32)) is t and t.tolist() == [4.0, 5.0, 6.0] and t.dtype == ms.float32
    assert t.new_full((2,), 7.0).tolist() == [7.0, 7.0]


@pytest.mark.parametrize("descending", [False, True])
def test_sort_topk_match_numpy_in_both_modes(mode, descending):
    x = np.random.default_rng(5).permutation(24).reshape(4, 6).astype(np.float32)  # distinct values
    values, indices = run(mode, lambda t: t.sort(axis=1, descending=descending), x)
    order = np.argsort(-x if descending else x, axis=1, kind="stable")
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))
    top, idx = run(mode, lambda t: t.topk(3, dim=0, largest=not descending), x)
    want = np.argsort(x if descending else -x, axis=0, kind="stable")[:3]
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(top, np.take_along_axis(x, want, 0))
    assert indices.dtype == np.int32 and idx.dtype == np.int32


def test_sort_keeps_ties_in_order(pynative_mode):
    values, indices = ms.tensor([2, 1, 2, 1], ms.int32).sort()
    assert values.tolist() == [1, 1, 2, 2] and indices.tolist() == [1, 3, 0, 2]


def test_cumprod_is_exact_with_zeros_and_negatives(mode):
    x = np.array([[2, -3, 0, 4, -1, 5, 2], [1, 1, -2, 3, 3, 1, -1]], np.int32)
    np.testing.assert_array_equal(run(mode, lambda t: t.cumprod(1), x), np.cumprod(x, 1))
    f = np.array([1.5, -2.0, 0.5], np.float32)
    np.testing.assert_allclose(run(mode, lambda t: t.cumprod(0), f), np.cumprod(f))


def test_bitwise_on_bool_is_logical_and_on_integers_bitwise(pynative_mode):
    a, b = ms.tensor([True, True, False]), ms.tensor([True, False, False])
    assert a.bitwise_and(b).tolist() == [True, False, False] and a.bitwise_xor(b).tolist() == [False, True, False]
    assert (a & b).tolist() == [True, False, False] and (a ^ b).tolist() == [False, True, False]
    x, y = ms.tensor([5, 3, -1], ms.int16), ms.tensor([3, 1, 6], ms.int16)
    assert x.bitwise_and(y).tolist() == [1, 1, 6] and (x | y).tolist() == [7, 3, -1]
    assert (x ^ y).tolist() == [6, 2, -7] and (x & y).dtype == ms.int16
    assert (x ^ 1).tolist() == [4, 2, -2] and (3 & x).tolist() == [1, 3, 3]
    with pytest.raises(TypeError, match="bitwise_and: input and other must be integer or bool"):
        ms.tensor([1.5]).bitwise_and(ms.tensor([2.5]))
