"""``nn.probability.bnn_layers`` against MindSpore 2.10 (tests/fixtures/mindspore/bnn_layers.npz, recorded by
scripts/record_bnn_layers.py): parameter names, KL terms with fixed posteriors, outputs where the posterior
sd is negligible, WithBNNLossCell, and that the draws vary and train."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn.probability.bnn_layers as bnn
from opbuild import Tensor, nn

from .bnn_layer_cases import LAYERS, TINY, posterior_values

FIX = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "bnn_layers.npz")
NAMES = json.loads(str(FIX["__names__"]))


def _set(layer, std: float) -> None:
    for i, p in enumerate(layer.get_parameters()):
        if p.name.endswith(".mean"):
            p.set_data(Tensor(posterior_values(tuple(p.shape), i)))
        elif p.name.endswith("untransformed_std"):
            p.set_data(Tensor(np.full(p.shape, std if std == TINY else std - 0.1 * i, np.float32)))


def _layer(key: str):
    cls, args, kw, x = LAYERS[key]
    return getattr(bnn, cls)(*args, **kw), x


def test_public_names_are_mindspore_s() -> None:
    assert sorted(bnn.__all__) == sorted(NAMES["all"])


@pytest.mark.parametrize("key", sorted(LAYERS))
def test_layer_matches_mindspore(key: str) -> None:
    layer, x = _layer(key)
    assert [(p.name, list(p.shape), bool(p.requires_grad)) for p in layer.get_parameters()] == \
        [tuple(n) for n in NAMES["params"][key]]
    _set(layer, -0.5)
    np.testing.assert_allclose(layer.compute_kl_loss().asnumpy(), FIX[f"{key}/kl"], rtol=2e-5)
    _set(layer, TINY)
    # float32 sums of up to 18 products: the conv's near-cancelling outputs differ by a few 1e-6
    np.testing.assert_allclose(layer(Tensor(x)).asnumpy(), FIX[f"{key}/out"], rtol=2e-5, atol=1e-5)


def test_with_bnn_loss_cell_matches_mindspore() -> None:
    layer = bnn.DenseReparam(3, 2)
    cell = bnn.WithBNNLossCell(nn.SequentialCell([layer]), nn.MSELoss(), 2.0, 0.5)
    _set(layer, -0.5)
    np.testing.assert_allclose(layer.compute_kl_loss().asnumpy(), FIX["with_loss/kl"], rtol=2e-5)
    _set(layer, TINY)
    got = cell(Tensor(LAYERS["dense"][3]), Tensor(np.ones((2, 2), np.float32))).asnumpy()
    np.testing.assert_allclose(got, FIX["with_loss/tiny"], rtol=1e-4)


def test_draws_vary_and_the_posterior_trains() -> None:
    layer, x = _layer("dense")
    _set(layer, -0.5)
    a, b = layer(Tensor(x)).asnumpy(), layer(Tensor(x)).asnumpy()
    assert not np.allclose(a, b)  # a fresh weight draw per call
    net = bnn.WithBNNLossCell(nn.SequentialCell([layer]), nn.MSELoss(), 1.0, 0.01)
    params = [p for p in layer.get_parameters() if p.requires_grad]
    before = [p.asnumpy().copy() for p in params]
    grads = ms.grad(net, grad_position=None, weights=params)(Tensor(x), Tensor(np.ones((2, 2), np.float32)))
    assert len(grads) == len(params) and all(np.abs(g.asnumpy()).sum() > 0 for g in grads)
    nn.SGD(params, 0.1)(grads)
    assert all(not np.allclose(p.asnumpy(), q) for p, q in zip(params, before))


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="in_channels and out_channels"):
        bnn.DenseReparam(0, 2)
    with pytest.raises(TypeError, match="activation"):
        bnn.DenseReparam(3, 2, activation=3)
    with pytest.raises(ValueError, match="loc_std"):
        bnn.NormalPosterior("w", (2,), loc_std=0.0)
