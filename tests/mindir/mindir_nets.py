"""The networks of the MINDIR fixtures, written once for either framework.

``build(ms)`` takes the ``mindspore`` module (scripts/record_mindir.py, under MindSpore 2.10) or opbuild's alias
of it and returns ``{name: (net, inputs)}``: small widths so that every file stays well under 200 KB. The
parameters come from a fixed NumPy seed (not either framework's initializers), so both sides build the same
network.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np


def _params(net: Any, ms: Any, seed: int) -> None:
    """Give every parameter a value drawn from ``seed`` (BatchNorm's variance kept positive)."""
    rng = np.random.RandomState(seed)
    for name, p in net.parameters_and_names():
        value = rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
        if name.endswith("moving_variance"):
            value = np.abs(value) + 0.5
        p.set_data(ms.Tensor(value))


def build(ms: Any) -> dict[str, tuple[Any, list[np.ndarray]]]:
    nn, ops = ms.nn, ms.ops

    class LeNet5(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(4, 8, 5, pad_mode="valid")
            self.fc1 = nn.Dense(8 * 5 * 5, 32)
            self.fc2 = nn.Dense(32, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            return self.fc2(self.relu(self.fc1(x)))

    class ResBlock(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, stride=1, pad_mode="same", has_bias=False)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, has_bias=False)
            self.bn2 = nn.BatchNorm2d(8)
            self.down = nn.Conv2d(3, 8, 1, has_bias=True)
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
            self.head = nn.Dense(8, 5)

        def construct(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            y += self.down(x)  # MindSpore exports an in-place add (InplaceAddExt), as in mindcv's ResNets
            y = self.relu(y)
            y = self.pool(y)
            y = ops.mean(y, axis=(2, 3))
            return self.head(y)

    class TransformerBlock(nn.Cell):
        def __init__(self, d=16, heads=2):
            super().__init__()
            self.heads, self.dh = heads, d // heads
            self.qkv = nn.Dense(d, 3 * d)
            self.proj = nn.Dense(d, d)
            self.ln1 = nn.LayerNorm((d,))
            self.ln2 = nn.LayerNorm((d,))
            self.ff1 = nn.Dense(d, 2 * d)
            self.ff2 = nn.Dense(2 * d, d)
            self.gelu = nn.GELU(approximate=False)
            self.softmax = nn.Softmax(axis=-1)
            self.scale = float(self.dh) ** -0.5

        def construct(self, x):
            b, s, d = x.shape
            h = self.ln1(x)
            qkv = self.qkv(h).reshape(b, s, 3, self.heads, self.dh).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = self.softmax(ops.matmul(q, k.transpose(0, 1, 3, 2)) * self.scale)
            o = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, s, d)
            x = x + self.proj(o)
            return x + self.ff2(self.gelu(self.ff1(self.ln2(x))))

    class Branchy(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 6)

        def construct(self, x):
            y = self.fc(x)
            if y.sum() > 0:  # noqa: SIM108 - an if statement is what is exported (Switch)
                y = y * 2.0
            else:
                y = ops.tanh(y) - 1.0
            return y

    class Mixed(nn.Cell):
        """A grab bag of further primitives: grouped/strided convolutions, pools, an embedding, casts,
        element-wise math, a 1-D convolution and BatchNorm, selection, and a tuple of two outputs."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 3, group=2, pad_mode="pad", padding=1, stride=2, has_bias=True)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.mp = nn.MaxPool2d(3, 1, pad_mode="same")
            self.emb = nn.Embedding(10, 4)
            self.drop = nn.Dropout(p=0.3)
            self.ls = nn.LogSoftmax(axis=1)
            self.silu = nn.SiLU()
            self.bn1 = nn.BatchNorm1d(4)
            self.conv1d = nn.Conv1d(4, 4, 3, pad_mode="same")

        def construct(self, x, idx):
            y = self.mp(self.conv(x))
            y = self.pool(y).squeeze(-1).squeeze(-1)
            e = self.emb(idx).sum(axis=1)
            z = ops.concat((y, e), axis=1)
            z = ops.sigmoid(z) + ops.exp(-z) * ops.sqrt(ops.abs(z) + 1.0) - ops.pow(z, 2)
            z = ops.cast(ops.cast(self.drop(z), ms.float16), ms.float32)
            w = self.bn1(self.silu(z[:, :4]))
            w = self.conv1d(ops.expand_dims(w, 2).tile((1, 1, 3))).mean(-1)
            w = ops.where(w > 0, w, ops.zeros_like(w)) + ops.maximum(w, 0.1) + ops.clip_by_value(w, -0.5, 0.5)
            return self.ls(ops.concat((w, z), 1)), ops.argmax(w, 1)

    class Upsampler(nn.Cell):
        """Primitives of mindcv's HRNet and GhostNet exports: nearest/bilinear resizing, scalar division,
        clamping, hard swish, split, an in-place multiply, and DenseNet's zero padding."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 1, has_bias=True)
            self.up = ops.ResizeNearestNeighbor((8, 8))
            self.hswish = nn.HSwish()
            self.pad = nn.Pad(paddings=((0, 0), (0, 0), (1, 1), (1, 1)))  # as mindcv's DenseNet pads

        def construct(self, x):
            y = self.conv(x) / 2.0
            a, b = ops.split(y, 2, axis=1)
            a = self.up(a)
            b = ops.interpolate(b, size=(8, 8), mode="bilinear", align_corners=False)
            z = ops.clamp(a, -0.5, 0.5) + self.hswish(b)
            z *= 1.5
            return self.pad(z)

    class Looped(nn.Cell):
        """A while loop over a tensor condition with a Python counter (MindSpore exports it as a recursive
        graph through Switch and Partial, the counter as scalar primitives), then an unrolled for loop."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)

        def construct(self, x):
            i = 0
            while x.sum() < 10.0:
                x = x * 1.5 + 0.5
                i += 1
            for _ in range(3):
                x = self.fc(x)
            return x * i

    rng = np.random.RandomState(0)
    nets = {
        "lenet5": (LeNet5(), [rng.randn(2, 1, 32, 32).astype(np.float32)]),
        "resblock": (ResBlock(), [rng.randn(2, 3, 8, 8).astype(np.float32)]),
        "transformer": (TransformerBlock(), [rng.randn(2, 5, 16).astype(np.float32)]),
        "branchy": (Branchy(), [rng.randn(3, 6).astype(np.float32)]),
        "looped": (Looped(), [rng.uniform(0.0, 0.2, (2, 4)).astype(np.float32)]),
        "upsampler": (Upsampler(), [rng.randn(2, 2, 4, 4).astype(np.float32)]),
        "mixed": (Mixed(), [rng.randn(2, 4, 8, 8).astype(np.float32), np.array([[1, 2, 3], [4, 5, 9]], np.int32)]),
    }
    for name, (net, _) in nets.items():
        _params(net, ms, zlib.crc32(name.encode()) % 10_000)  # by name: adding a net changes no other
        net.set_train(False)
    return nets
