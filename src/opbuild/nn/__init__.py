"""Neural-network building blocks: Cell, SequentialCell and layers."""

from __future__ import annotations

from ..core.parameter import Parameter
from ..train.metrics import Accuracy, Loss, Metric
from . import utils  # noqa: F401 - mindspore.nn.utils (no_init_parameters)
from .adasum import AdaSumByDeltaWeightWrapCell, AdaSumByGradWrapCell
from .cell import Cell
from .container import SequentialCell
from .distributed import DistributedGradReducer
from .forward_grad import ForwardValueAndGrad
from .grad_cells import Jvp, Vjp, WithGradCell
from .graph_cell import GraphCell
from .image_quality import MSSSIM, PSNR, SSIM
from .init_context import no_init_parameters
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
from .loss import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    LossBase,
    MSELoss,
    SoftmaxCrossEntropyWithLogits,
)
from .loss_sampled import SampledSoftmaxLoss
from .loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepWithLossScaleCell
from .losses_extra import *  # noqa: F403 - the further losses, MindSpore's names
from .losses_extra import __all__ as _LOSSES
from .metrics import *  # noqa: F403 - MindSpore's deprecated nn aliases of the train metrics
from .metrics import __all__ as _METRICS
from .micro_batch import (
    GradAccumulationCell,
    MicroBatchInterleaved,
    PipelineCell,
    PipelineGradReducer,
    VirtualDatasetCellTriple,
)
from .optim import *  # noqa: F403 - the LR functions and further schedules, MindSpore's names
from .optim import (
    ASGD,
    FTRL,
    SGD,
    Adadelta,
    AdaFactor,
    Adagrad,
    Adam,
    AdaMax,
    AdamOffload,
    AdamWeightDecay,
    CosineDecayLR,
    ExponentialDecayLR,
    LazyAdam,
    LearningRateSchedule,
    Momentum,
    Optimizer,
    ProximalAdagrad,
    RMSProp,
    Rprop,
)
from .optim import __all__ as _OPTIM
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell

__all__ = ["Cell", "DistributedGradReducer",
           "SequentialCell", "Parameter", "Dense", "Flatten", "Dropout", "Conv2d", "MaxPool2d",
           "AvgPool2d", "BatchNorm2d", "LayerNorm", "ReLU", "GELU", "Sigmoid", "Tanh", "Softmax", "Embedding",
           "get_activation", "Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "LearningRateSchedule",
           "CosineDecayLR", "ExponentialDecayLR", "WithLossCell", "WithEvalCell", "TrainOneStepCell",
           "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "LossBase",
           "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss", "Metric",
           "Accuracy", "Loss"]
__all__ += [n for n in _LAYERS if n not in __all__]
__all__ += ["Adagrad", "Adadelta", "AdaMax", "RMSProp", "FTRL", "ProximalAdagrad", "Rprop", "ASGD", "LazyAdam",
            "AdamOffload", "AdaFactor"]
__all__ += [n for n in _LOSSES if n not in __all__]
__all__ += [n for n in _OPTIM if n not in __all__]
__all__ += ["ForwardValueAndGrad", "SampledSoftmaxLoss"]
__all__ += [n for n in _METRICS if n not in __all__]
__all__ += ["SSIM", "MSSSIM", "PSNR", "WithGradCell", "Jvp", "Vjp", "no_init_parameters", "GradAccumulationCell",
            "MicroBatchInterleaved", "PipelineCell", "PipelineGradReducer", "VirtualDatasetCellTriple"]
__all__ += ["AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell", "GraphCell"]

# MindSpore's nn.layer.<module> paths (built from the names above); dynamic_lr and learning_rate_schedule are
# attributes of MindSpore's nn, as modules.
from . import dynamic_lr, layer, learning_rate_schedule  # noqa: E402,F401


def __getattr__(name: str) -> object:
    # ``nn.probability`` (distributions, bijectors, Bayesian layers) is an attribute after ``import opbuild``,
    # as in MindSpore, but loaded on first use: importing it eagerly costs every program about 35 ms.
    if name == "probability":
        import importlib

        return importlib.import_module(".probability", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
