"""A multi-layer perceptron classifier."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import nn
from ..core.parameter import set_seed
from ..core.tensor import Tensor


class MLP(nn.Cell):
    """Flatten, then ``Dense + ReLU`` per hidden size, then a Dense head producing ``num_classes`` logits."""

    def __init__(self, in_features: int, hidden: Sequence[int], num_classes: int) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        sizes = [in_features, *hidden]
        layers = [nn.Dense(a, b, weight_init="he_uniform", bias_init="uniform", activation="relu")
                  for a, b in zip(sizes[:-1], sizes[1:])]
        self.body = nn.SequentialCell(layers)
        self.head = nn.Dense(sizes[-1], num_classes, weight_init="xavier_uniform", bias_init="uniform")

    def construct(self, x: Tensor) -> Tensor:
        return self.head(self.body(self.flatten(x)))


def mlp(in_features: int = 784, hidden: Sequence[int] = (256, 128), num_classes: int = 10, seed: int = 0) -> MLP:
    """An MLP classifier with weights drawn deterministically from ``seed`` (resets the init sequence)."""
    set_seed(seed)
    return MLP(in_features, hidden, num_classes)


def mlp_input(batch: int = 8, in_features: int = 784, seed: int = 0) -> Tensor:
    """A float32 (batch, in_features) input drawn from a standard normal distribution."""
    rng = np.random.default_rng(seed)
    return Tensor(rng.standard_normal((batch, in_features)).astype(np.float32))
