"""Training-mode layers: BatchNorm2d with batch statistics and moving-statistics updates computed in the
graph (BatchNormTraining / BatchNormGrad kernels), Dropout with a seeded per-call mask (Dropout /
DropoutGrad kernels), both the identity of their eval form when set_train(False)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from tests.ops.test_grads import check

rng = np.random.default_rng(3)


def test_batchnorm2d_training_updates_moving_statistics(mode):
    bn = nn.BatchNorm2d(3, momentum=0.8)
    bn.set_train(True)
    mm, mv = np.zeros(3), np.ones(3)
    for _ in range(3):
        x = rng.normal(2.0, 3.0, size=(4, 3, 2, 5)).astype(np.float32)
        y = bn(ms.Tensor(x)).asnumpy()
        mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
        ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
        np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
        # MindSpore: moving = moving * momentum + batch * (1 - momentum), variance unbiased (m = 40)
        mm, mv = mm * 0.8 + mean * 0.2, mv * 0.8 + var * 40 / 39 * 0.2
        np.testing.assert_allclose(bn.moving_mean.asnumpy(), mm, rtol=1e-5)
        np.testing.assert_allclose(bn.moving_variance.asnumpy(), mv, rtol=1e-5)
    bn.set_train(False)  # eval: the moving statistics, and no update
    y = bn(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, (x - mm[None, :, None, None]) / np.sqrt(mv[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), mm, rtol=1e-5)


def test_batchnorm_training_gradient_and_grad_kernel():
    x = rng.normal(size=(3, 2, 2, 3))
    scale, bias = rng.random(2) + 0.5, rng.normal(size=2)
    mean, var = ms.Tensor(np.zeros(2)), ms.Tensor(np.ones(2))
    bn = ops.BatchNorm(is_training=True, epsilon=1e-5)
    check(lambda a, s, b: bn(a, s, b, mean, var)[0], x, scale, bias, rtol=1e-5, atol=1e-6)
    nhwc = ops.BatchNorm(is_training=True, data_format="NHWC")
    check(lambda a, s, b: nhwc(a, s, b, mean, var)[0], x.transpose(0, 2, 3, 1), scale, bias, rtol=1e-5,
          atol=1e-6)


def test_batchnorm2d_gradients_of_the_layer_reach_gamma_and_beta():
    bn = nn.BatchNorm2d(2)
    bn.set_train(True)
    x = ms.Tensor(rng.normal(size=(2, 2, 3, 3)).astype(np.float32))
    w = ms.Tensor(rng.normal(size=(2, 2, 3, 3)).astype(np.float32))
    dgamma, dbeta = ms.grad(lambda a: ops.ReduceSum()(bn(a) * w), None, bn.trainable_params())(x)
    xn = x.asnumpy()
    xh = (xn - xn.mean((0, 2, 3), keepdims=True)) / np.sqrt(xn.var((0, 2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(dgamma.asnumpy(), (w.asnumpy() * xh).sum((0, 2, 3)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dbeta.asnumpy(), w.asnumpy().sum((0, 2, 3)), rtol=1e-5)
    assert not np.allclose(bn.moving_mean.asnumpy(), 0)  # the differentiated call updated the statistics too


def _masks(seed, calls=2):
    ms.set_seed(seed)
    drop = nn.Dropout(p=0.3)
    drop.set_train(True)
    x = ms.Tensor(np.ones((50, 40), np.float32))
    return [drop(x).asnumpy() for _ in range(calls)]


def test_dropout_training_is_seeded_and_draws_per_call(mode):
    a1, a2 = _masks(5)
    b1, b2 = _masks(5)
    np.testing.assert_array_equal(a1, b1)  # set_seed makes runs repeatable
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)  # a fresh mask per call
    assert not np.array_equal(a1, _masks(6)[0])
    assert set(np.unique(a1)) == {0.0, np.float32(1 / 0.7)}
    assert abs((a1 == 0).mean() - 0.3) < 0.03
    drop = nn.Dropout(p=0.3)
    x = ms.Tensor(rng.normal(size=(4, 4)).astype(np.float32))
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())  # eval: identity
    assert [n for n, _ in drop.parameters_and_names()] == []  # the generator state is no parameter


def test_dropout_gradient_is_the_mask():
    ms.set_seed(1)
    drop = nn.Dropout(keep_prob=0.6)
    drop.set_train(True)
    x = ms.Tensor(rng.normal(size=(6, 7)))
    y, g = ms.value_and_grad(lambda a: ops.ReduceSum()(drop(a)))(x)
    mask = drop.dropout(x, ms.Tensor(np.array([drop._rng_state.asnumpy()[0], 0], np.int64)))[1].asnumpy()
    np.testing.assert_allclose(g.asnumpy(), mask / 0.6, rtol=1e-12)
    np.testing.assert_allclose(y.asnumpy(), (x.asnumpy() * mask / 0.6).sum(), rtol=1e-12)


def test_dropout_primitive_matches_its_reference():
    from opbuild.ops.registry import get

    x, state = rng.normal(size=(5, 9)).astype(np.float32), np.array([123, 7], np.int64)
    y, mask = ops.Dropout(keep_prob=0.25)(ms.Tensor(x), ms.Tensor(state))
    spec = get("Dropout").spec({"keep_prob": 0.25}, [ms.Tensor(x)._type, ms.Tensor(state)._type])
    ry, rmask = get("Dropout").run_reference(spec, [x, state])
    np.testing.assert_array_equal(mask.asnumpy(), rmask)
    np.testing.assert_allclose(y.asnumpy(), ry, rtol=1e-6)
    with pytest.raises(Exception, match="keep_prob"):
        ops.Dropout(keep_prob=0.0)(ms.Tensor(x), ms.Tensor(state))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_dropout_in_a_half_type_equals_its_reference_bit_for_bit(dtype):
    # MindSpore's Dropout takes float16; opbuild's refused the half types ("x must be float") until an AMP
    # network with dropout met it.
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)

    from opbuild.ops.registry import get
    from opbuild.runtime.session import session

    np_dt = np.dtype(dtype)
    x = (rng.normal(size=(6, 11)) * 3).astype(np_dt)
    state = np.array([99, 3], np.int64)
    y, mask = ops.Dropout(keep_prob=0.7)(ms.Tensor(x), ms.Tensor(state))
    spec = get("Dropout").spec({"keep_prob": 0.7}, [ms.Tensor(x)._type, ms.Tensor(state)._type])
    ry, rmask = get("Dropout").run_reference(spec, [x, state])
    assert y.asnumpy().dtype == np_dt and 0 < (rmask.astype(np.float32) == 0).sum() < x.size
    assert np.array_equal(mask.asnumpy().view(np.uint16), rmask.view(np.uint16))
    assert np.array_equal(y.asnumpy().view(np.uint16), ry.view(np.uint16))
    # the backward: dy * mask / keep_prob, rounded once
    dy = rng.normal(size=(6, 11)).astype(np_dt)
    grad = get("DropoutGrad").spec({"keep_prob": 0.7}, [ms.Tensor(dy)._type, mask._type])
    (dx,) = session().run_eager(grad, [dy, mask.asnumpy()])
    (want,) = get("DropoutGrad").run_reference(grad, [dy, mask.asnumpy()])
    assert np.array_equal(dx.view(np.uint16), np.asarray(want).view(np.uint16))
    drop = nn.Dropout(p=0.5)
    drop.set_train(True)
    assert drop(ms.Tensor(x)).asnumpy().dtype == np_dt


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)
        self.bn = nn.BatchNorm2d(3)
        self.drop = nn.Dropout(p=0.2)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        self.dense = nn.Dense(3 * 4 * 4, 5)

    def construct(self, x, y):
        h = self.drop(self.bn(self.conv(x)))
        return self.loss(self.dense(ops.Reshape()(h, (x.shape[0], -1))), y)


def test_a_second_identical_training_graph_reuses_every_kernel(graph_mode):
    x = ms.Tensor(rng.normal(size=(2, 2, 4, 4)).astype(np.float32))
    y = ms.Tensor(np.array([1, 4], np.int32))
    reports = []
    for _ in range(2):
        net = _Net()
        net.set_train(True)
        ms.grad(net, None, net.trainable_params())(x, y)
        reports.append(ms.build_report())
    first, second = reports
    ops_built = {k.op for k in first.kernels}
    assert {"BatchNormTraining", "BatchNormGrad", "Dropout", "DropoutGrad", "SoftmaxCrossEntropyWithLogits",
            "Conv2DBackpropFilter"} <= ops_built
    assert second.built == 0 and second.reused == len(second.kernels) == len(first.kernels)
