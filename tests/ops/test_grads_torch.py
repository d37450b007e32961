"""Gradients through ``ms.grad`` against ``torch.autograd`` on the same float32 inputs.

Each case differentiates ``sum(f(*xs) * w)`` with one fixed random cotangent ``w`` (so a rule that ignores or
mis-shapes its cotangent fails) on both sides, and compares every input gradient. Then one small CNN and one
small transformer block, torch's weights copied in by name (tests/nn/test_layers_torch.py), whose loss
gradients with respect to every parameter must match torch's. GRAPH_MODE and PyNative (``ms.grad`` traces in
both). Tolerances, float32 against float32: rtol=1e-4, atol=1e-5 for single ops, atol=1e-4 for the networks
and for ops that accumulate over many terms (convolutions, batch matmuls, normalisations)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from tests.helpers import TORCH_MISSING
from tests.nn.test_layers_torch import _torch_name, copy_weights

torch = pytest.importorskip("torch", reason=TORCH_MISSING)
F = torch.nn.functional

pytestmark = pytest.mark.slow


TOL = {"rtol": 1e-4, "atol": 1e-5}
ACC = {"rtol": 1e-4, "atol": 1e-4}


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


def check(ms_fn, torch_fn, *arrays, tol=TOL, seed=0):
    """ms.grad of sum(ms_fn(*xs) * w) == torch.autograd of sum(torch_fn(*xs) * w), every input."""
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = torch_fn(*ts)
    w = np.random.default_rng(seed + 99).normal(size=tuple(out.shape)).astype(np.float32)
    (out * torch.from_numpy(w)).sum().backward()

    def loss(*xs):
        return ops.ReduceSum()(ms_fn(*xs) * ms.Tensor(w))

    grads = ms.grad(loss, tuple(range(len(arrays))))(*[ms.Tensor(a) for a in arrays])
    assert len(grads) == len(arrays)
    for i, (g, t) in enumerate(zip(grads, ts, strict=True)):
        assert g.shape == tuple(t.shape), (i, g.shape, t.shape)
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), **tol, err_msg=f"gradient of input {i}")


POS = rand(3, 4, seed=1, low=0.5, high=2.0)


def _away_from_zero(x):
    return np.where(np.abs(x) < 0.2, x + np.sign(x + 1e-9) * 0.3, x).astype(np.float32)


UNARY = {
    "Exp": (torch.exp, rand(3, 4)), "Log": (torch.log, POS), "Sqrt": (torch.sqrt, POS), "Rsqrt": (torch.rsqrt, POS),
    "Square": (torch.square, rand(3, 4)), "Tanh": (torch.tanh, rand(3, 4)), "Sigmoid": (torch.sigmoid, rand(3, 4)),
    "ReLU": (torch.relu, _away_from_zero(rand(3, 4))), "Abs": (torch.abs, _away_from_zero(rand(3, 4))),
    "Neg": (torch.neg, rand(3, 4)), "Reciprocal": (torch.reciprocal, POS), "Sin": (torch.sin, rand(3, 4)),
    "Cos": (torch.cos, rand(3, 4)), "Erf": (torch.erf, rand(3, 4)), "Softplus": (F.softplus, rand(3, 4)),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(mode, op):
    tfn, x = UNARY[op]
    prim = getattr(ops, op)()
    check(lambda t: prim(t), tfn, x)


@pytest.mark.parametrize("approximate", [True, False])
def test_gelu_layer(mode, approximate):
    cell = nn.GELU(approximate=approximate)
    check(lambda t: cell(t), lambda t: F.gelu(t, approximate="tanh" if approximate else "none"), rand(3, 4))


BROADCAST = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((4, 2, 3), (2, 1)), ((), (2, 3))]
BINARY = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "RealDiv": torch.div, "Maximum": torch.maximum,
          "Minimum": torch.minimum, "Pow": torch.pow}


@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcasting(mode, op, shapes):
    a = rand(*shapes[0], seed=1, low=0.5, high=2.0)
    b = rand(*shapes[1], seed=2, low=0.5, high=2.0) + np.float32(0.013)  # no ties for Maximum/Minimum
    prim = getattr(ops, op)()
    check(lambda x, y: prim(x, y), BINARY[op], a, b)


REDUCE = {"ReduceSum": lambda t, ax, k: t.sum(ax, keepdim=k) if ax else t.sum(),
          "ReduceMean": lambda t, ax, k: t.mean(ax, keepdim=k) if ax else t.mean(),
          "ReduceMax": lambda t, ax, k: t.amax(ax, keepdim=k) if ax else t.amax(),
          "ReduceMin": lambda t, ax, k: t.amin(ax, keepdim=k) if ax else t.amin(),
          "ReduceProd": lambda t, ax, k: _prod(t, ax, k)}


def _prod(t, ax, keep):
    for a in sorted(ax or range(t.dim()), reverse=True):
        t = t.prod(a, keepdim=keep)
    return t


@pytest.mark.parametrize("axis,keep", [((), False), ((1,), True), ((0, 2), False)])
@pytest.mark.parametrize("op", sorted(REDUCE))
def test_reductions(mode, op, axis, keep):
    x = np.random.default_rng(6).permutation(24).reshape(2, 3, 4).astype(np.float32) / 12 + 0.5  # no ties
    prim = getattr(ops, op)(keep_dims=keep)
    check(lambda t: prim(t, axis), lambda t: REDUCE[op](t, axis, keep), x)


@pytest.mark.parametrize("zeros", [0, 1, 2], ids=["no-zero", "one-zero", "two-zeros"])
def test_reduce_prod_with_zeros(mode, zeros):
    """The gradient of a product is the product of the other elements, also where the group holds zeros
    (prod / x would give NaN and inf there)."""
    x = np.random.default_rng(7).uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)
    x[0, 1, :zeros] = 0.0  # one group of axis 2 with that many zeros
    x[1, 2, 3] = 0.0 if zeros else x[1, 2, 3]  # and a second group with one zero
    prim = ops.ReduceProd(keep_dims=False)
    check(lambda t: prim(t, (2,)), lambda t: REDUCE["ReduceProd"](t, (2,), False), x)


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul(mode, ta, tb):
    a = rand(*((4, 3) if ta else (3, 4)), seed=1)
    b = rand(*((5, 4) if tb else (4, 5)), seed=2)
    check(lambda x, y: ops.MatMul(ta, tb)(x, y),
          lambda x, y: (x.T if ta else x) @ (y.T if tb else y), a, b)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2))],
                         ids=str)
def test_batch_matmul(mode, shapes):
    check(lambda x, y: ops.BatchMatMul()(x, y), torch.matmul, rand(*shapes[0], seed=1), rand(*shapes[1], seed=2),
          tol=ACC)


CONV = [
    ({"pad_mode": "valid"}, {}),
    ({"pad_mode": "pad", "pad": 1, "stride": 2}, {"padding": 1, "stride": 2}),
    ({"pad_mode": "pad", "pad": 2, "dilation": 2}, {"padding": 2, "dilation": 2}),
    ({"pad_mode": "pad", "pad": 1, "group": 2, "stride": (2, 1)}, {"padding": 1, "groups": 2, "stride": (2, 1)}),
]


@pytest.mark.parametrize("kw", CONV, ids=lambda k: "-".join(f"{a}{b}" for a, b in k[0].items()))
def test_conv2d(mode, kw):
    ms_kw, t_kw = kw
    group = ms_kw.get("group", 1)
    conv = ops.Conv2D(6, 3, **ms_kw)
    check(lambda a, b: conv(a, b), lambda a, b: F.conv2d(a, b, **t_kw), rand(2, 4, 7, 6, seed=1),
          rand(6, 4 // group, 3, 3, seed=2), tol=ACC)


def test_conv2d_asymmetric_pad(mode):
    # MindSpore's pad is (top, bottom, left, right); torch's F.pad takes (left, right, top, bottom).
    conv = ops.Conv2D(3, 3, pad_mode="pad", pad=(1, 0, 2, 1))
    check(lambda a, b: conv(a, b), lambda a, b: F.conv2d(F.pad(a, (2, 1, 1, 0)), b), rand(2, 2, 5, 6, seed=1),
          rand(3, 2, 3, 3, seed=2), tol=ACC)


def _distinct(*shape, seed=3):
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).reshape(shape) / 7.0).astype(np.float32)  # no ties


@pytest.mark.parametrize("kw", [(2, 2, False), (3, 2, False), (3, 2, True), (3, 1, False)], ids=str)
def test_maxpool(mode, kw):
    k, s, ceil = kw
    pool = ops.MaxPool(kernel_size=k, strides=s, ceil_mode=ceil)
    check(lambda t: pool(t), lambda t: F.max_pool2d(t, k, s, ceil_mode=ceil), _distinct(2, 2, 7, 7))


def test_maxpool_padded(mode):
    pool = ops.MaxPool(kernel_size=3, strides=2, pad_mode="pad", pad=1)
    check(lambda t: pool(t), lambda t: F.max_pool2d(t, 3, 2, padding=1), _distinct(2, 2, 7, 6))


@pytest.mark.parametrize("kw", [(2, 2), (3, 2), (3, 1)], ids=str)
def test_avgpool(mode, kw):
    k, s = kw
    pool = ops.AvgPool(kernel_size=k, strides=s)
    check(lambda t: pool(t), lambda t: F.avg_pool2d(t, k, s), rand(2, 2, 7, 7))


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_logsoftmax(mode, axis):
    check(lambda t: ops.Softmax(axis)(t), lambda t: torch.softmax(t, axis), rand(3, 5, seed=1))
    check(lambda t: ops.LogSoftmax(axis)(t), lambda t: torch.log_softmax(t, axis), rand(3, 5, seed=2))


@pytest.mark.parametrize("bna", [-1, 1])
def test_layer_norm(mode, bna):
    x = rand(2, 3, 4, seed=1)
    shape = x.shape[bna:]
    check(lambda t, g, b: ops.LayerNorm(bna, bna, 1e-5)(t, g, b)[0],
          lambda t, g, b: F.layer_norm(t, shape, g, b, 1e-5), x, rand(*shape, seed=2), rand(*shape, seed=3),
          tol=ACC)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 2, 5)])
def test_batchnorm_training(mode, shape):
    # the layer in training mode (batch statistics): gradients of x, gamma and beta
    bn = nn.BatchNorm1d(3) if len(shape) == 2 else nn.BatchNorm2d(3)
    tbn = torch.nn.BatchNorm1d(3) if len(shape) == 2 else torch.nn.BatchNorm2d(3)
    copy_weights(bn, tbn)
    bn.set_train(True)
    x = rand(*shape, seed=1)
    w = rand(*shape, seed=2)
    tx = torch.tensor(x, requires_grad=True)
    (tbn(tx) * torch.from_numpy(w)).sum().backward()
    gx, (gg, gb) = ms.grad(lambda t: ops.ReduceSum()(bn(t) * ms.Tensor(w)), 0, bn.trainable_params())(ms.Tensor(x))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), **ACC)
    np.testing.assert_allclose(gg.asnumpy(), tbn.weight.grad.numpy(), **ACC)
    np.testing.assert_allclose(gb.asnumpy(), tbn.bias.grad.numpy(), **ACC)


@pytest.mark.parametrize("axis", [0, 1])
def test_gather(mode, axis):
    idx = np.array([[2, 0], [2, 1]], np.int32)  # a repeated index: its gradients add up
    ti = torch.from_numpy(idx.astype(np.int64))
    check(lambda p: ops.Gather()(p, ms.Tensor(idx), axis), lambda p: p[ti] if axis == 0 else p[:, ti],
          rand(3, 4, seed=8))


# --- the losses of nn/loss.py: gradients of the logits -------------------------------------------------------

LABELS = np.array([0, 2, 1, 2, 4], np.int32)
PROBS = np.random.default_rng(4).dirichlet(np.ones(5), size=5).astype(np.float32)
CLASS_W = np.array([1.0, 0.5, 2.0, 1.5, 0.7], np.float32)
TL = torch.from_numpy(LABELS.astype(np.int64))


def _loss_check(ms_loss, torch_loss, target, x=None):
    x = rand(5, 5, seed=11) if x is None else x
    tt = torch.from_numpy(target.astype(np.int64) if target.dtype == np.int32 else target)
    check(lambda t: ms_loss(t, ms.Tensor(target)), lambda t: torch_loss(t, tt), x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_softmax_cross_entropy_with_logits(mode, reduction):
    _loss_check(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction),
                lambda t, y: F.cross_entropy(t, y, reduction=reduction), LABELS)
    _loss_check(nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction=reduction),
                lambda t, y: F.cross_entropy(t, y, reduction=reduction), PROBS)


@pytest.mark.parametrize("kw", [
    {},
    {"weight": CLASS_W},
    {"ignore_index": 2},
    {"label_smoothing": 0.1},
    {"weight": CLASS_W, "ignore_index": 1, "label_smoothing": 0.2, "reduction": "sum"},
    {"reduction": "none", "weight": CLASS_W},
], ids=str)
def test_cross_entropy_loss(mode, kw):
    ms_kw = {k: (ms.Tensor(v) if k == "weight" else v) for k, v in kw.items()}
    t_kw = {k: (torch.from_numpy(v) if k == "weight" else v) for k, v in kw.items()}
    _loss_check(nn.CrossEntropyLoss(**ms_kw), lambda t, y: F.cross_entropy(t, y, **t_kw), LABELS)
    if "ignore_index" not in kw:  # class probabilities as targets
        _loss_check(nn.CrossEntropyLoss(**ms_kw), lambda t, y: F.cross_entropy(t, y, **t_kw), PROBS)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(mode, reduction):
    y = rand(5, 5, seed=12)
    x = y + _away_from_zero(rand(5, 5, seed=13))  # L1: away from the kink
    _loss_check(nn.MSELoss(reduction), lambda t, u: F.mse_loss(t, u, reduction=reduction), y, x)
    _loss_check(nn.L1Loss(reduction), lambda t, u: F.l1_loss(t, u, reduction=reduction), y, x)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(mode, reduction):
    y = (np.random.default_rng(5).uniform(size=(5, 5)) > 0.5).astype(np.float32)
    _loss_check(nn.BCEWithLogitsLoss(reduction), lambda t, u: F.binary_cross_entropy_with_logits(
        t, u, reduction=reduction), y)
    w, pw = rand(5, 5, seed=6, low=0.5), rand(5, seed=7, low=0.5)
    _loss_check(nn.BCEWithLogitsLoss(reduction, weight=ms.Tensor(w), pos_weight=ms.Tensor(pw)),
                lambda t, u: F.binary_cross_entropy_with_logits(
                    t, u, weight=torch.from_numpy(w), pos_weight=torch.from_numpy(pw), reduction=reduction), y)


# --- networks: parameter gradients -------------------------------------------------------------------------------

class SmallCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, pad_mode="valid", has_bias=True)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(6 * 1 * 1, 3)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv1(x))))
        return self.fc(self.flatten(self.relu(self.conv2(x))))


class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.conv2 = torch.nn.Conv2d(4, 6, 3, stride=2)
        self.fc = torch.nn.Linear(6, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2, 2)
        return self.fc(torch.flatten(F.relu(self.conv2(x)), 1))


def _param_grads(cell, tmod, x, labels, train):
    """(opbuild's {torch name: grad}, torch's) of the cross-entropy loss of the network on (x, labels)."""
    cell.set_train(train)
    tmod.train(train)
    loss_fn = nn.CrossEntropyLoss()
    params = cell.trainable_params()

    def forward(inp, lab):
        return loss_fn(cell(inp), lab)

    loss, grads = ms.value_and_grad(forward, None, params)(ms.Tensor(x), ms.Tensor(labels))
    tloss = F.cross_entropy(tmod(torch.from_numpy(x)), torch.from_numpy(labels.astype(np.int64)))
    tmod.zero_grad()
    tloss.backward()
    np.testing.assert_allclose(float(loss.asnumpy()), float(tloss.detach()), rtol=1e-5)
    tgrads = dict(tmod.named_parameters())
    assert len(grads) == len(tgrads)
    for p, g in zip(params, grads, strict=True):
        tname = _torch_name(p.name)
        np.testing.assert_allclose(g.asnumpy(), tgrads[tname].grad.numpy(), **ACC, err_msg=tname)


@pytest.mark.parametrize("train", [True, False])
def test_small_cnn_parameter_gradients(mode, train):
    cell, tmod = SmallCNN(), TorchCNN()
    copy_weights(cell, tmod)
    x = rand(4, 2, 8, 8, seed=21)
    _param_grads(cell, tmod, x, np.array([0, 2, 1, 1], np.int32), train)


class Block(nn.Cell):
    def __init__(self, layer, head):
        super().__init__()
        self.layer, self.head = layer, head

    def construct(self, x):
        return self.head(self.layer(x)[:, 0])


class TorchBlock(torch.nn.Module):
    def __init__(self, layer, head):
        super().__init__()
        self.layer, self.head = layer, head

    def forward(self, x):
        return self.head(self.layer(x)[:, 0])


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_block_parameter_gradients(mode, norm_first):
    cfg = {"dropout": 0.0, "batch_first": True, "norm_first": norm_first, "activation": "gelu"}
    cell = Block(nn.TransformerEncoderLayer(8, 2, 16, **cfg), nn.Dense(8, 3))
    tmod = TorchBlock(torch.nn.TransformerEncoderLayer(8, 2, 16, **cfg), torch.nn.Linear(8, 3))
    copy_weights(cell, tmod)
    x = rand(3, 5, 8, seed=22)
    _param_grads(cell, tmod, x, np.array([2, 0, 1], np.int32), train=True)
