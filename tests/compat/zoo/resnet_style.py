"""A small program written only for MindSpore (its imports, its module paths, its idioms), run unmodified by
opbuild through the import alias (``opbuild run --as-mindspore``) and under real MindSpore 2.10 by
scripts/record_ms_surface.py. It prints one JSON line of results.

It builds a residual network the way vision model zoos do (conv3x3 without bias, BatchNorm, weight
initialisers that test ``cell.bias is not None``), runs it in GRAPH_MODE, and takes a loss and its gradients
with ``value_and_grad``. A child process imports mindspore again, which the alias must reach as well.
"""

import json
import subprocess
import sys

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops.operations as P
import numpy as np
from mindspore import Parameter, Tensor, ops
from mindspore.common import dtype as mstype
from mindspore.common.initializer import Zero, initializer
from mindspore.ops import functional as F

ms.set_context(mode=ms.GRAPH_MODE)


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, 3, stride=stride, pad_mode="pad", padding=1, has_bias=False)


class ResidualBlock(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = conv3x3(channels, channels)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = conv3x3(channels, channels)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.add = P.Add()

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(self.add(out, identity))


class TinyResNet(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3, pad_mode="same", has_bias=True)
        self.block = ResidualBlock(4)
        self.mean = P.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(4, num_classes)
        self.scale = Parameter(Tensor(np.array([1.5], np.float32)), name="scale")

    def construct(self, x):
        x = self.block(self.stem(x))
        x = self.mean(x, (2, 3))
        return self.fc(x) * self.scale


def init_weights(net):
    for _, cell in net.cells_and_names():
        if isinstance(cell, (nn.Conv2d, nn.Dense)):
            n = int(np.prod(cell.weight.shape))
            values = (np.sin(np.arange(n, dtype=np.float64) * 0.7) * 0.3).reshape(cell.weight.shape)
            cell.weight.set_data(Tensor(values, mstype.float32))
            if cell.bias is not None:
                cell.bias.set_data(initializer(Zero(), cell.bias.shape, mstype.float32))


def encode(t):
    arr = t.asnumpy()
    return {"tensor": arr.tolist(), "dtype": str(t.dtype), "shape": list(arr.shape)}


def main():
    net = TinyResNet()
    init_weights(net)
    net.set_train(False)
    x = Tensor(np.cos(np.arange(2 * 3 * 8 * 8, dtype=np.float64)).reshape(2, 3, 8, 8), mstype.float32)
    logits = net(x)
    labels = Tensor(np.array([1, 3], np.int32))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def forward(data, label):
        return loss_fn(net(data), label)

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    loss, grads = grad_fn(x, labels)
    names = [p.name for p in net.trainable_params()]
    child = subprocess.run([sys.executable, "-c", "import mindspore, mindspore.nn; print(mindspore.nn.Cell.__name__)"],
                           capture_output=True, text=True, check=False)
    results = {
        "logits": encode(logits),
        "probs": encode(ops.softmax(logits, axis=-1)),
        "argmax": encode(logits.argmax(axis=1)),
        "cast": encode(F.cast(logits, mstype.float16)),
        "loss": encode(loss),
        "grad_fc_weight": encode(grads[names.index("fc.weight")]),
        "grad_scale": encode(grads[names.index("scale")]),
        "param_names": names,
        "conv_bias_is_none": net.block.conv1.bias is None,
        "child_import": child.stdout.strip(),
    }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
