#!/usr/bin/env python3
"""Record MindSpore 2.10's ``TrainOneStepCell`` subclass that computes its gradients with the inherited
``self.grad`` (``GradOperation(get_by_list=True, sens_param=True)``), as the model zoo's BERT and Transformer
train steps do, on a network whose first input is int token ids, into
tests/fixtures/mindspore/train_step_grad_attrs.json: the inherited attributes' flags, the weights' gradients
and the losses and weights over three steps. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_train_step_grad_attrs.py [out.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "train_step_grad_attrs.json"
IDS = np.array([[1, 3, 0], [2, 2, 4]], np.int32)
SCALE = np.array([[0.5], [-1.5]], np.float32)
EMB = (np.arange(20, dtype=np.float32).reshape(5, 4) % 7 - 3) * 0.1
W = (np.arange(8, dtype=np.float32).reshape(2, 4) % 5 - 2) * 0.2


def main() -> None:
    import mindspore as ms
    from mindspore import nn, ops

    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        """Loss of token ids (int, first) and a float scale: sum((dense(mean embedding)) * scale)^2."""

        def __init__(self):
            super().__init__()
            self.emb = ms.Parameter(ms.Tensor(EMB), name="emb")
            self.w = ms.Parameter(ms.Tensor(W), name="w")

        def construct(self, ids, scale):
            h = ops.gather(self.emb, ids, 0).mean(1)
            return ((ops.matmul(h, self.w.T) * scale) ** 2).sum()

    class Step(nn.TrainOneStepCell):
        """The model zoo's pattern: its own construct with the inherited self.grad."""

        def construct(self, ids, scale):
            loss = self.network(ids, scale)
            grads = self.grad(self.network, self.weights)(ids, scale, ops.fill(ms.float32, (), self.sens))
            self.optimizer(grads)
            return loss, grads

    net = Net()
    step = Step(net, nn.SGD(net.trainable_params(), learning_rate=0.1), sens=2.0)
    flags = {"grad": [step.grad.get_all, step.grad.get_by_list, step.grad.sens_param],
             "grad_no_sens": [step.grad_no_sens.get_all, step.grad_no_sens.get_by_list,
                              step.grad_no_sens.sens_param], "parallel_mode": step.parallel_mode}
    steps = []
    for _ in range(3):
        loss, grads = step(ms.Tensor(IDS), ms.Tensor(SCALE))
        steps.append({"loss": float(loss.asnumpy()), "grads": [g.asnumpy().tolist() for g in grads],
                      "emb": net.emb.asnumpy().tolist(), "w": net.w.asnumpy().tolist()})
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps({"mindspore": ms.__version__, "flags": flags, "steps": steps}) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
