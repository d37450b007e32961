"""nn layers against independent NumPy formulas (tests/numpy_nn.py): values, shapes, parameter names,
training/evaluation behaviour and error messages. Tolerances: float32 rtol/atol 1e-5 for elementwise layers,
1e-4 for layers that sum many products (Dense, Conv2d, norms)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import KernelInputError, ShapeError
from tests import numpy_nn as ref

pytestmark = pytest.mark.usefixtures("graph_mode")

RNG = np.random.default_rng(1234)
X4 = RNG.standard_normal((2, 4, 7, 7)).astype(np.float32)  # shared NCHW input: kernels are reused across tests
TOL = {"rtol": 1e-4, "atol": 1e-4}


def run(cell: nn.Cell, *inputs) -> np.ndarray:
    out = cell(*[ms.Tensor(i) if isinstance(i, np.ndarray) else i for i in inputs])
    return out.asnumpy()


def param(cell: nn.Cell, name: str) -> np.ndarray:
    return dict(cell.parameters_and_names())[name].asnumpy().astype(np.float64)


# ---- Dense -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 5), (2, 2, 3, 5)])
def test_dense_matches_numpy_and_restores_leading_axes(shape):
    layer = nn.Dense(5, 4, weight_init="he_uniform", bias_init="uniform")
    x = RNG.standard_normal(shape).astype(np.float32)
    y = run(layer, x)
    assert y.shape == (*shape[:-1], 4)
    np.testing.assert_allclose(y, ref.dense(x, param(layer, "weight"), param(layer, "bias")), **TOL)


def test_dense_without_bias_and_with_activation():
    layer = nn.Dense(5, 4, weight_init="he_uniform", has_bias=False, activation="relu")
    assert [n for n, _ in layer.parameters_and_names()] == ["weight"]
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(run(layer, x), ref.relu(ref.dense(x, param(layer, "weight"))), **TOL)
    assert isinstance(nn.Dense(2, 2, activation=nn.Tanh()).activation, nn.Tanh)


def test_dense_parameter_shapes_and_names():
    layer = nn.Dense(5, 4)
    params = dict(layer.parameters_and_names())
    assert list(params) == ["weight", "bias"]
    assert params["weight"].shape == (4, 5) and params["bias"].shape == (4,)
    assert params["weight"].name == "weight"
    # MindSpore 2.x's default bias: U(-1/sqrt(in_channels), 1/sqrt(in_channels)), not zeros.
    bias = params["bias"].asnumpy()
    assert np.all(np.abs(bias) <= 1 / np.sqrt(5)) and np.any(bias != 0)


@pytest.mark.parametrize("mode", ["graph_mode", "pynative_mode"])
def test_dense_takes_a_1d_input(mode, request):
    """MindSpore's Dense takes ``(*, in_channels)``, a single vector too (checked on MindSpore 2.10's CPU: the
    output is 1-D); it used to be refused as rank < 2."""
    request.getfixturevalue(mode)
    layer = nn.Dense(5, 4, activation="relu")
    x = np.arange(5, dtype=np.float32) - 2
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    out = layer(ms.Tensor(x)).asnumpy()
    assert out.shape == (4,)
    np.testing.assert_allclose(out, np.maximum(w @ x + b, 0), rtol=1e-5, atol=1e-6)


def test_dense_errors():
    layer = nn.Dense(5, 4)
    with pytest.raises(ShapeError, match=r"Dense.*axis -1.*float32\[3, 6\]"):
        layer(ms.Tensor(np.zeros((3, 6), np.float32)))
    with pytest.raises(ShapeError, match=r"Dense: expects an input of rank >= 1"):
        layer(ms.Tensor(np.float32(1.0)))
    with pytest.raises(ValueError, match="in_channels must be a positive int"):
        nn.Dense(0, 3)
    with pytest.raises(ValueError, match="unknown activation 'swishy'"):
        nn.Dense(2, 2, activation="swishy")


# ---- Conv2d ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {"kernel_size": 3},  # pad_mode 'same', stride 1
    {"kernel_size": 3, "stride": 2},  # 'same' with uneven padding (7 -> 4)
    {"kernel_size": (3, 2), "pad_mode": "valid", "stride": (1, 2)},
    {"kernel_size": 3, "pad_mode": "pad", "padding": (1, 0, 2, 1), "has_bias": True},
    {"kernel_size": 3, "pad_mode": "pad", "padding": 2, "dilation": 2},
    {"kernel_size": 1, "group": 2, "has_bias": True},
])
def test_conv2d_matches_numpy(kw):
    layer = nn.Conv2d(4, 6, weight_init="he_normal", bias_init="uniform", **kw)
    y = run(layer, X4)
    b = param(layer, "bias") if kw.get("has_bias") else None
    expect = ref.conv2d(X4, param(layer, "weight"), b, stride=kw.get("stride", 1), pad_mode=kw.get("pad_mode", "same"),
                        padding=kw.get("padding", 0), dilation=kw.get("dilation", 1), group=kw.get("group", 1))
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, **TOL)


def test_conv2d_parameters():
    layer = nn.Conv2d(4, 6, 3, group=2, has_bias=True)
    shapes = {n: p.shape for n, p in layer.parameters_and_names()}
    assert shapes == {"weight": (6, 2, 3, 3), "bias": (6,)}
    assert [n for n, _ in nn.Conv2d(4, 6, 3).parameters_and_names()] == ["weight"]  # has_bias=False default


def test_conv2d_errors():
    with pytest.raises(ShapeError, match=r"Conv2d: expects size 3 on axis 1, got 4"):
        nn.Conv2d(3, 6, 3)(ms.Tensor(X4))
    with pytest.raises(ShapeError, match="Conv2d: expects a rank-4 input"):
        nn.Conv2d(4, 6, 3)(ms.Tensor(X4[0]))
    with pytest.raises(ValueError, match="padding=1 requires pad_mode='pad'"):
        nn.Conv2d(4, 6, 3, padding=1)
    with pytest.raises(ValueError, match="pad_mode must be 'same', 'valid' or 'pad'"):
        nn.Conv2d(4, 6, 3, pad_mode="full")
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2d(4, 6, 3, group=4)
    with pytest.raises(ValueError, match="kernel_size must be an int >= 1"):
        nn.Conv2d(4, 6, 0)


# ---- pooling -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {"kernel_size": 2, "stride": 2},
    {"kernel_size": 3, "stride": 2, "pad_mode": "same"},
    {"kernel_size": 3, "stride": 2, "pad_mode": "pad", "padding": 1},
])
def test_max_pool2d_matches_numpy(kw):
    y = run(nn.MaxPool2d(**kw), X4)
    expect = ref.max_pool2d(X4, kw["kernel_size"], kw["stride"], kw.get("pad_mode", "valid"), kw.get("padding", 0))
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, rtol=1e-6)


@pytest.mark.parametrize("kw", [
    {"kernel_size": 2, "stride": 2},
    {"kernel_size": 3, "stride": 2, "pad_mode": "same"},
    {"kernel_size": 3, "stride": 2, "pad_mode": "pad", "padding": 1},
    {"kernel_size": 3, "stride": 2, "pad_mode": "pad", "padding": 1, "count_include_pad": False},
])
def test_avg_pool2d_matches_numpy(kw):
    y = run(nn.AvgPool2d(**kw), X4)
    expect = ref.avg_pool2d(X4, kw["kernel_size"], kw["stride"], kw.get("pad_mode", "valid"), kw.get("padding", 0),
                            kw.get("count_include_pad", True))
    assert y.shape == expect.shape
    np.testing.assert_allclose(y, expect, rtol=1e-5, atol=1e-6)


def test_pool_errors():
    with pytest.raises(ShapeError, match="MaxPool2d: expects a rank-4 input"):
        nn.MaxPool2d(2, 2)(ms.Tensor(X4[0, 0]))
    with pytest.raises(ValueError, match="AvgPool2d: stride must be an int >= 1"):
        nn.AvgPool2d(2, 0)


# ---- BatchNorm2d -------------------------------------------------------------------------------------

def _bn_with_stats() -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(4, eps=1e-3)
    bn.gamma.set_data(RNG.uniform(0.5, 1.5, 4))
    bn.beta.set_data(RNG.uniform(-1, 1, 4))
    bn.moving_mean.set_data(RNG.normal(0, 0.5, 4))
    bn.moving_variance.set_data(RNG.uniform(0.5, 2, 4))
    return bn


def test_batch_norm_eval_uses_moving_statistics():
    bn = _bn_with_stats()
    p = {n: param(bn, n) for n in ("gamma", "beta", "moving_mean", "moving_variance")}
    expect = ref.batch_norm(X4, p["gamma"], p["beta"], p["moving_mean"], p["moving_variance"], 1e-3)
    np.testing.assert_allclose(run(bn, X4), expect, **TOL)


def test_batch_norm_train_uses_batch_statistics_and_updates_moving_ones():
    bn = _bn_with_stats()
    before = param(bn, "moving_mean").copy()
    bn.set_train(True)
    y = run(bn, X4)
    x64 = X4.astype(np.float64)
    mean, var = x64.mean(axis=(0, 2, 3)), x64.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, ref.batch_norm(X4, param(bn, "gamma"), param(bn, "beta"), mean, var, 1e-3), **TOL)
    m = bn.momentum  # MindSpore's convention: moving = moving * momentum + batch * (1 - momentum)
    np.testing.assert_allclose(param(bn, "moving_mean"), before * m + mean * (1 - m), rtol=1e-5, atol=1e-6)
    bn.set_train(False)  # eval again: a separate graph, moving statistics
    expect = ref.batch_norm(X4, param(bn, "gamma"), param(bn, "beta"), param(bn, "moving_mean"),
                            param(bn, "moving_variance"), 1e-3)
    np.testing.assert_allclose(run(bn, X4), expect, **TOL)
    assert len(bn.compile_info()) == 2


def test_batch_norm_parameters():
    params = dict(nn.BatchNorm2d(3).parameters_and_names())
    # MindSpore's order (tests/fixtures/mindspore/param_names.json, "nested")
    assert list(params) == ["moving_mean", "moving_variance", "gamma", "beta"]
    assert [p.requires_grad for p in params.values()] == [False, False, True, True]
    np.testing.assert_array_equal(params["moving_variance"].asnumpy(), 1)
    frozen = dict(nn.BatchNorm2d(3, affine=False).parameters_and_names())
    assert not frozen["gamma"].requires_grad and not frozen["beta"].requires_grad


def test_batch_norm_errors():
    with pytest.raises(ShapeError, match="BatchNorm2d: expects size 3 on axis 1, got 4"):
        nn.BatchNorm2d(3)(ms.Tensor(X4))
    with pytest.raises(ValueError, match="momentum must be in"):
        nn.BatchNorm2d(3, momentum=1.5)


# ---- LayerNorm ---------------------------------------------------------------------------------------

def test_layer_norm_last_axis():
    ln = nn.LayerNorm((7,), gamma_init="uniform", beta_init="uniform", epsilon=1e-5)
    expect = ref.layer_norm(X4, param(ln, "gamma"), param(ln, "beta"), -1, 1e-5)
    np.testing.assert_allclose(run(ln, X4), expect, **TOL)


def test_layer_norm_several_axes():
    ln = nn.LayerNorm((4, 7, 7), begin_norm_axis=1, begin_params_axis=1, gamma_init="uniform",
                      beta_init="uniform")
    assert {n: p.shape for n, p in ln.parameters_and_names()} == {"gamma": (4, 7, 7), "beta": (4, 7, 7)}
    expect = ref.layer_norm(X4, param(ln, "gamma"), param(ln, "beta"), 1, 1e-7)
    np.testing.assert_allclose(run(ln, X4), expect, **TOL)


def test_layer_norm_shape_mismatch():
    with pytest.raises(ShapeError, match=r"LayerNorm: normalized_shape \(5,\) does not match"):
        nn.LayerNorm((5,))(ms.Tensor(X4))


# ---- activations, Flatten, Dropout --------------------------------------------------------------------

@pytest.mark.parametrize("make, formula", [
    (nn.ReLU, ref.relu),
    (nn.Sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh, np.tanh),
    (nn.GELU, ref.gelu_tanh),
    (lambda: nn.GELU(approximate=False), ref.gelu_erf),
    (nn.Softmax, ref.softmax),
    (lambda: nn.Softmax(axis=1), lambda x: ref.softmax(x, axis=1)),
], ids=["relu", "sigmoid", "tanh", "gelu-tanh", "gelu-erf", "softmax", "softmax-axis1"])
def test_activations(make, formula):
    np.testing.assert_allclose(run(make(), X4), formula(X4.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_gelu_forms_differ_and_use_the_right_primitive(monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")  # the test reads the traced, unfused nodes
    exact, approx = nn.GELU(approximate=False), nn.GELU()
    run(exact, X4)
    run(approx, X4)
    assert [n.op for n in exact.compile_info()[0].graph.nodes] == ["GeLU"]
    assert "Tanh" in [n.op for n in approx.compile_info()[0].graph.nodes]


def test_flatten():
    assert run(nn.Flatten(), X4).shape == (2, 4 * 7 * 7)
    np.testing.assert_array_equal(run(nn.Flatten(), X4), X4.reshape(2, -1))
    assert run(nn.Flatten(start_dim=2), X4).shape == (2, 4, 49)
    assert run(nn.Flatten(0, 1), X4).shape == (8, 7, 7)
    with pytest.raises(ShapeError, match="Flatten: start_dim=5"):
        nn.Flatten(start_dim=5)(ms.Tensor(X4))


def test_dropout_is_identity_in_eval_and_masks_in_training():
    drop = nn.Dropout(keep_prob=0.8)
    np.testing.assert_array_equal(run(drop, X4), X4)
    np.testing.assert_array_equal(run(nn.Dropout(p=0.3), X4), X4)
    drop.set_train(True)
    assert drop.training
    y = run(drop, X4)  # tests/nn/test_train_layers.py checks the masks
    kept = y != 0
    np.testing.assert_allclose(y[kept], X4[kept] / np.float32(0.8), rtol=1e-6)
    np.testing.assert_array_equal(run(nn.Dropout(keep_prob=1.0).set_train(True), X4), X4)  # nothing to drop
    with pytest.raises(ValueError, match=r"keep_prob must be a float in \(0, 1\]"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(ValueError, match=r"p must be a float in \[0, 1\)"):
        nn.Dropout(p=1.0)


# ---- Embedding ---------------------------------------------------------------------------------------

IDS = RNG.integers(0, 11, (2, 5)).astype(np.int32)


@pytest.mark.parametrize("use_one_hot", [False, True])
def test_embedding_looks_up_rows(use_one_hot):
    emb = nn.Embedding(11, 6, use_one_hot=use_one_hot)
    y = run(emb, IDS)
    assert y.shape == (2, 5, 6)
    np.testing.assert_allclose(y, param(emb, "embedding_table")[IDS], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("use_one_hot", [False, True])
def test_embedding_out_of_range_ids(use_one_hot):
    # MindSpore 2.10 (recorded in tests/compat): the gathered form reads id -1 as the last row (its CPU Gather
    # counts from the end) and raises for 11; the one-hot form gives zeros for both.
    emb = nn.Embedding(11, 6, use_one_hot=use_one_hot)
    ids = IDS.copy()
    ids[1, 3] = -1
    if not use_one_hot:
        y = run(emb, ids)
        np.testing.assert_allclose(y[1, 3], param(emb, "embedding_table")[-1], rtol=1e-6)
        ids[0, 1] = 11
        with pytest.raises(KernelInputError, match=r"input_indices\[0, 1\] = 11 is out of range .* \[-11, 11\)"):
            run(emb, ids)
        return
    ids[0, 1] = 11
    y = run(emb, ids)
    np.testing.assert_array_equal(y[0, 1], 0)
    np.testing.assert_array_equal(y[1, 3], 0)
    np.testing.assert_allclose(y[0, 0], param(emb, "embedding_table")[ids[0, 0]], rtol=1e-6)


def test_embedding_int64_and_errors():
    emb = nn.Embedding(11, 6, dtype=ms.int64)
    np.testing.assert_allclose(run(emb, IDS.astype(np.int64)), param(emb, "embedding_table")[IDS], rtol=1e-6)
    assert {n: p.shape for n, p in emb.parameters_and_names()} == {"embedding_table": (11, 6)}
    with pytest.raises(ShapeError, match="Embedding: ids must have dtype int64"):
        emb(ms.Tensor(IDS))
    with pytest.raises(ValueError, match="dtype must be opbuild.int32 or opbuild.int64"):
        nn.Embedding(11, 6, dtype=ms.float32)


# ---- containers, names, seeds, training flags -----------------------------------------------------------

class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.bn(self.conv(x)))


def test_parameter_names_follow_attribute_paths():
    net = nn.SequentialCell([_Block(), nn.Flatten(), nn.Dense(4 * 49, 3)])
    assert [n for n, _ in net.parameters_and_names()] == [
        "0.conv.weight", "0.conv.bias", "0.bn.moving_mean", "0.bn.moving_variance", "0.bn.gamma", "0.bn.beta",
        "2.weight", "2.bias"]
    assert run(net, X4).shape == (2, 3)


def test_set_train_propagates_and_selects_a_graph():
    net = nn.SequentialCell([_Block()])
    run(net, X4)
    net.set_train(True)
    assert all(c.training for _, c in net.cells_and_names())
    run(net, X4)
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    run(net, X4)
    assert len(net.compile_info()) == 2  # one graph per mode; the eval graph was reused


def test_initialisation_is_deterministic_from_the_seed():
    ms.set_seed(7)
    a = nn.Dense(5, 4).weight.asnumpy().copy()
    ms.set_seed(7)
    b = nn.Dense(5, 4).weight.asnumpy()
    ms.set_seed(8)
    c = nn.Dense(5, 4).weight.asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_pynative_matches_graph(pynative_mode):
    layer = nn.Conv2d(4, 6, 3, has_bias=True, bias_init="uniform")
    eager = run(layer, X4)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(run(layer, X4), eager, rtol=1e-6, atol=1e-7)


def test_embedding_padding_idx_row_is_zero():
    emb = nn.Embedding(11, 6, padding_idx=3)
    np.testing.assert_array_equal(param(emb, "embedding_table")[3], 0)
    assert np.abs(param(emb, "embedding_table")[4]).sum() > 0
    with pytest.raises(ValueError, match=r"padding_idx must be in \[0, 11\)"):
        nn.Embedding(11, 6, padding_idx=11)
