"""Idioms of model zoos written for MindSpore (mindcv's train step, optimizers and model builders) that
opbuild must accept unchanged: MindSpore's gradient-accumulation helpers mapped with ``HyperMap``, the
optimizers' ``opt_init_args_register`` decorator, plain attributes set before ``Cell.__init__``, and
``Parameter.set_data(..., slice_shape=True)`` reshaping a weight (with compiled graphs rebuilt for it)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, ParameterTuple, Tensor, nn, ops
from opbuild.boost.grad_accumulation import gradient_accumulation_op, gradient_clear_op
from opbuild.nn.optim.optimizer import Optimizer, opt_init_args_register
from opbuild.ops import functional as F


class _Accumulate(nn.Cell):
    """mindcv's accumulation step: add grads / steps into the accumulators, or clear them."""

    def __init__(self, accumulators: ParameterTuple, steps: int):
        super().__init__()
        self.acc = accumulators
        self.steps = steps
        self.hyper_map = ops.HyperMap()

    def construct(self, g0: Tensor, g1: Tensor) -> Tensor:
        done = self.hyper_map(F.partial(gradient_accumulation_op, self.steps), self.acc, (g0, g1))
        return F.depend(g0.sum(), done)


class _Clear(nn.Cell):
    def __init__(self, accumulators: ParameterTuple):
        super().__init__()
        self.acc = accumulators
        self.hyper_map = ops.HyperMap()

    def construct(self, x: Tensor) -> Tensor:
        return F.depend(x, self.hyper_map(F.partial(gradient_clear_op), self.acc))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gradient_accumulation_ops_through_hyper_map(mode):
    ms.set_context(mode=mode)
    try:
        acc = ParameterTuple([Parameter(Tensor(np.zeros((2, 3), np.float32)), name="acc.a"),
                              Parameter(Tensor(np.zeros((4,), np.float32)), name="acc.b")])
        step = _Accumulate(acc, 4)
        rng = np.random.default_rng(0)
        grads = [(rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(4).astype(np.float32))
                 for _ in range(3)]
        for g0, g1 in grads:
            step(Tensor(g0), Tensor(g1))
        np.testing.assert_allclose(acc[0].asnumpy(), sum(g[0] for g in grads) / 4, rtol=1e-6)
        np.testing.assert_allclose(acc[1].asnumpy(), sum(g[1] for g in grads) / 4, rtol=1e-6)
        _Clear(acc)(Tensor(np.ones(1, np.float32)))
        assert not acc[0].asnumpy().any() and not acc[1].asnumpy().any()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _ZooSGD(Optimizer):
    """An optimizer written as model zoos write theirs, with MindSpore's decorator on ``__init__``."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, momentum=0.9, nesterov=False):
        super().__init__(learning_rate, params)
        self.momentum = momentum

    def construct(self, gradients):
        return gradients


def test_opt_init_args_register_records_the_arguments():
    net = nn.Dense(3, 2)
    opt = _ZooSGD(net.trainable_params(), learning_rate=Tensor(np.array([0.1, 0.05], np.float32)), momentum=0.8)
    assert opt.init_params["params"] == net.trainable_params()
    np.testing.assert_allclose(opt.init_learning_rate, [0.1, 0.05], rtol=1e-6)
    # Only the arguments given, by name, without params and learning_rate (defaults are not filled in).
    assert opt.init_args == {"momentum": 0.8}
    assert opt.momentum == 0.8
    schedule = nn.ExponentialDecayLR(0.1, 0.9, 4)
    assert _ZooSGD(net.trainable_params(), schedule).init_learning_rate is None


class _OptionsFirst(nn.Dense):
    def __init__(self, sk_kwargs):
        self.sk_kwargs = sk_kwargs  # before super().__init__, as mindcv's SKNet
        super().__init__(3, 2)


def test_plain_attribute_before_cell_init():
    cell = _OptionsFirst({"reduction": 16})
    assert cell.sk_kwargs == {"reduction": 16}
    assert [p.name for p in cell.trainable_params()] == ["weight", "bias"]


def test_parameter_or_cell_before_cell_init_is_refused():
    class Early(nn.Cell):
        def __init__(self):
            self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
            super().__init__()

    with pytest.raises(AttributeError, match=r"super\(\).__init__\(\) before assigning the Parameter 'w'"):
        Early()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_set_data_slice_shape_reshapes_and_graphs_follow(mode):
    ms.set_context(mode=mode)
    try:
        net = nn.Dense(4, 3)
        x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
        assert net(x).shape == (2, 3)
        w = np.arange(20, dtype=np.float32).reshape(5, 4) / 10
        b = np.arange(5, dtype=np.float32)
        with pytest.raises(ValueError, match="slice_shape=True"):
            net.weight.set_data(Tensor(w))
        assert net.weight.shape == (3, 4)  # a refused set_data leaves the parameter as it was
        net.weight.set_data(Tensor(w), slice_shape=True)
        net.bias.set_data(Tensor(b), slice_shape=True)
        assert net.weight.shape == (5, 4)
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() @ w.T + b, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_set_data_slice_shape_rebuilds_jit_functions():
    weight = Parameter(Tensor(np.ones((2, 3), np.float32)), name="jit_w")

    @ms.jit
    def total(x):
        return ops.matmul(weight, x).sum()

    x = Tensor(np.ones((3, 1), np.float32))
    assert float(total(x).asnumpy()) == 6.0
    weight.set_data(Tensor(np.ones((4, 3), np.float32)), slice_shape=True)
    assert float(total(x).asnumpy()) == 12.0


def test_multitype_scalar_type_names():
    # Recorded from MindSpore 2.10: a Python int matches "Int64" (not "Int32"), a float "Float64" (not
    # "Float32"), a bool "Bool" and "Number" but not "Int64".
    f = ops.MultitypeFuncGraph("widths")
    f.register("Int64")(lambda x: "int64")
    f.register("Float64")(lambda x: "float64")
    f.register("Bool")(lambda x: "bool")
    assert (f(1), f(1.5), f(True)) == ("int64", "float64", "bool")
    g = ops.MultitypeFuncGraph("narrow")
    g.register("Int32")(lambda x: "int32")
    g.register("Float32")(lambda x: "float32")
    with pytest.raises(TypeError, match="no implementation registered"):
        g(1)
