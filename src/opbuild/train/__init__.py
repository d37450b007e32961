"""Training utilities (MindSpore's ``mindspore.train``): ``Model``, callbacks and metrics."""

from __future__ import annotations

from ..checkpoint.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from ._classification import (
    F1,
    ConfusionMatrix,
    Fbeta,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from ._helpers import DatasetHelper, async_ckpt_thread_status
from ._regression import MAE, MSE
from ._roc import ROC, auc
from ._segmentation_metrics import ConfusionMatrixMetric, OcclusionSensitivity
from ._surface_metrics import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from ._text_metrics import BleuScore, CosineSimilarity, Dice, Perplexity, get_metric_fn, names
from .callback import (
    BackupAndRestore,
    Callback,
    CheckpointConfig,
    EarlyStopping,
    FlopsUtilizationCollector,
    History,
    LambdaCallback,
    LearningRateScheduler,
    LossMonitor,
    ModelCheckpoint,
    ReduceLROnPlateau,
    RunContext,
    SummaryCollector,
    TimeMonitor,
)
from .convert_utils import ConvertModelUtils, ConvertNetUtils
from .data_sink import data_sink
from .metrics import Accuracy, Loss, Metric, rearrange_inputs
from .model import Model
from .serialization import (
    ckpt_to_safetensors,
    export,
    load,
    load_checkpoint_async,
    merge_sliced_parameter,
    safetensors_to_ckpt,
)
from .summary import SummaryRecord

__all__ = ["Model", "Metric", "Accuracy", "Loss", "Callback", "RunContext", "LossMonitor", "TimeMonitor",
           "ModelCheckpoint", "CheckpointConfig", "EarlyStopping", "ReduceLROnPlateau", "History", "LambdaCallback",
           "SummaryCollector", "Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "ConfusionMatrix", "MAE", "MSE", "ROC", "auc",
           "rearrange_inputs", "Dice", "CosineSimilarity", "Perplexity", "BleuScore", "get_metric_fn",
           "LearningRateScheduler", "DatasetHelper", "async_ckpt_thread_status",
           "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
           "ConfusionMatrixMetric", "OcclusionSensitivity", "names", "load_checkpoint", "load_param_into_net",
           "save_checkpoint", "export", "merge_sliced_parameter", "ckpt_to_safetensors", "safetensors_to_ckpt",
           "load_checkpoint_async", "data_sink", "BackupAndRestore", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager", "SummaryRecord", "FlopsUtilizationCollector", "ConvertNetUtils",
           "ConvertModelUtils", "load"]

_LOSS_SCALE_MANAGERS = ("LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager")


def __getattr__(name: str) -> object:
    # opbuild.nn imports this package (its metrics) before loss_scale.py, which needs nn, can load: the loss
    # scale managers (MindSpore's train names) are looked up on first use instead.
    if name in _LOSS_SCALE_MANAGERS:
        from . import loss_scale_manager

        return getattr(loss_scale_manager, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
