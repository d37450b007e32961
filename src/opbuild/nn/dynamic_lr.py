"""``mindspore.nn.dynamic_lr``: the functions that list a learning rate per step (nn/optim/dynamic_lr.py)."""

from __future__ import annotations

from .optim.dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)

__all__ = ["cosine_decay_lr", "exponential_decay_lr", "inverse_decay_lr", "natural_exp_decay_lr",
           "piecewise_constant_lr", "polynomial_decay_lr", "warmup_lr"]
