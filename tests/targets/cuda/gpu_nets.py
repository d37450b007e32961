"""Networks the GPU executor tests run on the emulated device and the CPU alike: built only from ops that have
GPU emitters (Gather, MatMul, Softmax, Transpose, elementwise, reductions; their gradients; Assign and
ApplyMomentum for the in-place path)."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild import nn, ops


def weights(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"emb": rng.standard_normal((20, 16)).astype(np.float32),
            "w1": rng.standard_normal((16, 32)).astype(np.float32) * 0.3,
            "w2": rng.standard_normal((32, 10)).astype(np.float32) * 0.3}


class Net(nn.Cell):
    """Embedding lookup, two MatMuls with softmaxes between, a transpose pair, a mean squared error."""

    def __init__(self, w: dict[str, np.ndarray]):
        super().__init__()
        self.emb = ms.Parameter(ms.Tensor(w["emb"]), name="emb", requires_grad=False)
        self.w1 = ms.Parameter(ms.Tensor(w["w1"]), name="w1")
        self.w2 = ms.Parameter(ms.Tensor(w["w2"]), name="w2")

    def logits(self, idx):
        x = ops.gather(self.emb, idx, 0)
        h = ops.softmax(ops.matmul(x, self.w1), axis=-1)
        h = ops.transpose(ops.transpose(h, (1, 0)) * 2.0, (1, 0))
        return ops.matmul(h, self.w2)

    def construct(self, y, idx):
        p = ops.softmax(self.logits(idx), axis=-1)
        return ops.mean((p - y) ** 2)


class Predict(nn.Cell):
    """The logits of a :class:`Net` (another graph over the same Parameters)."""

    def __init__(self, net: Net):
        super().__init__()
        self.net = net

    def construct(self, idx):
        return self.net.logits(idx)


class Grads(nn.Cell):
    """Gradients of the loss with respect to the trainable weights (GradOperation, get_by_list)."""

    def __init__(self, net: Net):
        super().__init__()
        self.net = net
        self.params = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, y, idx):
        return self.grad(self.net, self.params)(y, idx)


class SGDStep(nn.Cell):
    """One training step: gradients, then ``w = w - lr * g`` with Assign (an in-place update, as optimizers
    make), returning the loss before the update and the gradients (a graph output is never absorbed into a
    MatMul's epilogue: the FusedMatMul kernel is another branch's work)."""

    def __init__(self, net: Net, lr: float = 0.5):
        super().__init__()
        self.net, self.lr = net, lr
        self.grads = Grads(net)

    def construct(self, y, idx):
        loss = self.net(y, idx)
        grads = self.grads(y, idx)
        for p, g in zip(self.grads.params, grads):
            ops.assign(p, p - g * self.lr)
        return loss, grads


def data(seed: int = 1) -> tuple[ms.Tensor, ms.Tensor]:
    rng = np.random.default_rng(seed)
    return (ms.Tensor(rng.random((6, 10)).astype(np.float32)),
            ms.Tensor(np.array([1, 5, 7, 19, 0, 3], np.int64)))


def train_momentum(steps: int) -> tuple[list[float], list[np.ndarray]]:
    """``steps`` of TrainOneStepCell(Net, Momentum) (ApplyMomentum updates in place): losses, weights."""
    net = Net(weights())
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    y, idx = data()
    losses = [float(step(y, idx).asnumpy()) for _ in range(steps)]
    return losses, [net.w1.asnumpy().copy(), net.w2.asnumpy().copy()]


__all__ = ["Grads", "Net", "Predict", "SGDStep", "data", "train_momentum", "weights"]
