"""The four benchmark networks as torch ``nn.Module`` s (float32, eval mode, random weights).

Same layer structure and shapes as ``opbuild.models``: convolutions without bias followed by BatchNorm,
'same' padding (symmetric ``k // 2`` here; TF-style 'same' in opbuild and JAX pads the odd pixel at the
bottom/right: equal output shapes and FLOPs), ResNet v1.5 bottlenecks (stride on the 3x3), a post-LN BERT
encoder with tanh-approximated GELU and LayerNorm eps 1e-12.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn


def _conv(cin: int, cout: int, k: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 conv + BN, identity or 1x1 projection shortcut."""

    expansion = 1

    def __init__(self, cin: int, channels: int, stride: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv(cin, channels, 3, stride), nn.BatchNorm2d(channels)
        self.conv2, self.bn2 = _conv(channels, channels, 3), nn.BatchNorm2d(channels)
        self.down = None
        if stride != 1 or cin != channels:
            self.down = nn.Sequential(_conv(cin, channels, 1, stride), nn.BatchNorm2d(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.down is None else self.down(x)
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided), 1x1 expand x4, each conv + BN, with a shortcut."""

    expansion = 4

    def __init__(self, cin: int, channels: int, stride: int) -> None:
        super().__init__()
        cout = channels * 4
        self.conv1, self.bn1 = _conv(cin, channels, 1), nn.BatchNorm2d(channels)
        self.conv2, self.bn2 = _conv(channels, channels, 3, stride), nn.BatchNorm2d(channels)
        self.conv3, self.bn3 = _conv(channels, cout, 1), nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(_conv(cin, cout, 1, stride), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.down is None else self.down(x)
        out = torch.relu(self.bn1(self.conv1(x)))
        out = torch.relu(self.bn2(self.conv2(out)))
        return torch.relu(self.bn3(self.conv3(out)) + identity)


class ResNet(nn.Module):
    """Stem conv + BN + ReLU + 3x3/2 max pool, residual stages, global mean, Linear."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        block = BasicBlock if cfg["block"] == "basic" else Bottleneck
        width = cfg["width"]
        self.stem = nn.Sequential(_conv(3, width, cfg["stem_kernel"], cfg["stem_stride"]), nn.BatchNorm2d(width),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, padding=1))
        stages, cin = [], width
        for i, n in enumerate(cfg["layers"]):
            channels = width * 2 ** i
            for j in range(n):
                stages.append(block(cin, channels, 2 if (i > 0 and j == 0) else 1))
                cin = channels * block.expansion
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, cfg["classes"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(x.mean(dim=(2, 3), keepdim=True), 1))


class MLP(nn.Module):
    """Flatten, Linear + ReLU per hidden size, Linear head."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        sizes = [cfg["in_features"], *cfg["hidden"]]
        layers: list[nn.Module] = [nn.Flatten()]
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        layers.append(nn.Linear(sizes[-1], cfg["classes"]))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class EncoderLayer(nn.Module):
    """Post-LN BERT layer: Q/K/V/output projections, scaled softmax attention, GELU MLP."""

    def __init__(self, hidden: int, heads: int, intermediate: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.attn_out = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(hidden, intermediate), nn.Linear(intermediate, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        b, s, _ = t.shape
        return t.reshape(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        probs = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim)), dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(b, s, h)
        x = self.norm1(x + self.attn_out(ctx))
        return self.norm2(x + self.fc2(nn.functional.gelu(self.fc1(x), approximate="tanh")))


class Encoder(nn.Module):
    """Token + position embeddings, LayerNorm, encoder layers."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        self.words = nn.Embedding(cfg["vocab"], cfg["hidden"])
        self.positions = nn.Embedding(cfg["seq"], cfg["hidden"])
        self.norm = nn.LayerNorm(cfg["hidden"], eps=1e-12)
        self.layers = nn.Sequential(*[EncoderLayer(cfg["hidden"], cfg["heads"], cfg["intermediate"])
                                      for _ in range(cfg["layers"])])
        self.register_buffer("pos_ids", torch.arange(cfg["seq"]).reshape(1, -1), persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.layers(self.norm(self.words(ids) + self.positions(self.pos_ids)))


def build(cfg: dict[str, Any], seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    """The module (eval mode) and an example input for a netspec configuration."""
    torch.manual_seed(seed)
    if cfg["kind"] == "mlp":
        model: nn.Module = MLP(cfg)
        x = torch.randn(cfg["batch"], cfg["in_features"])
    elif cfg["kind"] == "resnet":
        model = ResNet(cfg)
        x = torch.randn(cfg["batch"], 3, cfg["image"], cfg["image"])
    else:
        model = Encoder(cfg)
        x = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["seq"]))
    return model.eval(), x
