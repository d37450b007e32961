"""Training utilities (MindSpore's ``mindspore.train``): ``Model``, callbacks and metrics."""

from __future__ import annotations

from .callback import (
    Callback,
    CheckpointConfig,
    LossMonitor,
    ModelCheckpoint,
    RunContext,
    TimeMonitor,
)
from .metrics import Accuracy, Loss, Metric
from .model import Model

__all__ = ["Model", "Metric", "Accuracy", "Loss", "Callback", "RunContext", "LossMonitor", "TimeMonitor",
           "ModelCheckpoint", "CheckpointConfig"]
