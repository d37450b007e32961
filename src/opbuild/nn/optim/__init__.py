"""Optimizers (MindSpore's ``nn.Optimizer`` family) and learning-rate schedules; updates are fused in-place
kernels (ops/optim.py) that write the parameters' own buffers."""

from __future__ import annotations

from .adafactor import AdaFactor
from .adam import Adam, AdamOffload, AdamWeightDecay, LazyAdam
from .adaptive import Adadelta, Adagrad, AdaMax, RMSProp
from .momentum import SGD, Momentum
from .optimizer import Optimizer
from .proximal import FTRL, ProximalAdagrad
from .rprop_asgd import ASGD, Rprop
from .schedule import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule

__all__ = ["Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "LearningRateSchedule", "CosineDecayLR",
           "ExponentialDecayLR", "Adagrad", "Adadelta", "AdaMax", "RMSProp", "FTRL", "ProximalAdagrad",
           "Rprop", "ASGD", "LazyAdam", "AdamOffload",
           "AdaFactor"]
