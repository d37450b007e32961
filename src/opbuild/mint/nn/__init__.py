"""``mindspore.mint.nn``: the layers of MindSpore's torch-style namespace that opbuild has: ``Linear``
(``nn.Linear``: ``x W^T + b``, weight (out, in)), ``Dropout2d`` (MindSpore's ``Dropout2dExt``: whole channels of
(N, C, H, W) zeroed with probability ``p`` in training, the rest scaled by 1 / (1 - p)), the activations,
``Flatten``, ``Dropout`` and losses of ``layers.py``, the convolutions, batch norms and ``PReLU`` of
``conv_norm.py``, the pooling, padding, resampling and loss layers of ``shape_layers.py``, ``Cell``, the base
class, and ``functional`` (also ``F``): activations, losses and layer functions."""

from __future__ import annotations

from ...nn import Cell, Linear
from ...nn import Dropout2dExt as Dropout2d
from . import conv_norm, functional, layers, shape_layers
from . import functional as F  # noqa: N812 - MindSpore's name
from .conv_norm import *  # noqa: F403 - Conv1d/2d/3d, ConvTranspose2d, BatchNorm1d/2d/3d, SyncBatchNorm, PReLU
from .layers import *  # noqa: F403
from .shape_layers import *  # noqa: F403 - pooling, padding, resampling, Fold/Unfold, the losses

__all__ = ["Cell", "Dropout2d", "F", "Linear", "functional", *layers.__all__, *conv_norm.__all__,
           *shape_layers.__all__]
