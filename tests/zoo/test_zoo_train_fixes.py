"""The opbuild fixes mindcv's training pipeline needed, each on its own (no mindcv): one-sided clip_by_value,
the Optimizer attributes custom optimizers read (MindSpore's base-class fields, the list learning rate as a
callable schedule), TrainOneStepWithLossScaleCell's overflow-check steps and TrainOneStepCell's ``grad``, a
number assigned to a Parameter attribute inside a traced construct, and a GradientAccumulation subclass with its
own construct."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor, boost, nn, ops
from opbuild.boost.grad_accumulation import gradient_accumulation_op, gradient_clear_op


def test_clip_by_value_takes_one_bound_or_a_tuple() -> None:
    x = np.array([-2.0, 0.5, 3.0], np.float32)
    np.testing.assert_array_equal(ops.clip_by_value(Tensor(x), clip_value_max=Tensor(1.0)).asnumpy(),
                                  np.minimum(x, 1.0))
    np.testing.assert_array_equal(ops.clip_by_value(Tensor(x), clip_value_min=0.0).asnumpy(), np.maximum(x, 0.0))
    both = ops.clip_by_value([Tensor(x), Tensor(x * 2)], 0.0, 1.0)
    assert isinstance(both, tuple)
    np.testing.assert_array_equal(both[1].asnumpy(), np.clip(x * 2, 0.0, 1.0))
    with pytest.raises(ValueError, match="at least one"):
        ops.clip_by_value(Tensor(x))


def _params() -> list[Parameter]:
    return [Parameter(np.ones((2, 2), np.float32), name="w"), Parameter(np.ones(2, np.float32), name="bn.gamma")]


def test_optimizer_exposes_mindspores_base_fields() -> None:
    opt = nn.Momentum(_params(), learning_rate=[0.1, 0.2, 0.3], momentum=0.9, weight_decay=0.01, loss_scale=4.0)
    assert opt._is_dynamic_lr_or_weight_decay() and opt.dynamic_weight_decay is False
    assert opt.decay_flags == (True, False)  # 'gamma'/'beta' are filtered without groups
    assert float(opt.weight_decay.asnumpy()) == pytest.approx(0.04)  # times loss_scale, as MindSpore stores it
    assert float(opt.reciprocal_scale.asnumpy()) == 0.25 and opt.optim_filter == (True, True)
    assert opt.use_parallel is False and opt.global_step_increase_tensor.asnumpy().tolist() == [1]
    grads = (Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones(2, np.float32)))
    assert opt.flatten_gradients(grads) == grads and opt._grad_sparse_indices_deduplicate(grads) == grads
    # a list rate is a schedule cell, as MindSpore's: callable with a step, its Parameter named learning_rate
    assert isinstance(opt.learning_rate, nn.LearningRateSchedule)
    np.testing.assert_allclose(opt.learning_rate(Tensor(np.array([1], np.int32))).asnumpy(), [0.2])
    np.testing.assert_allclose(opt.learning_rate(Tensor(np.array([7], np.int32))).asnumpy(), [0.3])
    assert "learning_rate" in [p.name for p in opt.get_parameters()]
    static = nn.SGD([{"params": _params()[:1], "weight_decay": 0.5}, {"params": _params()[1:]}], 0.1)
    assert static.decay_flags == (True, False) and not static._is_dynamic_lr_or_weight_decay()
    assert [float(w.asnumpy()) for w in static.weight_decay] == [0.5, 0.0]


def test_list_learning_rate_still_steps_the_update() -> None:
    p = Parameter(np.zeros(1, np.float32), name="p")
    opt = nn.SGD([p], learning_rate=[1.0, 2.0])
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [-5.0])  # 1 + 2 + 2 (the last rate stays)


class _Scaled(nn.TrainOneStepWithLossScaleCell):
    """A subclass written as MindSpore's model zoos write theirs (mindcv's TrainStep)."""

    def construct(self, x, y):
        loss = self.network(x, y)
        status, scale = self.start_overflow_check(loss, self.scale_sense)
        sens = ops.ones_like(loss) * ops.cast(scale, loss.dtype)
        grads = self.grad(self.network, self.weights)(x, y, sens)
        grads = self.hyper_map(ops.partial(lambda s, g: g / s, scale), grads)
        overflow = self.process_loss_scale(self.get_overflow_status(status, grads))
        return loss, overflow, self.optimizer(grads)


def test_loss_scale_cell_offers_the_overflow_check_steps() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), 0.1)
    cell = _Scaled(nn.WithLossCell(net, nn.MSELoss()), opt, Tensor(np.array(8.0, np.float32)))
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.zeros((2, 1), np.float32))
    loss, overflow, _ = cell(x, y)
    assert float(loss.asnumpy()) == 9.0 and not bool(overflow.asnumpy())
    # d/dw mean((3)^2) = 2*3*x = 6 per weight; SGD: 1 - 0.1 * 6 (the 8x scale divided back out)
    np.testing.assert_allclose(net.weight.asnumpy(), np.full((1, 3), 0.4), rtol=1e-6)


class _Counter(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.step = Parameter(Tensor(0, ms.int32), name="step")

    def construct(self, x):
        self.step += 1
        if self.step >= 2:
            self.step = 0  # a number written to the Parameter, as MindSpore's graph compiler does
        return x * 2


def test_a_number_assigned_to_a_parameter_in_construct_writes_it() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    cell = _Counter()
    seen = []
    for _ in range(3):
        cell(Tensor(np.ones(1, np.float32)))
        assert isinstance(cell.step, Parameter)
        seen.append(int(cell.step.asnumpy()))
    assert seen == [1, 0, 1]


class _Accumulate(boost.GradientAccumulation):
    """mindcv's form: its own construct (a tensor condition on the step count) inside the train step's graph."""

    def construct(self, loss, grads):
        loss = ops.depend(loss, self.hyper_map(ops.partial(gradient_accumulation_op,
                                                            self._max_accumulation_step),
                                               self._grad_accumulation, grads))
        self._accumulation_step += 1
        if self._accumulation_step >= self._max_accumulation_step:
            loss = ops.depend(loss, self.optimizer(self._grad_accumulation))
            loss = ops.depend(loss, self.hyper_map(gradient_clear_op, self._grad_accumulation))
            self._accumulation_step = 0
        return loss


class _Step(nn.TrainOneStepCell):
    def __init__(self, network, optimizer) -> None:
        super().__init__(network, optimizer)
        self.accumulate = _Accumulate(2, optimizer)

    def construct(self, x, y):
        loss, grads = self.grad_fn(x, y)
        return self.accumulate(loss, grads)


def test_a_gradient_accumulation_subclass_runs_inside_a_train_step() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(1, 1, weight_init="zeros", bias_init="zeros", has_bias=False)
    step = _Step(nn.WithLossCell(net, nn.L1Loss()), nn.SGD(net.trainable_params(), 1.0))
    weights = []
    for _ in range(4):  # d|w - 3|/dw = -1 while w < 3: every second step adds the mean, 1
        step(Tensor(np.ones((1, 1), np.float32)), Tensor(np.full((1, 1), 3.0, np.float32)))
        weights.append(float(net.weight.asnumpy().reshape(())))
    assert weights == [0.0, 1.0, 1.0, 2.0]
