"""``nn.FTRL`` and ``nn.ProximalAdagrad`` with MindSpore's signatures, defaults and state names: one in-place
kernel per parameter (ApplyFtrl, ApplyProximalAdagrad of ops/optim_apply.py; docs/optimizers.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.tensor import Tensor
from ...ops.optim_apply import PRIMITIVES as P
from .adaptive import _flag, _Prepared
from .optimizer import check_float


class FTRL(_Prepared):
    """``FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0, use_locking=False,
    loss_scale=1.0, weight_decay=0.0)``: FTRL-proximal (ApplyFtrl); ``learning_rate`` is a float (no schedule),
    as in MindSpore. State: ``moments.<name>`` (``initial_accum``), ``linear.<name>`` (zeros)."""

    def __init__(self, params: Any, initial_accum: float = 0.1, learning_rate: float = 0.001,
                 lr_power: float = -0.5, l1: float = 0.0, l2: float = 0.0, use_locking: bool = False,
                 loss_scale: float = 1.0, weight_decay: float = 0.0):
        lr = check_float("learning_rate", learning_rate, 0.0, strict=True)
        super().__init__(lr, params, weight_decay, loss_scale)
        if self.is_group_lr:
            raise ValueError("FTRL: a per-group learning rate is not supported (MindSpore's FTRL takes one float)")
        power = float(lr_power) if not isinstance(lr_power, bool) and isinstance(lr_power, (int, float)) else None
        if power is None or power > 0:
            raise ValueError(f"FTRL: lr_power must be a float <= 0, got {lr_power!r}")
        self.lr_power, self.l1, self.l2 = power, check_float("l1", l1), check_float("l2", l2)
        self.moments = self.clone_state("moments", check_float("initial_accum", initial_accum))
        self.linear = self.clone_state("linear", "zeros")
        self.opt = P["ApplyFtrl"](use_locking=_flag("use_locking", use_locking))

    def construct(self, grads: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(grads)
        s = self.scalar_like
        return tuple(self.opt(p, m, lin, g, self.lr_of(lr, i), s(self.l1, p), s(self.l2, p), s(self.lr_power, p))
                     for i, (p, m, lin, g) in enumerate(zip(self._parameters, self.moments, self.linear, grads)))


class ProximalAdagrad(_Prepared):
    """``ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
    loss_scale=1.0, weight_decay=0.0)`` (ApplyProximalAdagrad). State: ``accum.<name>`` (``accum``)."""

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001, l1: float = 0.0,
                 l2: float = 0.0, use_locking: bool = False, loss_scale: float = 1.0, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.l1, self.l2 = check_float("l1", l1), check_float("l2", l2)
        self.accum = self.clone_state("accum", check_float("accum", accum))
        self.opt = P["ApplyProximalAdagrad"](use_locking=_flag("use_locking", use_locking))

    def construct(self, grads: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lr = self.prepare(grads)
        s = self.scalar_like
        return tuple(self.opt(p, a, self.lr_of(lr, i), s(self.l1, p), s(self.l2, p), g)[0]
                     for i, (p, a, g) in enumerate(zip(self._parameters, self.accum, grads)))
