"""The layers of :mod:`opbuild.nn`, one module per kind."""

from __future__ import annotations

from .activation import (
    ELU,
    GELU,
    HSigmoid,
    HSwish,
    LeakyReLU,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
    get_activation,
)
from .basic import Dense, Dropout, Flatten, Identity
from .containers import CellDict, CellList
from .conv import Conv1d, Conv2d, Conv2dTranspose
from .embedding import Embedding
from .instance_norm import GroupNorm, InstanceNorm2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .padding import Pad
from .pooling import AvgPool2d, MaxPool2d
from .pooling1d import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d
from .resize import PixelShuffle, Upsample
from .rnns import GRU, LSTM, RNN
from .transformer import (
    MultiheadAttention,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = ["Dense", "Flatten", "Dropout", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm2d", "LayerNorm",
           "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "Embedding", "get_activation", "Identity", "CellList",
           "CellDict", "LeakyReLU", "PReLU", "ELU", "SiLU", "HSwish", "HSigmoid", "Mish", "RNN", "GRU", "LSTM",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "GroupNorm", "InstanceNorm2d", "BatchNorm1d", "PixelShuffle", "Conv1d",
           "Conv2dTranspose", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "MaxPool1d", "Upsample",
           "ReLU6", "Pad"]
