"""``ops.depend(value, expr)``: MindSpore's ordering hint in hand-written train steps
(``loss = ops.depend(loss, self.optimizer(grads))``): the value comes back, and the optimizer's in-place update
that ``expr`` made runs, in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops


class _Step(nn.Cell):
    def __init__(self, net: nn.Cell, optimizer: nn.Optimizer):
        super().__init__()
        self.net, self.optimizer = net, optimizer
        self.grad = ms.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), None, optimizer.parameters)

    def construct(self, x, y):
        loss, grads = self.grad(x, y)
        return ops.depend(loss, self.optimizer(grads))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_depend_returns_the_value_and_the_update_runs(mode) -> None:
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((8, 3)).astype(np.float32))
        y = ms.Tensor(rng.standard_normal((8, 1)).astype(np.float32))
        net = nn.Dense(3, 1)
        w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
        step = _Step(net, nn.SGD(net.trainable_params(), learning_rate=0.1))
        first = float(step(x, y).asnumpy())
        w1 = net.weight.asnumpy().copy()
        second = float(step(x, y).asnumpy())
    finally:
        ms.set_context(mode=old)
    err = x.asnumpy() @ w0.T + b0 - y.asnumpy()
    assert first == pytest.approx(float((err ** 2).mean()), rel=1e-5)  # the loss before the update
    want_w1 = w0 - 0.1 * (2 * err * x.asnumpy()).mean(0, keepdims=True)
    np.testing.assert_allclose(w1, want_w1, rtol=1e-5, atol=1e-6)  # the optimizer ran in the step
    assert second < first
