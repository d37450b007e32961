"""MindSpore's dynamic learning-rate functions (``nn.cosine_decay_lr``, ``nn.exponential_decay_lr``, ...): each
returns the rate of every step as a Python list of floats, which an optimizer takes as its ``learning_rate``.
The epoch of step ``i`` is ``floor(i / step_per_epoch)``; the formulas are MindSpore 2.10's, checked against its
outputs in tests/compat/test_lr_schedules.py."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any


def _positive_int(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"{name} must be a positive int, got {v!r}")
    return v


def _non_negative_float(name: str, v: Any, positive: bool = False) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"{name} must be a float, got {type(v).__name__}")
    if v < 0 or (positive and v == 0):
        raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'}, got {v}")
    return float(v)


def _epochs(total_step: int, step_per_epoch: int) -> list[int]:
    _positive_int("total_step", total_step)
    _positive_int("step_per_epoch", step_per_epoch)
    return [i // step_per_epoch for i in range(total_step)]


def _decay(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int, decay_epoch: int,
           is_stair: bool, rule: Callable[[float, float, float], float]) -> list[float]:
    lr = _non_negative_float("learning_rate", learning_rate, positive=True)
    rate = _non_negative_float("decay_rate", decay_rate, positive=True)
    _positive_int("decay_epoch", decay_epoch)
    if not isinstance(is_stair, bool):
        raise TypeError(f"is_stair must be a bool, got {type(is_stair).__name__}")
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = epoch / decay_epoch
        out.append(rule(lr, rate, math.floor(p) if is_stair else p))
    return out


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """``min_lr + 0.5 (max_lr - min_lr)(1 + cos(pi * min(epoch, decay_epoch) / decay_epoch))`` per step."""
    lo = _non_negative_float("min_lr", min_lr)
    hi = _non_negative_float("max_lr", max_lr, positive=True)
    if lo >= hi:
        raise ValueError(f"max_lr must be greater than min_lr, got min_lr={min_lr}, max_lr={max_lr}")
    _positive_int("decay_epoch", decay_epoch)
    return [lo + 0.5 * (hi - lo) * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in _epochs(total_step, step_per_epoch)]


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` per step (the exponent floored if ``is_stair``)."""
    return _decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair,
                  lambda lr, r, p: lr * r ** p)


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``learning_rate * e ** (-decay_rate * t)`` per step, ``t`` the epoch (with ``is_stair``, the epoch
    rounded down to a multiple of ``decay_epoch``)."""
    return _decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair,
                  lambda lr, r, p: lr * math.e ** (-r * p * decay_epoch))


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                     decay_epoch: int, is_stair: bool = False) -> list[float]:
    """``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` per step (the ratio floored if ``is_stair``)."""
    return _decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair,
                  lambda lr, r, p: lr / (1 + r * p))


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int, step_per_epoch: int,
                        decay_epoch: int, power: float, update_decay_epoch: bool = False) -> list[float]:
    """``(learning_rate - end_learning_rate) * (1 - t / d) ** power + end_learning_rate`` per step: ``t`` is
    ``min(epoch, decay_epoch)`` and ``d`` is ``decay_epoch``; with ``update_decay_epoch`` ``t`` is the epoch and
    ``d`` the first multiple of ``decay_epoch`` at or above it (at least ``decay_epoch``)."""
    lr = _non_negative_float("learning_rate", learning_rate, positive=True)
    end = _non_negative_float("end_learning_rate", end_learning_rate)
    pw = _non_negative_float("power", power, positive=True)
    de = _positive_int("decay_epoch", decay_epoch)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"update_decay_epoch must be a bool, got {type(update_decay_epoch).__name__}")
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        if update_decay_epoch:
            d, t = de * max(math.ceil(epoch / de), 1), epoch
        else:
            d, t = de, min(epoch, de)
        out.append((lr - end) * (1 - t / d) ** pw + end)
    return out


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int) -> list[float]:
    """``learning_rate * min(epoch, warmup_epoch) / warmup_epoch`` per step."""
    lr = _non_negative_float("learning_rate", learning_rate, positive=True)
    w = _positive_int("warmup_epoch", warmup_epoch)
    return [lr * min(e, w) / w for e in _epochs(total_step, step_per_epoch)]


def piecewise_constant_lr(milestone: Sequence[int], learning_rates: Sequence[float]) -> list[float]:
    """``learning_rates[i]`` for the steps from ``milestone[i-1]`` up to ``milestone[i]`` (increasing ints)."""
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError("milestone and learning_rates must be lists or tuples")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"milestone ({len(milestone)}) and learning_rates ({len(learning_rates)}) must have the "
                         "same length")
    out: list[float] = []
    last = 0
    for m, lr in zip(milestone, learning_rates):
        _positive_int("every milestone", m)
        if m <= last:
            raise ValueError(f"milestone must be strictly increasing, got {list(milestone)}")
        out += [float(_non_negative_float("every learning rate", lr))] * (m - last)
        last = m
    return out


__all__ = ["cosine_decay_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "polynomial_decay_lr", "warmup_lr", "piecewise_constant_lr"]
