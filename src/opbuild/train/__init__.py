"""Training utilities (MindSpore's ``mindspore.train``): metrics for now (``Accuracy``, ``Loss``)."""

from __future__ import annotations

from .metrics import Accuracy, Loss, Metric

__all__ = ["Metric", "Accuracy", "Loss"]
