"""The losses of opbuild.nn against NumPy references (MindSpore's / torch's definitions), their reductions and
errors, and their gradients through ms.grad against finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from tests.ops.test_grads import check

rng = np.random.default_rng(7)
N, C = 5, 4
LOGITS = rng.normal(size=(N, C))
LABELS = np.array([0, 3, 1, 3, 2], np.int32)
PROBS = rng.random((N, C))
PROBS /= PROBS.sum(1, keepdims=True)
WEIGHT = np.array([0.5, 2.0, 1.0, 1.5])


def _logp(x):
    z = x - x.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def _reduce(v, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction](v)


def _ce_indices(x, y, w, ignore, ls, reduction):
    lp = _logp(x)
    valid = (y != ignore).astype(float)
    ys = np.where(y == ignore, 0, y)
    wy = w[ys] * valid
    nll = -lp[np.arange(len(y)), ys] * wy
    smooth = -(lp * w).sum(1) / x.shape[1] * valid
    per = (1 - ls) * nll + ls * smooth
    return per.sum() / wy.sum() if reduction == "mean" else _reduce(per, reduction)


def _run(cell, *arrays):
    return cell(*[ms.Tensor(a) for a in arrays]).asnumpy()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_dense_and_sparse(mode, reduction):
    dense = _run(nn.SoftmaxCrossEntropyWithLogits(reduction=reduction), LOGITS, PROBS)
    np.testing.assert_allclose(dense, _reduce(-(PROBS * _logp(LOGITS)).sum(1), reduction), rtol=1e-12)
    sparse = _run(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction), LOGITS, LABELS)
    np.testing.assert_allclose(sparse, _reduce(-_logp(LOGITS)[np.arange(N), LABELS], reduction), rtol=1e-12)
    assert nn.SoftmaxCrossEntropyWithLogits().reduction == "none"  # MindSpore's default


def test_softmax_cross_entropy_primitives():
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(ms.Tensor(LOGITS), ms.Tensor(PROBS))
    np.testing.assert_allclose(backprop.asnumpy(), np.exp(_logp(LOGITS)) - PROBS, atol=1e-14)
    mean = ops.SparseSoftmaxCrossEntropyWithLogits()(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    np.testing.assert_allclose(mean.asnumpy(), -_logp(LOGITS)[np.arange(N), LABELS].mean(), rtol=1e-12)
    grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    np.testing.assert_allclose(grad.asnumpy(), (np.exp(_logp(LOGITS)) - np.eye(C)[LABELS]) / N, atol=1e-14)
    bad = ops.SparseSoftmaxCrossEntropyWithLogits()(ms.Tensor(LOGITS), ms.Tensor(np.array([0, 9, 1, 1, 1])))
    assert np.isnan(bad.asnumpy())  # an out-of-range label is visible, never silently ignored


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
def test_cross_entropy_loss_indices(mode, reduction, ls):
    y = LABELS.copy()
    y[2] = -100  # ignored
    got = _run(nn.CrossEntropyLoss(weight=ms.Tensor(WEIGHT), reduction=reduction, label_smoothing=ls), LOGITS, y)
    np.testing.assert_allclose(got, _ce_indices(LOGITS, y, WEIGHT, -100, ls, reduction), rtol=1e-10)
    plain = _run(nn.CrossEntropyLoss(), LOGITS, LABELS)
    np.testing.assert_allclose(plain, -_logp(LOGITS)[np.arange(N), LABELS].mean(), rtol=1e-12)


def test_cross_entropy_loss_probabilities():
    got = _run(nn.CrossEntropyLoss(label_smoothing=0.1), LOGITS, PROBS)
    t = PROBS * 0.9 + 0.1 / C
    np.testing.assert_allclose(got, -(t * _logp(LOGITS)).sum(1).mean(), rtol=1e-12)


def test_regression_and_bce_losses(mode):
    x, y = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(_run(nn.MSELoss(), x, y), np.mean((x - y) ** 2), rtol=1e-12)
    np.testing.assert_allclose(_run(nn.L1Loss(reduction="sum"), x, y), np.abs(x - y).sum(), rtol=1e-12)
    t = (rng.random((3, 4)) > 0.5).astype(np.float64)
    w, pw = rng.random(4) + 0.5, rng.random(4) + 0.5
    x[0, 0], x[1, 1] = 60.0, -60.0  # the stable form does not overflow
    # -log(sigmoid(x)) = logaddexp(0, -x), -log(1 - sigmoid(x)) = logaddexp(0, x): a reference without overflow
    ref = w * (pw * t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x))
    got = _run(nn.BCEWithLogitsLoss(reduction="none", weight=ms.Tensor(w), pos_weight=ms.Tensor(pw)), x, t)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_run(nn.BCEWithLogitsLoss(), x[1:], t[1:]),
                               np.mean((t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x))[1:]), rtol=1e-9)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(ms.ShapeError if hasattr(ms, "ShapeError") else Exception, match="class-index"):
        _run(nn.CrossEntropyLoss(), LOGITS, LABELS[:3])
    with pytest.raises(Exception, match="shape"):
        _run(nn.BCEWithLogitsLoss(), LOGITS, LOGITS[:2])


GRAD_CASES = {
    "sce_dense": lambda lab: (lambda x: nn.SoftmaxCrossEntropyWithLogits(reduction="none")(x, lab)),
    "sce_sparse_mean": lambda lab: (lambda x: nn.SoftmaxCrossEntropyWithLogits(True, "mean")(x, ms.Tensor(LABELS))),
    "sparse_primitive": lambda lab: (lambda x: ops.SparseSoftmaxCrossEntropyWithLogits()(x, ms.Tensor(LABELS))),
    "ce_weighted_smooth": lambda lab: (lambda x: nn.CrossEntropyLoss(ms.Tensor(WEIGHT), label_smoothing=0.1)(
        x, ms.Tensor(np.array([0, 3, -100, 3, 2], np.int32)))),
    "ce_probs": lambda lab: (lambda x: nn.CrossEntropyLoss(reduction="none")(x, lab)),
    "mse": lambda lab: (lambda x: nn.MSELoss(reduction="none")(x, lab)),
    "l1": lambda lab: (lambda x: nn.L1Loss()(x, lab)),
    "bce": lambda lab: (lambda x: nn.BCEWithLogitsLoss(pos_weight=ms.Tensor(np.array([1.0, 2.0, 0.5, 3.0])))(
        x, ms.Tensor((PROBS > 0.25).astype(np.float64)))),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_loss_gradients_match_finite_differences(case):
    fn = GRAD_CASES[case](ms.Tensor(PROBS))
    check(fn, LOGITS, rtol=1e-5, atol=1e-7)
