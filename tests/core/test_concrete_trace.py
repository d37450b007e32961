"""Control flow over tensor values inside differentiated functions (core/concrete_trace.py, autograd.py): one
compiled graph per path, guards that send a call down another path, reuse without tracing."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops


def _t(*v):
    return Tensor(np.array(v, np.float32))


def test_each_path_is_traced_once_and_reused(pynative_mode):
    traces = []

    def f(x):
        traces.append(1)  # runs only while tracing
        if x.sum() > 0:
            return (x * x).sum()
        return (-2 * x).sum()

    g = ms.grad(f)
    np.testing.assert_array_equal(g(_t(1, 2)).asnumpy(), [2, 4])
    assert len(traces) == 1
    np.testing.assert_array_equal(g(_t(3, 1)).asnumpy(), [6, 2])  # same path: the compiled graph, no trace
    assert len(traces) == 1
    np.testing.assert_array_equal(g(_t(-1, -1)).asnumpy(), [-2, -2])  # another path: traced once
    assert len(traces) == 2
    np.testing.assert_array_equal(g(_t(-5, 1)).asnumpy(), [-2, -2])
    assert len(traces) == 2
    # Back to the first path: the guard fails on the last graph, whose run tells the decision this call takes;
    # the path compiled before with that decision runs, without tracing.
    np.testing.assert_array_equal(g(_t(2, 2)).asnumpy(), [4, 4])
    np.testing.assert_array_equal(g(_t(-2, 1)).asnumpy(), [-2, -2])
    np.testing.assert_array_equal(g(_t(1, 1)).asnumpy(), [2, 2])
    assert len(traces) == 2


def test_nested_conditions_find_their_compiled_path(pynative_mode):
    traces = []

    def f(x):
        traces.append(1)
        if x.sum() > 0:
            if x.max() > 5:
                return (x * 3).sum()
            return (x * 2).sum()
        return (-x).sum()

    g = ms.grad(f)
    expect = {(1.0, 1.0): 2, (9.0, 1.0): 3, (-1.0, -1.0): -1}
    for point, slope in [*expect.items(), *expect.items(), *reversed(expect.items())]:
        np.testing.assert_array_equal(g(_t(*point)).asnumpy(), [slope, slope])
    assert len(traces) == 3  # one trace per path, whatever the order of the calls


def test_loop_trip_count_is_a_path(pynative_mode):
    def f(x):
        n = 0
        while x.sum() < 8:
            x = x * 2
            n += 1
        return x.sum() + n

    vg = ms.value_and_grad(f)
    for start, (value, grad) in {1.0: (8 + 3, 8), 3.0: (12 + 2, 4), 0.5: (8 + 4, 16)}.items():
        out, g = vg(Tensor(np.full(2, start / 2, np.float32)))
        assert out.asnumpy() == pytest.approx(value)
        np.testing.assert_array_equal(g.asnumpy(), [grad, grad])


def test_int_conversion_and_nested_gradients(pynative_mode):
    def f(x):
        k = int(x.sum())
        return x ** k

    g2 = ms.grad(ms.grad(f))  # second derivative, the condition answered by the outer trace's values
    assert g2(_t(2.0)).asnumpy() == pytest.approx([2 * 1 * 2 ** 0])  # k = 2: d2/dx2 x^2 = 2
    assert g2(_t(3.0)).asnumpy() == pytest.approx([3 * 2 * 3.0])  # k = 3: 6x


def test_gradient_in_a_graph_mode_train_step_runs_as_python(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            y = self.fc(x).sum()
            if y > 0:
                return y * y
            return -y

    net = Net()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    assert step(_t(1, 1).reshape(1, 2)).asnumpy() == pytest.approx(4.0)  # y = 2: dL/dw = 2y x = 4
    np.testing.assert_allclose(net.fc.weight.asnumpy(), [[0.6, 0.6]], rtol=1e-6)
    # bias -0.4 after the first step: y = -1.6, the other branch: dL/dw = -x = 1
    assert step(_t(-1, -1).reshape(1, 2)).asnumpy() == pytest.approx(1.6)
    np.testing.assert_allclose(net.fc.weight.asnumpy(), [[0.5, 0.5]], rtol=1e-6)
    why = ms.explain(step, _t(1, 1).reshape(1, 2))
    assert "runs as Python" in str(why) and "if y > 0:" in str(why)


def test_print_inside_a_gradient_prints_once_on_the_path_taken(pynative_mode, capsys):
    def f(x):
        if x.sum() > 0:
            x = x * 2
        ops.print_("x", x)
        return x.sum()

    g = ms.grad(f)
    g(_t(1.0))
    g(_t(-1.0))  # the graph of the first path runs first; its guard fails and it must not print
    assert capsys.readouterr().out == ("x\nTensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])\n"
                                       "x\nTensor(shape=[1], dtype=Float32, value= [-1.00000000e+00])\n")
