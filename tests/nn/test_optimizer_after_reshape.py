"""An optimizer whose parameter was reshaped after it was created (``set_data(..., slice_shape=True)``, the
model-zoo idiom for adapting a classifier): its state for that parameter keeps the old shape, and the step is
refused with a RuntimeError naming the parameter, both shapes and the state (the update kernel's error named
only input numbers). An optimizer created after the reshape trains the new shape."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor, nn


class _Bias(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")

    def construct(self, x):
        return (x + self.b).sum()


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("make, state", [(lambda p: nn.Adam(p, learning_rate=0.1), r"\['moment1.b', 'moment2.b'\]"),
                                         (lambda p: nn.Momentum(p, 0.1, 0.9), r"\['moments.b'\]")])
def test_a_step_after_a_reshape_names_the_stale_state(mode, make, state):
    net = _Bias()
    step = nn.TrainOneStepCell(net, make(net.trainable_params()))
    x = Tensor(np.ones((2, 3), np.float32))
    step(x)
    net.b.set_data(Tensor(np.zeros(1, np.float32)), slice_shape=True)
    with pytest.raises(RuntimeError, match=rf"the parameter 'b' has shape \(1,\) but had \(3,\) when the optimizer "
                                           rf"was created, and its state {state} keeps the old shape"):
        step(x)


def test_an_optimizer_created_after_the_reshape_trains(mode):
    net = _Bias()
    net.b.set_data(Tensor(np.zeros(1, np.float32)), slice_shape=True)
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), learning_rate=0.1))
    step(Tensor(np.ones((2, 3), np.float32)))
    # d/db of sum(x + b) with b broadcast over 6 elements is 6: plain SGD moves b by -0.1 * 6.
    np.testing.assert_allclose(net.b.asnumpy(), [-0.6], rtol=1e-6)
