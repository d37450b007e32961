"""``nn.Adagrad``, ``nn.Adadelta``, ``nn.AdaMax`` and ``nn.RMSProp`` (centered or not) with MindSpore's
signatures, defaults and state names: one in-place ``Apply*`` kernel per parameter (ops/optim_apply.py).

Each step, as MindSpore's: weight decay into the gradient (``decay_weight``), division by ``loss_scale``, the
step's learning rate, then the primitive. The formulas (and where MindSpore's CPU kernels depart from their
documentation) are in docs/optimizers.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.optim import Assign
from ...ops.optim_apply import PRIMITIVES as P
from .optimizer import Optimizer, check_float


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _below_one(name: str, value: Any, inclusive: bool) -> float:
    v = check_float(name, value, 0.0, strict=not inclusive)
    if v > 1.0 or (v == 1.0 and not inclusive):
        raise ValueError(f"{name} must be in {'[0, 1]' if inclusive else '(0, 1)'}, got {v}")
    return v


class _Prepared(Optimizer):
    """The gradient pipeline MindSpore's optimizers share: decay, loss scale, the step's rate."""

    def prepare(self, gradients: Sequence[Tensor]) -> tuple[tuple[Tensor, ...], Any]:
        grads = self.scale_grad(self.gradients_centralization(self.decay_weight(self._check_grads(gradients))))
        return grads, self.get_lr()


class Adagrad(_Prepared):
    """``Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0)``:
    ``accum += g * g; param -= lr * g / sqrt(accum)`` (ApplyAdagrad). State: ``accum.<name>``, starting at
    ``accum``."""

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001, update_slots: bool = True,
                 loss_scale: float = 1.0, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum = self.clone_state("accum", check_float("accum", accum))
        self.opt = P["ApplyAdagrad"](update_slots=_flag("update_slots", update_slots))

    def construct(self, grads: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(grads)
        return tuple(self.opt(p, a, self.lr_of(lr, i), g)[0]
                     for i, (p, a, g) in enumerate(zip(self._parameters, self.accum, grads)))


class Adadelta(_Prepared):
    """``Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0)``
    (ApplyAdadelta). State: ``accum.<name>``, ``accum_update.<name>`` (zeros)."""

    def __init__(self, params: Any, learning_rate: Any = 1.0, rho: float = 0.9, epsilon: float = 1e-6,
                 loss_scale: float = 1.0, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _below_one("rho", rho, inclusive=True)
        self.epsilon = check_float("epsilon", epsilon)
        self.accum = self.clone_state("accum", "zeros")
        self.accum_update = self.clone_state("accum_update", "zeros")
        self.opt = P["ApplyAdadelta"]()

    def construct(self, grads: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(grads)
        s = self.scalar_like
        return tuple(self.opt(p, a, u, self.lr_of(lr, i), s(self.rho, p), s(self.epsilon, p), g)[0]
                     for i, (p, a, u, g) in enumerate(zip(self._parameters, self.accum, self.accum_update, grads)))


class AdaMax(_Prepared):
    """``AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
    loss_scale=1.0)`` (ApplyAdaMax): ``beta1_power`` (a Parameter) is multiplied by ``beta1`` before each
    update. State: ``moment1.<name>``, ``moment2.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-08, weight_decay: float = 0.0, loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _below_one("beta1", beta1, inclusive=False)
        self.beta2 = _below_one("beta2", beta2, inclusive=False)
        self.eps = check_float("eps", eps, 0.0, strict=True)
        self.beta1_power = Parameter(np.ones((1,), np.float32), name="beta1_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")
        self.opt = P["ApplyAdaMax"]()
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(gradients)
        power = self.beta1_power * Tensor(np.array(self.beta1, np.float32))
        self._assign(self.beta1_power, power)
        s = self.scalar_like
        return tuple(self.opt(p, m, v, s(power, p), self.lr_of(lr, i), s(self.beta1, p), s(self.beta2, p),
                              s(self.eps, p), g)[0]
                     for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moment1, self.moment2, grads)))


class RMSProp(_Prepared):
    """``RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
    centered=False, loss_scale=1.0, weight_decay=0.0)`` (ApplyRMSProp, or ApplyCenteredRMSProp when
    ``centered``). State: ``mean_square.<name>`` (ones), ``moment.<name>``, and ``mean_grad.<name>`` when
    centered."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False, loss_scale: float = 1.0,
                 weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_float("decay", decay)
        self.momentum = check_float("momentum", momentum)
        self.epsilon = check_float("epsilon", epsilon, 0.0, strict=True)
        self.centered = _flag("centered", centered)
        _flag("use_locking", use_locking)
        if self.centered:
            self.mg = self.clone_state("mean_grad", "zeros")
        self.ms = self.clone_state("mean_square", "ones")
        self.moment = self.clone_state("moment", "zeros")
        self.opt = P["ApplyCenteredRMSProp" if self.centered else "ApplyRMSProp"](use_locking)

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(gradients)
        s = self.scalar_like
        out = []
        for i, (p, ms, mom, g) in enumerate(zip(self._parameters, self.ms, self.moment, grads)):
            d, m, e = s(self.decay, p), s(self.momentum, p), s(self.epsilon, p)
            if self.centered:
                out.append(self.opt(p, self.mg[i], ms, mom, g, self.lr_of(lr, i), d, m, e))
            else:
                out.append(self.opt(p, ms, mom, self.lr_of(lr, i), g, d, m, e))
        return tuple(out)
