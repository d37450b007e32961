"""``experimental.optim``'s ``Adam``, ``AdamW`` and ``SGD``: mint.optim's updates (torch's) with the
learning rates as Parameters a scheduler can change."""

from __future__ import annotations

from ...mint import optim as _mint
from .optimizer import Optimizer


class Adam(_mint.Adam, Optimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
    maximize=False)``: Adam with L2 weight decay in the gradient."""

    _state_names = ("exp_avg", "exp_avg_sq")


class AdamW(_mint.AdamW, Optimizer):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False)``: Adam with decoupled weight decay."""

    _state_names = ("exp_avg", "exp_avg_sq")


class SGD(_mint.SGD, Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False)``:
    torch's SGD (momentum buffer starting at the first gradient, optional Nesterov)."""

    _state_names = ("momentum_buf",)
