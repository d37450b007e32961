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
from .activation_more import *  # noqa: F403 - more activations, MindSpore's names
from .activation_more import __all__ as _ACTIVATIONS_MORE
from .basic import Dense, Dropout, Flatten, Identity
from .combined import Conv2dBnAct
from .containers import CellDict, CellList
from .conv import Conv1d, Conv2d, Conv2dTranspose
from .conv1d_transpose import Conv1dTranspose
from .embedding import Embedding
from .ext_layers import *  # noqa: F403 - MindSpore's *Ext layers (mint-style)
from .ext_layers import __all__ as _EXT
from .instance_norm import GroupNorm, InstanceNorm2d
from .matrix_cells import MatDet, MatInverse, MatrixDiag, MatrixDiagPart, MatrixSetDiag
from .misc_cells import *  # noqa: F403 - small cells over existing ops, MindSpore's names
from .misc_cells import __all__ as _MISC_CELLS
from .multi_field_embedding import MultiFieldEmbeddingLookup
from .norm_more import BatchNorm3d, InstanceNorm1d, InstanceNorm3d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .padding import Pad
from .padding_more import *  # noqa: F403 - the padding layers, MindSpore's names
from .padding_more import __all__ as _PADDINGS
from .pooling import AvgPool2d, MaxPool2d
from .pooling1d import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d
from .pooling_fractional import FractionalMaxPool2d, FractionalMaxPool3d
from .reshaping import *  # noqa: F403 - PixelUnshuffle, Unflatten, channel dropout, adaptive pools
from .reshaping import __all__ as _RESHAPING
from .resize import PixelShuffle, Upsample
from .rnn_cells import GRUCell, LSTMCell, RNNCell
from .rnns import GRU, LSTM, RNN
from .sync_batch_norm import SyncBatchNorm
from .thor import DenseThor, EmbeddingThor
from .thor_lookup import EmbeddingLookupThor
from .time_distributed import TimeDistributed
from .transformer import (
    MultiheadAttention,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .transformer_full import Transformer, TransformerDecoder
from .volumetric import AvgPool3d, Conv3d, Conv3dTranspose, MaxPool3d
from .wrappers import *  # noqa: F403 - thin layers around one ops function
from .wrappers import __all__ as _WRAPPERS

__all__ = ["Dense", "Flatten", "Dropout", "Conv2d", "MaxPool2d", "AvgPool2d", "BatchNorm2d", "LayerNorm",
           "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "Embedding", "get_activation", "Identity", "CellList",
           "CellDict", "LeakyReLU", "PReLU", "ELU", "SiLU", "HSwish", "HSigmoid", "Mish", "RNN", "GRU", "LSTM",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "GroupNorm", "InstanceNorm2d", "BatchNorm1d", "PixelShuffle", "Conv1d",
           "Conv2dTranspose", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "MaxPool1d", "Upsample",
           "ReLU6", "Pad"]
__all__ += [*_ACTIVATIONS_MORE, *_PADDINGS, *_RESHAPING, *_WRAPPERS, "BatchNorm3d", "InstanceNorm1d", "InstanceNorm3d",
            "RNNCell", "LSTMCell", "GRUCell", "Conv3d",
            "MaxPool3d", "AvgPool3d", "Conv3dTranspose", "Conv1dTranspose",
            "Transformer", "TransformerDecoder", "TimeDistributed"]
__all__ += _MISC_CELLS
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d", "DenseThor", "EmbeddingThor"]
__all__ += ["SyncBatchNorm", "Conv2dBnAct", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MatDet", "MatInverse"]
__all__ += _EXT
__all__ += ["MultiFieldEmbeddingLookup", "EmbeddingLookupThor"]
