"""``nn.AdaFactor`` with MindSpore's signature, defaults and state names: a composition of elementwise ops,
reductions and ``Assign`` (MindSpore's own Python update; on its CPU the fused kernel computes the same,
checked against its outputs in tests/compat/test_nn_optim.py).

Per parameter, with ``beta2t = 1 - step ** -decay_rate``: the squared gradient (plus ``eps[0]``) is averaged
into row and column statistics for a parameter of rank >= 2 (the second moment factored) or into a full one
otherwise; the update ``g / sqrt(second moment)`` is divided by ``max(1, rms(update) / clip_threshold)`` and
scaled by the step's rate (relative: ``min(1e-2, 1 / sqrt(step))``, times ``max(eps[1], rms(param))`` when
``scale_parameter``); ``beta1 > 0`` smooths it with a first moment; weight decay shrinks the parameter by
``weight_decay * rate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.optim import Assign
from .optimizer import Optimizer, check_float


def _f32(v: float) -> Tensor:
    return Tensor(np.array(v, np.float32))


def _rms(x: Tensor) -> Tensor:
    return F.sqrt(F.mean(F.square(x)))


class AdaFactor(Optimizer):
    """``AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
    weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
    loss_scale=1.0)`` (see the module docstring). State: ``exp_avg.<name>`` (when beta1 > 0),
    ``exp_avg_sq_row_<name>``, ``exp_avg_sq_col_<name>``, ``exp_avg_sq_<name>``, the step count ``step``."""

    def __init__(self, params: Any, learning_rate: Any = None, eps: Sequence[float] = (1e-30, 1e-3),
                 clip_threshold: float = 1.0, decay_rate: float = 0.8, beta1: float = 0.9, weight_decay: float = 0.0,
                 scale_parameter: bool = True, relative_step: bool = True, warmup_init: bool = False,
                 compression: bool = False, loss_scale: float = 1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("AdaFactor: a learning_rate cannot be combined with relative_step=True")
        if warmup_init and not relative_step:
            raise ValueError("AdaFactor: warmup_init needs relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor: give a learning_rate when relative_step=False")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.scale_lr = isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool)
        if not isinstance(eps, (list, tuple)) or len(eps) != 2:
            raise ValueError(f"AdaFactor: eps must hold 2 floats (eps1, eps2), got {eps!r}")
        self.eps = tuple(check_float(f"eps[{i}]", e) for i, e in enumerate(eps))
        self.clip_threshold = check_float("clip_threshold", clip_threshold)
        self.decay_rate = check_float("decay_rate", decay_rate, 0.0, strict=True)
        if self.decay_rate >= 1.0:
            raise ValueError(f"AdaFactor: decay_rate must be in (0, 1), got {decay_rate}")
        self.beta1 = check_float("beta1", 0.0 if beta1 is None else beta1)
        self.weight_decay_value = check_float("weight_decay", weight_decay)
        for name, flag in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                           ("warmup_init", warmup_init), ("compression", compression)):
            if not isinstance(flag, bool):
                raise TypeError(f"AdaFactor: {name} must be a bool, got {type(flag).__name__}")
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init = relative_step, warmup_init
        self.use_first_moment = self.beta1 > 0
        if self.use_first_moment:
            self.exp_avg = self.clone_state("exp_avg", "zeros")
        rows, cols, full = [], [], []
        for p in self._parameters:
            dt, shape = p.asnumpy().dtype, tuple(p.shape)
            factored = len(shape) > 1
            rows.append(Parameter(np.zeros(shape[:-1] if factored else (1,), dt), name=f"exp_avg_sq_row_{p.name}"))
            cols.append(Parameter(np.zeros(shape[:-2] + shape[-1:] if factored else (1,), dt),
                                  name=f"exp_avg_sq_col_{p.name}"))
            full.append(Parameter(np.zeros((1,) if factored else shape, np.float16 if compression and not factored
                                           else dt), name=f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(full)
        for q in (*rows, *cols, *full):
            self._params[q.name] = q
        self.step = Parameter(np.zeros((1,), np.float32), name="afactor_step")
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self._check_grads(gradients)
        lr = self.get_lr()
        if not self.dynamic_lr:
            self._assign_add(self.global_step, Tensor(np.ones((1,), np.int32)))
        step = self._assign(self.step, self.step + _f32(1.0))
        if self.scale_lr and self.relative_step:
            low = step * 1e-6 if self.warmup_init else _f32(1e-2)
            lr = F.minimum(low, 1.0 / F.sqrt(step))
        beta2t = 1.0 - F.pow(step, -self.decay_rate)
        out = []
        for i, (g, p) in enumerate(zip(grads, self._parameters)):
            out.append(self._update(i, F.cast(g, "float32"), p, lr if not self.is_group_lr else lr[i], beta2t))
        return tuple(out)

    def _update(self, i: int, g: Tensor, p: Parameter, lr: Tensor, beta2t: Tensor) -> Tensor:
        w = F.cast(p, "float32")
        rate = lr * F.maximum(_f32(self.eps[1]), _rms(w)) if self.scale_parameter else lr
        sq = F.square(g) + self.eps[0]
        if len(p.shape) > 1:
            row = self._assign(self.exp_avg_sq_row[i], self.exp_avg_sq_row[i] * beta2t
                               + F.mean(sq, -1) * (1.0 - beta2t))
            col = self._assign(self.exp_avg_sq_col[i], self.exp_avg_sq_col[i] * beta2t
                               + F.mean(sq, -2) * (1.0 - beta2t))
            r_factor = F.expand_dims(1.0 / F.sqrt(row / F.mean(row, -1, True)), -1)
            c_factor = 1.0 / F.sqrt(F.expand_dims(col, -2))
            update = r_factor * c_factor * g
        else:
            full = self._assign(self.exp_avg_sq[i], self.exp_avg_sq[i] * beta2t + sq * (1.0 - beta2t))
            update = (1.0 / F.sqrt(full)) * g
        update = update / F.maximum(_rms(update) / self.clip_threshold, _f32(1.0)) * rate
        if self.use_first_moment:
            update = self._assign(self.exp_avg[i], self.exp_avg[i] * self.beta1 + update * (1 - self.beta1))
        if self.weight_decay_value:
            w = w + w * (-self.weight_decay_value) * rate
        return self._assign(p, F.cast(w - update, p._type.dtype))
