"""``Optimizer(params, defaults)``: the base of ``experimental.optim``. Parameter groups as mint.optim's
(``param_groups``, each a dict of its settings), with each group's learning rate a float32 scalar
Parameter named ``learning_rate_group_<i>`` (also in ``lrs``) that the lr schedulers assign between steps."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import ops as _ops
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...mint.optim import _TorchOptimizer


class Optimizer(_TorchOptimizer):
    """The base class: ``param_groups``, ``defaults``, ``lrs`` and ``add_param_group``. A subclass names its
    per-parameter state tuples in ``_state_names`` (so a new group gets its own)."""

    _state_names: tuple[str, ...] = ()

    def __init__(self, params: Any, defaults: dict) -> None:
        super().__init__(params, defaults)
        self.defaults = dict(defaults)
        self.lrs = [self._lr_parameter(i, g) for i, g in enumerate(self.param_groups)]

    @staticmethod
    def _lr_parameter(i: int, group: dict) -> Parameter:
        lr = group["lr"]
        if not isinstance(lr, Parameter):
            value = float(lr.asnumpy()) if isinstance(lr, Tensor) else float(lr)
            lr = Parameter(Tensor(np.float32(value)), name=f"learning_rate_group_{i}", requires_grad=False)
        group["lr"] = lr
        return lr

    def add_param_group(self, param_group: dict) -> None:
        """Appends a group (a dict with ``'params'``; unset settings take the defaults) with its own state."""
        if not isinstance(param_group, dict) or "params" not in param_group:
            raise TypeError(f"{type(self).__name__}.add_param_group: give a dict with 'params'")
        ps = param_group["params"]
        ps = [ps] if isinstance(ps, Parameter) else list(ps)
        known = {id(p) for p in self.parameters}
        if any(id(p) in known for p in ps):
            raise ValueError(f"{type(self).__name__}.add_param_group: some parameters are already in a group")
        group = {**self.defaults, **param_group, "params": ps}
        self.param_groups.append(group)
        self.parameters = ParameterTuple(list(self.parameters) + ps)
        self.group_start_id.append(len(self.parameters))
        self.lrs.append(self._lr_parameter(len(self.param_groups) - 1, group))
        self._add_state(ps)
        if group.get("amsgrad"):
            group["max_exp_avg_sq"] = self._state("max_exp_avg_sq", ps)

    def _add_state(self, params: list[Parameter]) -> None:
        for attr in self._state_names:
            setattr(self, attr, ParameterTuple(list(getattr(self, attr)) + list(self._state(attr, params))))


def power(base: float, t: Tensor) -> Tensor:
    """``base ** t`` for a float base in [0, 1] and a tensor exponent (the step count)."""
    if base == 0.0:
        return _ops.zeros_like(t)
    return _ops.exp(_ops.mul(t, math.log(base)))
