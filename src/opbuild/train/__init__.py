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
           "ModelCheckpoint", "CheckpointConfig", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager"]

_LOSS_SCALE = ("LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager")


def __getattr__(name: str):
    """The loss scale managers, resolved on first use: ``opbuild.nn`` imports ``train.metrics`` (so this
    package) while the managers import ``opbuild.nn``; importing them here eagerly would be a cycle."""
    if name in _LOSS_SCALE:
        from . import loss_scale_manager

        return getattr(loss_scale_manager, name)
    raise AttributeError(f"module 'opbuild.train' has no attribute {name!r}")
