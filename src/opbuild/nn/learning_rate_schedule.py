"""``mindspore.nn.learning_rate_schedule``: the learning-rate schedule Cells (defined in nn/optim/schedule.py
and schedule_more.py)."""

from __future__ import annotations

from .optim.schedule import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule
from .optim.schedule_more import InverseDecayLR, NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR

__all__ = ["CosineDecayLR", "ExponentialDecayLR", "InverseDecayLR", "NaturalExpDecayLR", "PolynomialDecayLR",
           "WarmUpLR", "LearningRateSchedule"]
