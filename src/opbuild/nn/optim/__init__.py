"""Optimizers (MindSpore's ``nn.Optimizer`` family) and learning-rate schedules; updates are fused in-place
kernels (ops/optim.py) that write the parameters' own buffers."""

from __future__ import annotations

from .adafactor import AdaFactor
from .adam import Adam, AdamOffload, AdamWeightDecay, LazyAdam
from .adaptive import Adadelta, Adagrad, AdaMax, RMSProp
from .dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from .lamb_lars import LARS, Lamb
from .momentum import SGD, Momentum
from .optimizer import Optimizer
from .proximal import FTRL, ProximalAdagrad
from .rprop_asgd import ASGD, Rprop
from .schedule import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule
from .schedule_more import InverseDecayLR, NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR

__all__ = ["Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "LearningRateSchedule", "CosineDecayLR",
           "ExponentialDecayLR", "Adagrad", "Adadelta", "AdaMax", "RMSProp", "FTRL", "ProximalAdagrad",
           "Rprop", "ASGD", "LazyAdam", "AdamOffload",
           "AdaFactor",
           "InverseDecayLR", "NaturalExpDecayLR", "PolynomialDecayLR", "WarmUpLR", "cosine_decay_lr",
           "exponential_decay_lr", "inverse_decay_lr", "natural_exp_decay_lr", "piecewise_constant_lr",
           "polynomial_decay_lr", "warmup_lr"]
__all__ += ["Lamb", "LARS"]
