"""More learning-rate schedule Cells (MindSpore's ``nn.InverseDecayLR``, ``nn.NaturalExpDecayLR``,
``nn.PolynomialDecayLR``, ``nn.WarmUpLR``): ``construct(global_step)`` computes the rate inside the graph, as
schedule.py's, so a changing step never changes a kernel. Formulas checked against MindSpore 2.10 in
tests/compat/test_lr_schedules.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor
from ...ops import functional as F
from .schedule import LearningRateSchedule, _check_decay_steps


def _positive_float(name: str, v: Any, allow_zero: bool = False) -> float:
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"{name} must be a float, got {type(v).__name__}")
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {v}")
    return float(v)


def _stair_ratio(global_step: Tensor, decay_steps: int, is_stair: bool) -> Tensor:
    p = F.cast(global_step, "float32") * (1.0 / decay_steps)
    return F.floor(p) if is_stair else p


class _DecaySchedule(LearningRateSchedule):
    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False):
        super().__init__()
        self.learning_rate = _positive_float("learning_rate", learning_rate)
        self.decay_rate = _positive_float("decay_rate", decay_rate)
        self.decay_steps = _check_decay_steps(decay_steps)
        if not isinstance(is_stair, bool):
            raise TypeError(f"is_stair must be a bool, got {type(is_stair).__name__}")
        self.is_stair = is_stair


class InverseDecayLR(_DecaySchedule):
    """``InverseDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``: ``learning_rate / (1 +
    decay_rate * p)``, ``p = step / decay_steps`` (floored when ``is_stair``)."""

    def construct(self, global_step: Tensor) -> Tensor:
        p = _stair_ratio(global_step, self.decay_steps, self.is_stair)
        return self.learning_rate / (p * self.decay_rate + 1.0)


class NaturalExpDecayLR(_DecaySchedule):
    """``NaturalExpDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``: ``learning_rate *
    e ** (-decay_rate * t)``, ``t`` the step (with ``is_stair``, rounded down to a multiple of ``decay_steps``),
    as MindSpore computes it."""

    def construct(self, global_step: Tensor) -> Tensor:
        t = F.cast(global_step, "float32")
        if self.is_stair:
            t = _stair_ratio(global_step, self.decay_steps, True) * float(self.decay_steps)
        return F.exp(t * -self.decay_rate) * self.learning_rate


class PolynomialDecayLR(LearningRateSchedule):
    """``PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False)``:
    ``(learning_rate - end_learning_rate) * (1 - t / d) ** power + end_learning_rate``, ``t = min(step,
    decay_steps)`` and ``d = decay_steps``; with ``update_decay_steps``, ``t = step`` and ``d = decay_steps *
    max(ceil(step / decay_steps), 1)``."""

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int, power: float,
                 update_decay_steps: bool = False):
        super().__init__()
        self.learning_rate = _positive_float("learning_rate", learning_rate)
        self.end_learning_rate = _positive_float("end_learning_rate", end_learning_rate, allow_zero=True)
        self.decay_steps = _check_decay_steps(decay_steps)
        self.power = _positive_float("power", power)
        if not isinstance(update_decay_steps, bool):
            raise TypeError(f"update_decay_steps must be a bool, got {type(update_decay_steps).__name__}")
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step: Tensor) -> Tensor:
        step = F.cast(global_step, "float32")
        if self.update_decay_steps:
            d = F.maximum(F.ceil(step * (1.0 / self.decay_steps)), Tensor(np.array(1.0, np.float32)))
            frac = step / (d * float(self.decay_steps))
        else:
            frac = F.minimum(step, Tensor(np.array(self.decay_steps, np.float32))) * (1.0 / self.decay_steps)
        base = 1.0 - frac
        # base ** power as exp(power * log(base)); base is 0 at the end of the decay, where the rate is end_lr.
        safe = F.maximum(base, Tensor(np.array(1e-30, np.float32)))
        decayed = F.exp(F.log(safe) * self.power) * (self.learning_rate - self.end_learning_rate)
        zero = F.less_equal(base, Tensor(np.array(0.0, np.float32)))
        return F.where(zero, F.zeros_like(decayed), decayed) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``WarmUpLR(learning_rate, warmup_steps)``: ``learning_rate * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate: float, warmup_steps: int):
        super().__init__()
        self.learning_rate = _positive_float("learning_rate", learning_rate)
        if not isinstance(warmup_steps, int) or isinstance(warmup_steps, bool) or warmup_steps <= 0:
            raise ValueError(f"warmup_steps must be a positive int, got {warmup_steps!r}")
        self.warmup_steps = warmup_steps

    def construct(self, global_step: Tensor) -> Tensor:
        step = F.minimum(F.cast(global_step, "float32"), Tensor(np.array(self.warmup_steps, np.float32)))
        return step * (self.learning_rate / self.warmup_steps)


__all__ = ["InverseDecayLR", "NaturalExpDecayLR", "PolynomialDecayLR", "WarmUpLR"]
