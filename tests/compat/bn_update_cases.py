"""How many times BatchNorm's moving statistics move in one call of a train step: a network of one or two
BatchNorm calls (momentum 0.5, so each update is visible in the moving mean) run through a forward then its
gradient on the same inputs (mindcv's TrainStep), on other inputs, a forward called twice, two gradients,
value_and_grad, WithGradCell and TrainOneStepCell, in GRAPH_MODE and in PyNative (with and without
``set_grad`` on the network). Run by scripts/record_bn_update_count.py under MindSpore 2.10 and by
tests/compat/test_bn_update_count.py under opbuild: ``run(ms, mode)`` -> {case: moving mean and variance}."""

from __future__ import annotations

import numpy as np

# The step's variants (what construct does); MindSpore 2.10 refuses a gradient before the forward in
# GRAPH_MODE (a cycle in its graph) and folds ``x * 1`` into ``x``: neither is recorded.
VARIANTS = ("same", "sens", "other_input", "forward_twice", "value_and_grad_after_forward", "grad_twice",
            "value_and_grad")


def _classes(ms):
    nn, ops = ms.nn, ms.ops

    class Net(nn.Cell):
        def __init__(self, twice):
            super().__init__()
            self.bn = nn.BatchNorm1d(3, momentum=0.5)
            self.twice = twice

        def construct(self, x):
            if self.twice:
                return (self.bn(x) * x).sum() + (self.bn(x * 2) * x).sum()
            return (self.bn(x) ** 2 * x).sum()

    class Step(nn.Cell):
        def __init__(self, net, variant):
            super().__init__()
            self.net, self.variant = net, variant
            self.weights = ms.ParameterTuple(net.trainable_params())
            self.grad = ops.GradOperation(get_by_list=True)
            self.grad_sens = ops.GradOperation(get_by_list=True, sens_param=True)
            self.value_and_grad = ms.value_and_grad(net, None, self.weights)

        def construct(self, x):
            v = self.variant
            if v == "same":
                loss = self.net(x)
                g = self.grad(self.net, self.weights)(x)
            elif v == "sens":
                loss = self.net(x)
                g = self.grad_sens(self.net, self.weights)(x, ops.ones_like(loss))
            elif v == "other_input":
                loss = self.net(x)
                g = self.grad(self.net, self.weights)(x * 2)
            elif v == "forward_twice":
                loss = self.net(x) + self.net(x)
                g = self.grad(self.net, self.weights)(x)
            elif v == "value_and_grad_after_forward":
                loss = self.net(x)
                loss, g = self.value_and_grad(x)
            elif v == "grad_twice":
                g = self.grad(self.net, self.weights)(x)
                g = self.grad(self.net, self.weights)(x)
                loss = g[0].sum()
            else:
                loss, g = self.value_and_grad(x)
            return loss, g

    return Net, Step


def _stats(net, out=None) -> dict:
    stats = {"mean": [float(v) for v in net.bn.moving_mean.asnumpy()],
             "variance": [float(v) for v in net.bn.moving_variance.asnumpy()]}
    if out is not None:  # the step's loss and gradients (of gamma and beta), summed
        loss, grads = out
        stats["loss"] = float(loss.asnumpy())
        stats["grads"] = [float(g.asnumpy().sum()) for g in grads]
    return stats


def run(ms, mode: str) -> dict:
    """Every case in ``mode`` ("graph" or "pynative"), each on a fresh network, called twice."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    Net, Step = _classes(ms)
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 4)
    out = {}
    for variant in VARIANTS:
        for twice in (False, True):
            for set_grad in (False, True) if mode == "pynative" else (False,):
                net = Net(twice)
                if set_grad:
                    net.set_grad()
                step = Step(net, variant)
                step.set_train()
                step(x)
                result = step(x)
                key = f"{variant}/{'two_bn' if twice else 'one_bn'}{'/set_grad' if set_grad else ''}"
                out[key] = _stats(net, result)
    for name in ("WithGradCell", "TrainOneStepCell"):
        net = Net(False)
        cell = ms.nn.WithGradCell(net) if name == "WithGradCell" else \
            ms.nn.TrainOneStepCell(net, ms.nn.SGD(net.trainable_params(), 0.0))
        cell.set_train()
        cell(x)
        cell(x)
        out[name] = _stats(net)
    # From Python: a forward of the network (marked by TrainOneStepCell, or by set_grad), then the train step
    # or a gradient of the network on the same Tensor.
    net = Net(False)
    cell = ms.nn.TrainOneStepCell(net, ms.nn.SGD(net.trainable_params(), 0.0))
    cell.set_train()
    net(x)
    cell(x)
    out["forward_then_TrainOneStepCell"] = _stats(net)
    net = Net(False)
    net.set_grad()
    net.set_train()
    net(x)
    ms.grad(net, None, ms.ParameterTuple(net.trainable_params()))(x)
    out["forward_then_grad"] = _stats(net)
    return out
