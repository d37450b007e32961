"""Worker for tests/train/test_train_networks.py: trains one network of opbuild.models for a few steps in a
fresh process (GRAPH_MODE, TrainOneStepCell) and prints the losses and the build report as one JSON line.

``python train_worker.py NET VARIANT STEPS``: NET is ``resnet`` (ResNet-style CNN, Momentum) or ``transformer``
(encoder + classification head, AdamWeightDecay: a fine-tuning step); VARIANT is ``base`` or ``edit`` (one
layer changed: the ResNet's first block's first conv 4 -> 6 output channels, the transformer's last layer's
GELU -> ReLU).
"""

from __future__ import annotations

import json
import sys

import numpy as np

import opbuild as ms
from opbuild import nn, ops
from opbuild.models import resnet as R
from opbuild.models import transformer as T

WIDTH = 4
TRANSFORMER = T.TransformerConfig(vocab_size=50, hidden=16, heads=2, layers=2, intermediate=32, seq_len=8, batch=4)


class EditedBlock(R.BasicBlock):
    """BasicBlock whose first conv has 6 output channels (instead of ``channels``) in the first stage's
    stride-1 block: one conv's width changes, and with it its BatchNorm and the next conv's input."""

    def __init__(self, cin: int, channels: int, stride: int = 1) -> None:
        super().__init__(cin, channels, stride)
        if stride == 1 and cin == channels == WIDTH:
            self.conv1 = R._conv(cin, 6, 3)
            self.bn1 = nn.BatchNorm2d(6)
            self.conv2 = R._conv(6, channels, 3)


class Classifier(nn.Cell):
    """Encoder + mean over the sequence + Dense head: a sequence classifier to fine-tune."""

    def __init__(self, encoder: T.TransformerEncoder, classes: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.mean = ops.ReduceMean()
        self.head = nn.Dense(encoder.config.hidden, classes)

    def construct(self, ids):
        return self.head(self.mean(self.encoder(ids), 1))


def build(net_name: str, variant: str):
    """(train step cell, inputs, labels) of one network."""
    rng = np.random.default_rng(1)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    if net_name == "resnet":
        ms.set_seed(0)
        block = EditedBlock if variant == "edit" else R.BasicBlock
        net = R.ResNet(block, (1, 1), WIDTH, num_classes=5, in_channels=3, stem_kernel=3, stem_stride=1)
        x = R.resnet_input(batch=4, image_size=8)
        y = ms.Tensor(rng.integers(0, 5, 4).astype(np.int32))
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    elif net_name == "transformer":
        net = Classifier(T.transformer_encoder(TRANSFORMER, seed=0), classes=3)
        if variant == "edit":
            net.encoder.layers[TRANSFORMER.layers - 1].intermediate.activation = nn.ReLU()
        x = T.transformer_input(TRANSFORMER)
        y = ms.Tensor(rng.integers(0, 3, TRANSFORMER.batch).astype(np.int32))
        opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, weight_decay=0.01)
    else:
        raise SystemExit(f"unknown network {net_name!r}")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    step.set_train()
    return step, x, y


def main(argv: list[str]) -> None:
    net_name, variant, steps = argv[0], argv[1], int(argv[2])
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    step, x, y = build(net_name, variant)
    losses = [float(step(x, y).asnumpy())]
    report = ms.build_report()  # the first call built the whole train step; later calls build nothing
    losses += [float(step(x, y).asnumpy()) for _ in range(steps - 1)]
    print(json.dumps({"losses": losses, "report": report.as_dict(), "after": ms.build_report().as_dict()}))


if __name__ == "__main__":
    main(sys.argv[1:])
