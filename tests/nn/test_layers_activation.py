"""Activation layers against NumPy formulas written here, in both execution modes."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(7)
X = (RNG.standard_normal((2, 3, 5)) * 4).astype(np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-5}


def _run(cell: nn.Cell, x: np.ndarray) -> np.ndarray:
    return cell(ms.Tensor(x)).asnumpy()


def _softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def _relu6(x):
    return np.clip(x, 0, 6)


CASES = [
    (lambda: nn.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (lambda: nn.LeakyReLU(alpha=0.01), lambda x: np.where(x >= 0, x, 0.01 * x)),
    (lambda: nn.LeakyReLU(alpha=1.5), lambda x: np.minimum(x, 1.5 * x)),
    (lambda: nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    (lambda: nn.ELU(alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0)))),
    (lambda: nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (lambda: nn.HSigmoid(), lambda x: _relu6(x + 3) / 6),
    (lambda: nn.HSwish(), lambda x: x * _relu6(x + 3) / 6),
    (lambda: nn.Mish(), lambda x: x * np.tanh(_softplus(x))),
    (lambda: nn.Identity(), lambda x: x),
]


@pytest.mark.parametrize("make,formula", CASES, ids=lambda v: "")
def test_activation_matches_formula(mode, make, formula):
    np.testing.assert_allclose(_run(make(), X), formula(X.astype(np.float64)), **TOL)


def test_prelu_per_channel_and_shared(mode):
    slopes = np.array([0.1, 0.2, 0.3], np.float32)
    layer = nn.PReLU(channel=3, w=slopes)
    assert [n for n, _ in layer.parameters_and_names()] == ["w"]
    expect = np.where(X >= 0, X, slopes.reshape(1, 3, 1) * X)
    np.testing.assert_allclose(_run(layer, X), expect, **TOL)
    shared = nn.PReLU()
    np.testing.assert_allclose(shared.w.asnumpy(), [0.25])
    np.testing.assert_allclose(_run(shared, X), np.where(X >= 0, X, 0.25 * X), **TOL)


def test_get_activation_knows_the_new_names():
    for name, cls in [("leakyrelu", nn.LeakyReLU), ("elu", nn.ELU), ("silu", nn.SiLU), ("hswish", nn.HSwish),
                      ("hsigmoid", nn.HSigmoid), ("mish", nn.Mish), ("prelu", nn.PReLU)]:
        assert isinstance(nn.get_activation(name), cls)


def test_activation_errors():
    with pytest.raises(TypeError, match="LeakyReLU: alpha must be a float"):
        nn.LeakyReLU(alpha="x")
    with pytest.raises(ValueError, match="PReLU: w must have 3 values"):
        nn.PReLU(3, w=[0.1, 0.2])
    with pytest.raises(ValueError, match="PReLU: channel must be a positive int"):
        nn.PReLU(0)
    with pytest.raises(ShapeError, match="PReLU"):
        nn.PReLU(4)(ms.Tensor(X))
