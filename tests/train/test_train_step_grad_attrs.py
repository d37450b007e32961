"""A ``TrainOneStepCell`` subclass with its own construct using the inherited ``self.grad``
(``GradOperation(get_by_list=True, sens_param=True)``), as the model zoo's BERT and Transformer train steps do,
on a network whose first input is int token ids: MindSpore 2.10's attributes, gradients, losses and weights
(tests/fixtures/mindspore/train_step_grad_attrs.json, by scripts/record_train_step_grad_attrs.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import opbuild as ob
from opbuild import nn, ops

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "train_step_grad_attrs.json")
                 .read_text())
IDS = np.array([[1, 3, 0], [2, 2, 4]], np.int32)
SCALE = np.array([[0.5], [-1.5]], np.float32)
EMB = (np.arange(20, dtype=np.float32).reshape(5, 4) % 7 - 3) * 0.1
W = (np.arange(8, dtype=np.float32).reshape(2, 4) % 5 - 2) * 0.2


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = ob.Parameter(ob.Tensor(EMB), name="emb")
        self.w = ob.Parameter(ob.Tensor(W), name="w")

    def construct(self, ids, scale):
        h = ops.gather(self.emb, ids, 0).mean(1)
        return ((ops.matmul(h, self.w.T) * scale) ** 2).sum()


class Step(nn.TrainOneStepCell):
    def construct(self, ids, scale):
        loss = self.network(ids, scale)
        grads = self.grad(self.network, self.weights)(ids, scale, ops.fill(ob.float32, (), self.sens))
        self.optimizer(grads)
        return loss, grads


def test_inherited_grad_attributes_match_mindspore():
    net = Net()
    step = Step(net, nn.SGD(net.trainable_params(), learning_rate=0.1), sens=2.0)
    g, g0 = step.grad, step.grad_no_sens
    assert [g.get_all, g.get_by_list, g.sens_param] == FIX["flags"]["grad"]
    assert [g0.get_all, g0.get_by_list, g0.sens_param] == FIX["flags"]["grad_no_sens"]
    assert step.parallel_mode == FIX["flags"]["parallel_mode"]


def test_subclass_steps_with_int_first_input_match_mindspore():
    ob.set_context(mode=ob.GRAPH_MODE)
    net = Net()
    step = Step(net, nn.SGD(net.trainable_params(), learning_rate=0.1), sens=2.0)
    for rec in FIX["steps"]:
        loss, grads = step(ob.Tensor(IDS), ob.Tensor(SCALE))
        np.testing.assert_allclose(float(loss.asnumpy()), rec["loss"], rtol=1e-5)
        assert len(grads) == 2
        for got, want in zip(grads, rec["grads"], strict=True):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(net.emb.asnumpy(), rec["emb"], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(net.w.asnumpy(), rec["w"], rtol=1e-5, atol=1e-7)
