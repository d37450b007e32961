"""Accuracy and Loss metrics: MindSpore's clear/update/eval API; nn.Accuracy is opbuild.train.Accuracy."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
from opbuild.train import Accuracy, Loss


def test_accuracy_accumulates_over_batches_and_clears():
    assert nn.Accuracy is Accuracy and nn.Loss is Loss
    acc = Accuracy()
    acc.update(ms.Tensor(np.array([[0.2, 0.8], [0.9, 0.1], [0.3, 0.7]])), ms.Tensor(np.array([1, 1, 1])))
    acc.update(np.array([[0.6, 0.4]]), np.array([[1, 0]]))  # one-hot labels
    assert acc.eval() == pytest.approx(3 / 4)
    acc.clear()
    with pytest.raises(RuntimeError, match="0"):
        acc.eval()
    multi = Accuracy("multilabel")
    multi.update(np.array([[1, 0], [1, 1]]), np.array([[1, 0], [0, 1]]))
    assert multi.eval() == 0.5
    with pytest.raises(ValueError):
        Accuracy("regression")
    with pytest.raises(ValueError):
        acc.update(np.zeros((2, 3)))


def test_loss_metric_is_the_mean_of_the_updates():
    m = Loss()
    m.update(ms.Tensor(np.float32(2.0)))
    m.update(np.array([4.0]))
    assert m.eval() == pytest.approx(3.0)
    with pytest.raises(ValueError, match="scalar"):
        m.update(np.ones(3))
