"""Callbacks of ``Model.train``/``eval`` (MindSpore's ``mindspore.train.callback``)."""

from __future__ import annotations

from ._backup import BackupAndRestore
from ._callback import Callback, CallbackParam, RunContext
from ._checkpoint import CheckpointConfig, ModelCheckpoint
from ._epoch import EarlyStopping, History, LambdaCallback, ReduceLROnPlateau
from ._flops_collector import FlopsUtilizationCollector
from ._lr_scheduler import LearningRateScheduler
from ._monitors import LossMonitor, TimeMonitor
from ._summary_collector import SummaryCollector

__all__ = ["Callback", "CallbackParam", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "EarlyStopping", "ReduceLROnPlateau", "History", "LambdaCallback", "SummaryCollector",
           "LearningRateScheduler", "FlopsUtilizationCollector", "BackupAndRestore"]
