"""GroupNorm, InstanceNorm2d, BatchNorm1d and PixelShuffle against NumPy formulas written here, in both
modes, plus parameter names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(5)
TOL = {"rtol": 1e-4, "atol": 1e-5}


def _norm(x, axes, eps):
    x = x.astype(np.float64)
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)


def test_group_norm(mode):
    layer = nn.GroupNorm(2, 6, gamma_init="normal", beta_init="normal")
    assert [n for n, _ in layer.parameters_and_names()] == ["gamma", "beta"]
    x = RNG.standard_normal((2, 6, 3, 4)).astype(np.float32)
    g, b = layer.gamma.asnumpy().reshape(1, 6, 1, 1), layer.beta.asnumpy().reshape(1, 6, 1, 1)
    want = _norm(x.reshape(2, 2, -1), 2, 1e-5).reshape(x.shape) * g + b
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), want, **TOL)


def test_instance_norm2d(mode):
    layer = nn.InstanceNorm2d(3, eps=1e-3, gamma_init="normal", beta_init="normal")
    # MindSpore's names and order (its forward never reads the moving statistics)
    assert [n for n, _ in layer.parameters_and_names()] == ["moving_mean", "moving_variance", "gamma", "beta"]
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    g, b = layer.gamma.asnumpy().reshape(1, 3, 1, 1), layer.beta.asnumpy().reshape(1, 3, 1, 1)
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), _norm(x, (2, 3), 1e-3) * g + b, **TOL)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5)])
def test_batch_norm1d_eval_and_train(mode, shape):
    layer = nn.BatchNorm1d(3, moving_mean_init="normal", moving_var_init="ones", gamma_init="normal")
    # MindSpore's order (tests/fixtures/mindspore/param_names.json, "nested"): the moving statistics first
    assert [n for n, _ in layer.parameters_and_names()] == ["moving_mean", "moving_variance", "gamma", "beta"]
    x = RNG.standard_normal(shape).astype(np.float32)
    c = (1, 3) + (1,) * (len(shape) - 2)
    g, b = layer.gamma.asnumpy().reshape(c), layer.beta.asnumpy().reshape(c)
    mm, mv = layer.moving_mean.asnumpy().reshape(c), layer.moving_variance.asnumpy().reshape(c)
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), (x - mm) / np.sqrt(mv + 1e-5) * g + b, **TOL)
    layer.set_train(True)
    axes = (0,) if len(shape) == 2 else (0, 2)
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), _norm(x, axes, 1e-5) * g + b, **TOL)


def test_pixel_shuffle(mode):
    x = RNG.standard_normal((2, 8, 3, 4)).astype(np.float32)
    want = np.zeros((2, 2, 6, 8), np.float32)
    for c in range(2):
        for i in range(2):
            for j in range(2):
                want[:, c, i::2, j::2] = x[:, c * 4 + i * 2 + j]
    np.testing.assert_array_equal(nn.PixelShuffle(2)(ms.Tensor(x)).asnumpy(), want)


def test_norm_errors():
    with pytest.raises(ValueError, match=r"GroupNorm: num_channels \(5\) must be divisible by num_groups \(2\)"):
        nn.GroupNorm(2, 5)
    with pytest.raises(ShapeError, match="InstanceNorm2d: expects a rank-4"):
        nn.InstanceNorm2d(3)(ms.Tensor(np.zeros((2, 3, 4), np.float32)))
    with pytest.raises(ShapeError, match="BatchNorm1d: expects a rank-2"):
        nn.BatchNorm1d(3)(ms.Tensor(np.zeros((2, 3, 4, 5), np.float32)))
    with pytest.raises(ShapeError, match="PixelShuffle"):
        nn.PixelShuffle(2)(ms.Tensor(np.zeros((1, 6, 2, 2), np.float32)))
