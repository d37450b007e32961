"""A Tensor assigned to a Parameter attribute writes the Parameter, as in MindSpore 2.10 (checked by hand on its
CPU build: the attribute stays the same Parameter object, with the new values, in both modes). It used to
replace the Parameter: by a plain Tensor in PyNative (an optimizer holding the Parameter never saw the value
again), and by the trace's symbolic tensor in GRAPH_MODE (every later read of the attribute raised)."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import Parameter, Tensor, nn


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.step = Parameter(Tensor(np.array(0, np.int32)), name="step", requires_grad=False)

    def construct(self, x):
        self.step += 1
        return x * self.step


class _Doubler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    def construct(self, x):
        self.w = self.w * 2
        return x * self.w


@pytest.mark.parametrize("mode", ["graph_mode", "pynative_mode"])
def test_assignment_in_construct_updates_the_parameter(mode, request):
    request.getfixturevalue(mode)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    counter, doubler = _Counter(), _Doubler()
    step, w = counter.step, doubler.w
    for n in range(1, 4):
        np.testing.assert_array_equal(counter(Tensor(x)).asnumpy(), x * n)
        np.testing.assert_array_equal(doubler(Tensor(x)).asnumpy(), x * 2.0 ** n)
        assert counter.step is step and doubler.w is w  # still the registered Parameters
        assert int(step.asnumpy()) == n
        np.testing.assert_array_equal(w.asnumpy(), np.full(3, 2.0 ** n, np.float32))
    assert [p.name for p in doubler.trainable_params()] == ["w"] and doubler.trainable_params()[0] is w


def test_assignment_outside_construct_sets_the_data_in_the_parameter_dtype():
    net = _Doubler()
    w = net.w
    net.w = Tensor(np.array([1, 2, 3], np.int32))
    assert net.w is w and w.dtype == Tensor(np.ones(1, np.float32)).dtype
    np.testing.assert_array_equal(w.asnumpy(), np.array([1.0, 2.0, 3.0], np.float32))
    net.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w2")  # a Parameter still replaces it
    assert net.w is not w and net.w.shape == (2,)
