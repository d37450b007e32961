"""ResNet-style CNNs: a small residual network and a ResNet-50-sized builder (bottleneck blocks [3, 4, 6, 3]).

Layout is NCHW. Convolutions have no bias (BatchNorm follows each one), as in MindSpore's model zoo. The
head is a global average pool (ReduceMean over H, W), Flatten and a Dense layer. Batch-norm statistics are
drawn at random (deterministically from the seed) rather than left at the identity, so that tests exercise
every term of the normalisation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import nn, ops
from ..core.parameter import set_seed
from ..core.tensor import Tensor


def _conv(cin: int, cout: int, k: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="same", weight_init="he_normal")


class BasicBlock(nn.Cell):
    """Two 3x3 conv + BN layers with an identity (or 1x1 conv + BN projection) shortcut."""

    expansion = 1

    def __init__(self, cin: int, channels: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = _conv(cin, channels, 3, stride)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = _conv(channels, channels, 3)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.down_sample = None
        if stride != 1 or cin != channels:
            self.down_sample = nn.SequentialCell([_conv(cin, channels, 1, stride), nn.BatchNorm2d(channels)])

    def construct(self, x: Tensor) -> Tensor:
        identity = x if self.down_sample is None else self.down_sample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Cell):
    """1x1 reduce, 3x3 (strided), 1x1 expand (x4) conv + BN layers with a shortcut (ResNet v1.5)."""

    expansion = 4

    def __init__(self, cin: int, channels: int, stride: int = 1) -> None:
        super().__init__()
        cout = channels * self.expansion
        self.conv1 = _conv(cin, channels, 1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = _conv(channels, channels, 3, stride)
        self.bn2 = nn.BatchNorm2d(channels)
        self.conv3 = _conv(channels, cout, 1)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down_sample = None
        if stride != 1 or cin != cout:
            self.down_sample = nn.SequentialCell([_conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)])

    def construct(self, x: Tensor) -> Tensor:
        identity = x if self.down_sample is None else self.down_sample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Cell):
    """Stem (conv, BN, ReLU, 3x3/2 max pool), stages of residual blocks (the first of each stage after the
    first strides by 2 and doubles the width), global average pool, Flatten, Dense."""

    def __init__(self, block: type[BasicBlock] | type[Bottleneck], layers: Sequence[int], width: int,
                 num_classes: int, in_channels: int = 3, stem_kernel: int = 7, stem_stride: int = 2) -> None:
        super().__init__()
        self.conv1 = _conv(in_channels, width, stem_kernel, stem_stride)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        cin = width
        for i, n_blocks in enumerate(layers):
            channels = width * 2 ** i
            blocks = []
            for j in range(n_blocks):
                blocks.append(block(cin, channels, stride=2 if (i > 0 and j == 0) else 1))
                cin = channels * block.expansion
            setattr(self, f"layer{i + 1}", nn.SequentialCell(blocks))
        self.n_stages = len(layers)
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(cin, num_classes, weight_init="xavier_uniform", bias_init="uniform")

    def construct(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        for i in range(self.n_stages):
            x = getattr(self, f"layer{i + 1}")(x)
        return self.end_point(self.flatten(self.mean(x, (2, 3))))


def _randomize_batch_norm(net: nn.Cell, seed: int) -> None:
    """Give every BatchNorm2d non-trivial statistics and affine terms, drawn from ``seed``."""
    rng = np.random.default_rng([seed, 0xB7])
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.BatchNorm2d):
            c = cell.num_features
            cell.gamma.set_data(rng.uniform(0.5, 1.5, c))
            cell.beta.set_data(rng.uniform(-0.2, 0.2, c))
            cell.moving_mean.set_data(rng.normal(0.0, 0.2, c))
            cell.moving_variance.set_data(rng.uniform(0.5, 2.0, c))


def resnet_small(num_classes: int = 10, width: int = 8, layers: Sequence[int] = (2, 2, 2), in_channels: int = 3,
                 seed: int = 0) -> ResNet:
    """A small ResNet of basic blocks (3x3 stem, stride 1): with the default three stages of two blocks it
    traces to 54 operators (conv, batch-norm, ReLU, residual adds, max pool, mean pool, dense head)."""
    set_seed(seed)
    net = ResNet(BasicBlock, layers, width, num_classes, in_channels, stem_kernel=3, stem_stride=1)
    _randomize_batch_norm(net, seed)
    return net


def resnet50(num_classes: int = 1000, width: int = 64, layers: Sequence[int] = (3, 4, 6, 3), in_channels: int = 3,
             seed: int = 0) -> ResNet:
    """ResNet-50 (bottleneck blocks [3, 4, 6, 3], 7x7/2 stem). ``width`` scales every layer: 64 is the real
    network (25.6 M parameters; on a 224x224 image: 176 graph nodes, 53 convolutions in 23 distinct conv
    kernels, 56 distinct kernels in all); 2 or 4 gives a tiny network of the same structure for tests."""
    set_seed(seed)
    net = ResNet(Bottleneck, layers, width, num_classes, in_channels, stem_kernel=7, stem_stride=2)
    _randomize_batch_norm(net, seed)
    return net


def resnet_input(batch: int = 2, image_size: int = 16, in_channels: int = 3, seed: int = 0) -> Tensor:
    """A float32 (batch, in_channels, image_size, image_size) image batch drawn from a standard normal."""
    rng = np.random.default_rng(seed)
    return Tensor(rng.standard_normal((batch, in_channels, image_size, image_size)).astype(np.float32))
