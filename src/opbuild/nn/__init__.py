"""Neural-network building blocks: Cell, SequentialCell and layers."""

from __future__ import annotations

from ..parameter import Parameter
from .cell import Cell
from .container import SequentialCell
from .layers import *  # noqa: F403 - every layer, as MindSpore's nn namespace has them
from .layers import (
    GELU,
    AvgPool2d,
    BatchNorm2d,
    Conv2d,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    LayerNorm,
    MaxPool2d,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
    get_activation,
)
from .layers import __all__ as _LAYERS

__all__ = ["Cell", "SequentialCell", "Parameter", "Dense", "Flatten", "Dropout", "Conv2d", "MaxPool2d",
           "AvgPool2d", "BatchNorm2d", "LayerNorm", "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "Embedding",
           "get_activation", *_LAYERS]
