"""Tensor's in-place random fills (core/tensor_extras.py: uniform_, cauchy, log_normal, random_): shapes and
dtypes kept, values from the right distribution, and a seeded Generator repeats its draw."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms


def test_uniform_is_in_place_in_range_and_repeatable_with_a_generator():
    x = ms.ops.ones((400, 50))
    g = ms.Generator()
    g.manual_seed(100)
    out = x.uniform_(1.0, 2.0, generator=g)
    assert out is x and out.shape == (400, 50) and out.dtype == ms.float32
    v = out.asnumpy()
    assert v.min() >= 1.0 and v.max() < 2.0 and abs(v.mean() - 1.5) < 0.01
    g.manual_seed(100)
    again = ms.ops.ones((400, 50)).uniform_(1.0, 2.0, generator=g).asnumpy()
    np.testing.assert_array_equal(v, again)
    with pytest.raises(ValueError, match="must not exceed"):
        x.uniform_(2.0, 1.0)


def test_cauchy_and_log_normal_distributions():
    c = ms.Tensor(np.zeros((20000,), np.float32)).cauchy(median=3.0, sigma=2.0).asnumpy()
    assert abs(np.median(c) - 3.0) < 0.1
    # The interquartile range of a Cauchy(m, s) is 2s.
    assert abs((np.percentile(c, 75) - np.percentile(c, 25)) - 4.0) < 0.3
    ln = ms.Tensor(np.zeros((20000,), np.float32)).log_normal(mean=1.0, std=0.5).asnumpy()
    assert ln.min() > 0 and abs(np.log(ln).mean() - 1.0) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    with pytest.raises(ValueError, match="std must be positive"):
        ms.Tensor(np.zeros(2, np.float32)).log_normal(std=0.0)


def test_random_fills_integers_in_range():
    a = ms.Tensor(np.zeros((1000,), np.int64))
    v = a.random_(2, 5).asnumpy()
    assert set(np.unique(v)) == {2, 3, 4} and a.dtype == ms.int64
