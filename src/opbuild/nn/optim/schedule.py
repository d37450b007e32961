"""Learning-rate schedules: Cells computing the rate of a step from ``global_step`` inside the update graph
(MindSpore's ``nn.LearningRateSchedule``), so a changing rate never changes a kernel."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import functional as F
from ..cell import Cell


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: ``construct(global_step)`` (an int32 Tensor) returns the rate
    (a float32 Tensor of one element)."""

    def construct(self, global_step: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


class _IteratorLearningRate(LearningRateSchedule):
    """A list of per-step rates as a schedule (MindSpore's form of ``Optimizer(learning_rate=[...])``): the
    float32 Parameter ``name`` holds the list; step ``i`` reads ``lr[i]``, and after the list the last rate
    stays. Custom optimizers (mindcv's AdamW, Lion, ...) and callbacks call ``optimizer.learning_rate(step)``."""

    def __init__(self, rates: np.ndarray, name: str) -> None:
        super().__init__()
        self.learning_rate = Parameter(np.asarray(rates, np.float32), name=name)

    def construct(self, global_step: Tensor) -> Tensor:
        last = Tensor(np.array([self.learning_rate.shape[0] - 1], np.int32))
        return F.gather(self.learning_rate, F.minimum(global_step, last), 0)


def _check_decay_steps(decay_steps: Any) -> int:
    if not isinstance(decay_steps, (int, np.integer)) or isinstance(decay_steps, bool) or decay_steps <= 0:
        raise ValueError(f"decay_steps must be a positive int, got {decay_steps!r}")
    return int(decay_steps)


class CosineDecayLR(LearningRateSchedule):
    """``CosineDecayLR(min_lr, max_lr, decay_steps)``: ``min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi *
    min(step, decay_steps) / decay_steps))``."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int):
        super().__init__()
        for name, v in (("min_lr", min_lr), ("max_lr", max_lr)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"{name} must be a float, got {type(v).__name__}")
        if min_lr < 0:
            raise ValueError(f"min_lr must be >= 0, got {min_lr}")
        if max_lr <= 0 or min_lr >= max_lr:
            raise ValueError(f"max_lr must be > 0 and greater than min_lr, got min_lr={min_lr}, max_lr={max_lr}")
        self.min_lr, self.max_lr = float(min_lr), float(max_lr)
        self.decay_steps = _check_decay_steps(decay_steps)

    def construct(self, global_step: Tensor) -> Tensor:
        step = F.minimum(global_step, Tensor(np.array(self.decay_steps, global_step._type.dtype)))
        p = F.cast(step, "float32") * (math.pi / self.decay_steps)
        return (F.cos(p) + 1.0) * (0.5 * (self.max_lr - self.min_lr)) + self.min_lr


class ExponentialDecayLR(LearningRateSchedule):
    """``ExponentialDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``: ``learning_rate *
    decay_rate ** p`` with ``p = step / decay_steps`` (floored when ``is_stair``)."""

    def __init__(self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False):
        super().__init__()
        if not isinstance(learning_rate, (int, float)) or learning_rate <= 0:
            raise ValueError(f"learning_rate must be a positive float, got {learning_rate!r}")
        if not isinstance(decay_rate, (int, float)) or decay_rate <= 0:
            raise ValueError(f"decay_rate must be a positive float, got {decay_rate!r}")
        self.learning_rate, self.decay_rate = float(learning_rate), float(decay_rate)
        self.decay_steps = _check_decay_steps(decay_steps)
        self.is_stair = bool(is_stair)

    def construct(self, global_step: Tensor) -> Tensor:
        p = F.cast(global_step, "float32") * (1.0 / self.decay_steps)
        if self.is_stair:
            p = F.floor(p)
        # decay_rate ** p = exp(p * log(decay_rate)): one Exp kernel, no Pow of a constant base.
        return F.exp(p * math.log(self.decay_rate)) * self.learning_rate
