"""``nn.Momentum`` and ``nn.SGD``: momentum SGD with MindSpore's signatures, one fused in-place kernel per
parameter (ApplyMomentum, SGD of ops/optim.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.optim import SGD as SGDOp
from ...ops.optim import ApplyMomentum
from .optimizer import Optimizer, check_float


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False)``:
    ``moments = moments * momentum + g``; ``param -= lr * moments`` (nesterov: ``lr * (g + moments *
    momentum)``), ``g`` the gradient with weight decay, divided by ``loss_scale``. State: ``moments.<name>``."""

    def __init__(self, params: Any, learning_rate: Any, momentum: float, weight_decay: float = 0.0,
                 loss_scale: float = 1.0, use_nesterov: bool = False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"use_nesterov must be a bool, got {type(use_nesterov).__name__}")
        self.momentum = Parameter(np.array(check_float("momentum", momentum), np.float32), name="momentum")
        self.moments = self.clone_state("moments", "zeros")
        self.use_nesterov = use_nesterov
        self.opt = ApplyMomentum(use_nesterov=use_nesterov)

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self.scale_grad(self.gradients_centralization(self.decay_weight(self._check_grads(gradients))))
        lr = self.get_lr()
        return tuple(self.opt(p, m, self.lr_of(lr, i), g, self.scalar_like(self.momentum, p))
                     for i, (p, m, g) in enumerate(zip(self._parameters, self.moments, grads)))


class SGD(Optimizer):
    """``SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
    loss_scale=1.0)``: PyTorch's SGD formula, as MindSpore's (weight decay inside the kernel, for every
    parameter of a group; the first step with momentum sets ``accum = g``). State: ``accum.<name>``,
    ``stat.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, loss_scale: float = 1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = check_float("momentum", momentum)
        dampening = check_float("dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"nesterov must be a bool, got {type(nesterov).__name__}")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("SGD: nesterov needs momentum > 0 and dampening == 0")
        self.nesterov, self.dampening = nesterov, dampening
        self.momentum = Parameter(np.array(momentum, np.float32), name="momentum")
        self.accum = self.clone_state("accum", "zeros")
        self.stat = self.clone_state("stat", "ones")
        # Weight decay is an attribute of the SGD kernel (applied to every parameter of the group), so the
        # decay filter of the other optimizers does not apply: MindSpore's nn.SGD passes it to the op too.
        if not self.is_group:
            self.group_weight_decay = (check_float("weight_decay", weight_decay),) * len(self._parameters)
        self.opt = tuple(SGDOp(dampening, wd, nesterov) for wd in self.group_weight_decay)

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self.scale_grad(self.gradients_centralization(self._check_grads(gradients)))
        lr = self.get_lr()
        return tuple(self.opt[i](p, g, self.lr_of(lr, i), a, self.scalar_like(self.momentum, p), s)
                     for i, (p, g, a, s) in enumerate(zip(self._parameters, grads, self.accum, self.stat)))
