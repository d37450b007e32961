"""Optimizers (MindSpore's ``nn.Optimizer`` family) and learning-rate schedules; updates are fused in-place
kernels (ops/optim.py) that write the parameters' own buffers."""

from __future__ import annotations

from .adam import Adam, AdamWeightDecay
from .momentum import SGD, Momentum
from .optimizer import Optimizer
from .schedule import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule

__all__ = ["Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "LearningRateSchedule", "CosineDecayLR",
           "ExponentialDecayLR"]
