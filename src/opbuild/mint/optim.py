"""``mindspore.mint.optim``: MindSpore 2.10's torch-style optimizers ``Adam``, ``AdamW``, ``SGD`` (and
``FusedAdamW``, AdamW's values), each a Cell called with the gradients (``optimizer(grads)``) that updates its
parameters in place and returns True.

The state is MindSpore's, by name: ``exp_avg.<name>``, ``exp_avg_sq.<name>`` (with ``amsgrad``,
``max_exp_avg_sq.<name>`` in the group's dict, as MindSpore keeps it) and the float32 ``state_step`` of
shape (1,) for Adam/AdamW; ``momentum_buf.<name>`` and the int32 ``step_t`` for SGD. ``params`` is a list of
Parameters or of groups (dicts with ``'params'`` and any of the optimizer's keyword arguments, which override
its defaults for that group). The updates are torch's: Adam's weight decay is added to the gradient (L2),
AdamW's multiplies the parameter by 1 - lr * weight_decay first; the bias-corrected step is lr / (1 - beta1^t)
* m / (sqrt(v) / sqrt(1 - beta2^t) + eps). MindSpore 2.10's CPU has no AdamW kernel, and its Adam and SGD run
there but leave the parameters unchanged; opbuild computes all of them. The step count stays a tensor, so an
update also runs traced in GRAPH_MODE."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops as _ops
from ..core.parameter import Parameter, ParameterTuple
from ..core.tensor import Tensor
from ..nn.cell import Cell


def _number(cls: str, name: str, v: Any, low: float = 0.0, high: float | None = None) -> float:
    if isinstance(v, Tensor):
        v = float(v.asnumpy())
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or v < low or (high is not None and v >= high):
        bound = f"in [{low}, {high})" if high is not None else f">= {low}"
        where = cls if "." in cls else f"mint.optim.{cls}"
        raise ValueError(f"{where}: {name} must be a number {bound}, got {v!r}")
    return float(v)


def _group_lr(cls: str, group: dict) -> Any:
    """A group's learning rate: a Parameter stays one (a scheduler assigns it between steps, and a traced
    GRAPH_MODE update reads it at run time), a number is checked."""
    lr = group["lr"]
    return lr if isinstance(lr, Parameter) else _number(cls, "lr", lr)


class _TorchOptimizer(Cell):
    """Parameters and groups, each group a dict of the optimizer's settings (``param_groups``)."""

    def __init__(self, params: Any, defaults: dict) -> None:
        super().__init__(auto_prefix=False)
        cls = type(self).__name__
        items = list(params) if params is not None else []
        if not items:
            raise ValueError(f"mint.optim.{cls}: params is an empty list; give the network's trainable_params()")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        self.param_groups: list[dict] = []
        self.group_start_id = [0]
        flat: list[Parameter] = []
        for g in groups:
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError(f"mint.optim.{cls}: a parameter group must be a dict with 'params'")
            unknown = set(g) - set(defaults) - {"params"}
            if unknown:
                raise ValueError(f"mint.optim.{cls}: unknown group keys {sorted(unknown)}")
            ps = list(g["params"]) if not isinstance(g["params"], Parameter) else [g["params"]]
            if not all(isinstance(p, Parameter) for p in ps):
                raise TypeError(f"mint.optim.{cls}: params must be Parameters")
            self.param_groups.append({**defaults, **g, "params": ps})
            flat += ps
            self.group_start_id.append(len(flat))
        self.parameters = ParameterTuple(flat)

    def _state(self, prefix: str, params: Sequence[Parameter] | None = None) -> ParameterTuple:
        return ParameterTuple(Parameter(np.zeros(p.shape, p.asnumpy().dtype), name=f"{prefix}.{p.name}",
                                        requires_grad=False) for p in (self.parameters if params is None else params))

    def _grads(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        grads = tuple(gradients)
        if len(grads) != len(self.parameters):
            raise ValueError(f"mint.optim.{type(self).__name__}: got {len(grads)} gradients for "
                             f"{len(self.parameters)} parameters")
        return grads

    def _groups(self, grads: tuple[Tensor, ...]):
        """(group, [(index, parameter, gradient)]) with ``maximize`` applied."""
        for gid, group in enumerate(self.param_groups):
            lo, hi = self.group_start_id[gid], self.group_start_id[gid + 1]
            yield group, [(i, self.parameters[i], _ops.neg(grads[i]) if group.get("maximize") else grads[i])
                          for i in range(lo, hi)]


class Adam(_TorchOptimizer):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
    maximize=False)``: Adam with L2 weight decay in the gradient."""

    _decoupled = False

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False) -> None:
        cls = type(self).__name__
        _number(cls, "lr", lr)
        _number(cls, "eps", eps)
        _number(cls, "weight_decay", weight_decay)
        if len(tuple(betas)) != 2:
            raise ValueError(f"mint.optim.{cls}: betas must be two numbers, got {betas!r}")
        for i, b in enumerate(betas):
            _number(cls, f"betas[{i}]", b, 0.0, 1.0)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": bool(amsgrad), "maximize": bool(maximize)})
        self.exp_avg = self._state("exp_avg")
        self.exp_avg_sq = self._state("exp_avg_sq")
        for g in self.param_groups:
            # MindSpore keeps the AMSGrad maxima in the group, not among the optimizer's parameters.
            if g["amsgrad"]:
                g["max_exp_avg_sq"] = self._state("max_exp_avg_sq", g["params"])
        self.state_step = Parameter(np.array([-1.0 if self._decoupled else 0.0], np.float32), name="state_step",
                                    requires_grad=False)

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        grads = self._grads(gradients)
        # AdamW's counter starts at -1 and counts from its increment plus one, Adam's at 0 (MindSpore's). The
        # step stays a tensor, so a traced GRAPH_MODE update computes each step's bias correction.
        step = _ops.reshape(_ops.assign_add(self.state_step, Tensor(np.array([1.0], np.float32))), ())
        t = _ops.add(step, 1.0) if self._decoupled else step
        for group, items in self._groups(grads):
            lo = items[0][0] if items else 0
            (b1, b2), lr = group["betas"], _group_lr(type(self).__name__, group)
            wd, eps = float(group["weight_decay"]), float(group["eps"])
            step_size = _ops.div(lr, _ops.sub(1.0, _power(b1, t)))
            sqrt_bc2 = _ops.sqrt(_ops.sub(1.0, _power(b2, t)))
            for i, p, g in items:
                pv = p
                if wd and self._decoupled:
                    pv = _ops.mul(p, 1.0 - lr * wd)
                elif wd:
                    g = _ops.add(g, _ops.mul(p, wd))
                m = _ops.add(_ops.mul(self.exp_avg[i], b1), _ops.mul(g, 1.0 - b1))
                v = _ops.add(_ops.mul(self.exp_avg_sq[i], b2), _ops.mul(_ops.mul(g, g), 1.0 - b2))
                _ops.assign(self.exp_avg[i], m)
                _ops.assign(self.exp_avg_sq[i], v)
                if group["amsgrad"]:
                    vmax = group["max_exp_avg_sq"][i - lo]
                    v = _ops.maximum(vmax, v)
                    _ops.assign(vmax, v)
                denom = _ops.add(_ops.div(_ops.sqrt(v), sqrt_bc2), eps)
                _ops.assign(p, _ops.sub(pv, _ops.mul(_ops.div(m, denom), step_size)))
        return True


def _power(base: float, t: Tensor) -> Tensor:
    """``base ** t`` for a float base in [0, 1) and a positive tensor exponent."""
    if base == 0.0:
        return _ops.zeros_like(t)
    return _ops.exp(_ops.mul(t, math.log(base)))


class AdamW(Adam):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False)``: Adam with decoupled weight decay (the parameter times 1 - lr * weight_decay first)."""

    _decoupled = True

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class FusedAdamW(AdamW):
    """``FusedAdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False)``: MindSpore's fused AdamW kernel; opbuild computes AdamW's update."""


class SGD(_TorchOptimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False)``:
    torch's SGD: weight decay added to the gradient, the momentum buffer set to the first gradient then
    ``momentum * buf + (1 - dampening) * g``, Nesterov's look-ahead with ``nesterov``."""

    def __init__(self, params: Any, lr: Any, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False) -> None:
        for name, v in (("lr", lr), ("momentum", momentum), ("dampening", dampening),
                        ("weight_decay", weight_decay)):
            _number("SGD", name, v)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("mint.optim.SGD: nesterov needs a positive momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": bool(nesterov),
                                  "maximize": bool(maximize)})
        self.momentum_buf = self._state("momentum_buf")
        self.step_t = Parameter(np.array(0, np.int32), name="step_t", requires_grad=False)

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        grads = self._grads(gradients)
        first = _ops.equal(self.step_t, 0)  # the buffer starts as the first gradient (a tensor test: traceable)
        for group, items in self._groups(grads):
            lr, mom = _group_lr("SGD", group), float(group["momentum"])
            damp, wd = float(group["dampening"]), float(group["weight_decay"])
            for i, p, g in items:
                if wd:
                    g = _ops.add(g, _ops.mul(p, wd))
                if mom:
                    buf = _ops.where(first, g, _ops.add(_ops.mul(self.momentum_buf[i], mom), _ops.mul(g, 1.0 - damp)))
                    _ops.assign(self.momentum_buf[i], buf)
                    g = _ops.add(g, _ops.mul(buf, mom)) if group["nesterov"] else buf
                _ops.assign(p, _ops.sub(p, _ops.mul(g, lr)))
        _ops.assign_add(self.step_t, Tensor(np.array(1, np.int32)))
        return True


__all__ = ["Adam", "AdamW", "FusedAdamW", "SGD"]
