"""``experimental.optim``'s Adadelta, Adagrad, ASGD, Adamax, RMSprop, Rprop, RAdam and NAdam, with torch's
updates (which MindSpore 2.10's follow). The step count is a Parameter and every per-step quantity a tensor,
so an update also runs traced in GRAPH_MODE."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import ops as _ops
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...mint.optim import _group_lr, _number
from .optimizer import Optimizer, power


def _checked(cls: str, **values: Any) -> None:
    for name, v in values.items():
        _number(cls, name, v)


def _betas(cls: str, betas: Sequence[float]) -> tuple[float, float]:
    if len(tuple(betas)) != 2:
        raise ValueError(f"{cls}: betas must be two numbers, got {betas!r}")
    for i, b in enumerate(betas):
        _number(cls, f"betas[{i}]", b, 0.0, 1.0)
    return tuple(float(b) for b in betas)


class _Stepped(Optimizer):
    """An optimizer with a float32 step counter ``step_t`` of shape (1,)."""

    def _step(self) -> Tensor:
        return _ops.reshape(_ops.assign_add(self.step_t, Tensor(np.array([1.0], np.float32))), ())

    def _init_step(self) -> None:
        self.step_t = Parameter(np.zeros((1,), np.float32), name="step_t", requires_grad=False)

    @staticmethod
    def _decayed(g: Tensor, p: Parameter, wd: float) -> Tensor:
        return _ops.add(g, _ops.mul(p, wd)) if wd else g


class Adadelta(_Stepped):
    """``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False)``."""

    _state_names = ("accum", "accum_update")

    def __init__(self, params: Any, lr: Any = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0.0,
                 *, maximize: bool = False) -> None:
        _checked("experimental.optim.Adadelta", lr=lr, eps=eps, weight_decay=weight_decay)
        _number("experimental.optim.Adadelta", "rho", rho, 0.0, 1.0 + 1e-12)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": bool(maximize)})
        self.accum, self.accum_update = self._state("accum"), self._state("accum_update")

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        for group, items in self._groups(self._grads(gradients)):
            lr, rho, eps = _group_lr("Adadelta", group), float(group["rho"]), float(group["eps"])
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                sq = self.accum[i] * rho + g * g * (1.0 - rho)
                delta = _ops.sqrt(self.accum_update[i] + eps) / _ops.sqrt(sq + eps) * g
                _ops.assign(self.accum[i], sq)
                _ops.assign(self.accum_update[i], self.accum_update[i] * rho + delta * delta * (1.0 - rho))
                _ops.assign(p, p - delta * lr)
        return True


class Adagrad(_Stepped):
    """``Adagrad(params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10, *,
    maximize=False)``."""

    _state_names = ("accum",)

    def __init__(self, params: Any, lr: Any = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *, maximize: bool = False) -> None:
        _checked("experimental.optim.Adagrad", lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                 initial_accumulator_value=initial_accumulator_value)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "maximize": bool(maximize)})
        self.accum = self._state("accum")
        for a in self.accum:
            a.set_data(Tensor(np.full(a.shape, initial_accumulator_value, a.asnumpy().dtype)))
        self._init_step()

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        t = self._step()
        for group, items in self._groups(self._grads(gradients)):
            clr = _group_lr("Adagrad", group) / ((t - 1.0) * float(group["lr_decay"]) + 1.0)
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                s = self.accum[i] + g * g
                _ops.assign(self.accum[i], s)
                _ops.assign(p, p - g / (_ops.sqrt(s) + float(group["eps"])) * clr)
        return True


class ASGD(_Stepped):
    """``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False)``: averaged
    SGD; ``ax`` holds the running average of the parameters."""

    _state_names = ("ax",)

    def __init__(self, params: Any, lr: Any = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0.0, maximize: bool = False) -> None:
        _checked("experimental.optim.ASGD", lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": bool(maximize)})
        self.ax = self._state("ax")
        self._init_step()

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        t = self._step()
        for group, items in self._groups(self._grads(gradients)):
            lr, lambd = _group_lr("ASGD", group), float(group["lambd"])
            # eta and mu of step t, from the closed forms torch updates them to after step t - 1
            eta = lr / _ops.pow(lr * lambd * (t - 1.0) + 1.0, float(group["alpha"]))
            mu = 1.0 / _ops.maximum(t - 1.0 - float(group["t0"]), 1.0)
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                newp = p * (1.0 - eta * lambd) - g * eta
                _ops.assign(p, newp)
                _ops.assign(self.ax[i], _ops.where(mu == 1.0, newp, self.ax[i] + (newp - self.ax[i]) * mu))
        return True


class Adamax(_Stepped):
    """``Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False)``."""

    _state_names = ("exp_avg", "exp_inf")

    def __init__(self, params: Any, lr: Any = 2e-3, betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        _checked("experimental.optim.Adamax", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "betas": _betas("experimental.optim.Adamax", betas), "eps": eps,
                                  "weight_decay": weight_decay, "maximize": bool(maximize)})
        self._init_step()
        self.exp_avg, self.exp_inf = self._state("exp_avg"), self._state("exp_inf")

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        t = self._step()
        for group, items in self._groups(self._grads(gradients)):
            b1, b2 = group["betas"]
            clr = _group_lr("Adamax", group) / (1.0 - power(b1, t))
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                m = self.exp_avg[i] * b1 + g * (1.0 - b1)
                u = _ops.maximum(self.exp_inf[i] * b2, _ops.abs(g) + float(group["eps"]))
                _ops.assign(self.exp_avg[i], m)
                _ops.assign(self.exp_inf[i], u)
                _ops.assign(p, p - m / u * clr)
        return True


class RMSprop(_Stepped):
    """``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
    maximize=False)``."""

    _state_names = ("mean_grad", "mean_square", "moment")

    def __init__(self, params: Any, lr: Any = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
                 maximize: bool = False) -> None:
        _checked("experimental.optim.RMSprop", lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                 momentum=momentum)
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                                  "centered": bool(centered), "weight_decay": weight_decay,
                                  "maximize": bool(maximize)})
        self.mean_grad, self.mean_square = self._state("mean_grad"), self._state("mean_square")
        self.moment = self._state("moment")

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        for group, items in self._groups(self._grads(gradients)):
            lr, a, mom = _group_lr("RMSprop", group), float(group["alpha"]), float(group["momentum"])
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                sq = self.mean_square[i] * a + g * g * (1.0 - a)
                _ops.assign(self.mean_square[i], sq)
                if group["centered"]:
                    ga = self.mean_grad[i] * a + g * (1.0 - a)
                    _ops.assign(self.mean_grad[i], ga)
                    sq = sq - ga * ga
                avg = _ops.sqrt(sq) + float(group["eps"])
                if mom > 0:
                    buf = self.moment[i] * mom + g / avg
                    _ops.assign(self.moment[i], buf)
                    _ops.assign(p, p - buf * lr)
                else:
                    _ops.assign(p, p - g / avg * lr)
        return True


class Rprop(_Stepped):
    """``Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)``: resilient
    backpropagation (each element's step grows or shrinks with the sign agreement of its gradients)."""

    _state_names = ("prev", "step_size")

    def __init__(self, params: Any, lr: Any = 1e-2, etas: Sequence[float] = (0.5, 1.2),
                 step_sizes: Sequence[float] = (1e-6, 50), *, maximize: bool = False) -> None:
        _checked("experimental.optim.Rprop", lr=lr)
        etaminus, etaplus = (float(e) for e in etas)
        if not 0.0 < etaminus < 1.0 < etaplus:
            raise ValueError(f"experimental.optim.Rprop: etas must satisfy 0 < etaminus < 1 < etaplus, got {etas!r}")
        super().__init__(params, {"lr": lr, "etas": (etaminus, etaplus),
                                  "step_sizes": tuple(float(s) for s in step_sizes), "maximize": bool(maximize),
                                  "weight_decay": 0.0})
        self.prev, self.step_size = self._state("prev"), self._state("step_size")
        self._init_step()

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        first = _ops.equal(self._step(), 1.0)
        for group, items in self._groups(self._grads(gradients)):
            (etaminus, etaplus), (smin, smax) = group["etas"], group["step_sizes"]
            lr = _group_lr("Rprop", group)
            for i, p, g in items:
                size = _ops.where(first, _ops.zeros_like(p) + lr, self.step_size[i])
                agree = g * self.prev[i]
                factor = _ops.where(agree > 0, etaplus, _ops.where(agree < 0, etaminus, 1.0))
                size = _ops.clamp(size * factor, smin, smax)
                g = _ops.where(agree < 0, _ops.zeros_like(g), g)
                _ops.assign(self.step_size[i], size)
                _ops.assign(self.prev[i], g)
                _ops.assign(p, p - _ops.sign(g) * size)
        return True


class RAdam(_Stepped):
    """``RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)``: Adam whose adaptive step
    is rectified by the variance of its estimate (plain momentum SGD while that is undefined)."""

    _state_names = ("exp_avg", "exp_avg_sq")

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        _checked("experimental.optim.RAdam", lr=lr, eps=eps, weight_decay=weight_decay)
        super().__init__(params, {"lr": lr, "betas": _betas("experimental.optim.RAdam", betas), "eps": eps,
                                  "weight_decay": weight_decay})
        self._init_step()
        self.exp_avg, self.exp_avg_sq = self._state("exp_avg"), self._state("exp_avg_sq")

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        t = self._step()
        for group, items in self._groups(self._grads(gradients)):
            (b1, b2), lr, eps = group["betas"], _group_lr("RAdam", group), float(group["eps"])
            bc1, b2t = 1.0 - power(b1, t), power(b2, t)
            bc2 = 1.0 - b2t
            rho_inf = 2.0 / (1.0 - b2) - 1.0
            rho_t = rho_inf - 2.0 * t * b2t / bc2
            rectified = rho_t > 5.0
            safe = _ops.where(rectified, rho_t, 5.0 + 1.0)
            rect = _ops.sqrt((safe - 4.0) * (safe - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * safe))
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                m = self.exp_avg[i] * b1 + g * (1.0 - b1)
                v = self.exp_avg_sq[i] * b2 + g * g * (1.0 - b2)
                _ops.assign(self.exp_avg[i], m)
                _ops.assign(self.exp_avg_sq[i], v)
                m_hat = m / bc1
                adaptive = _ops.sqrt(bc2) / (_ops.sqrt(v) + eps) * rect
                _ops.assign(p, p - m_hat * lr * _ops.where(rectified, adaptive, _ops.ones_like(adaptive)))
        return True


class NAdam(_Stepped):
    """``NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3)``: Adam
    with Nesterov momentum (the momentum schedule's running product kept in ``mu_product``)."""

    _state_names = ("exp_avg", "exp_avg_sq")

    def __init__(self, params: Any, lr: Any = 2e-3, betas: Sequence[float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3) -> None:
        _checked("experimental.optim.NAdam", lr=lr, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, {"lr": lr, "betas": _betas("experimental.optim.NAdam", betas), "eps": eps,
                                  "weight_decay": weight_decay, "momentum_decay": momentum_decay})
        self._init_step()
        self.exp_avg, self.exp_avg_sq = self._state("exp_avg"), self._state("exp_avg_sq")
        self.mu_product = Parameter(np.ones((len(self.param_groups),), np.float32), name="mu_product",
                                    requires_grad=False)

    def construct(self, gradients: Sequence[Tensor]) -> bool:
        t = self._step()
        products = []
        for gid, (group, items) in enumerate(self._groups(self._grads(gradients))):
            (b1, b2), lr, eps = group["betas"], _group_lr("NAdam", group), float(group["eps"])
            psi, log96 = float(group["momentum_decay"]), math.log(0.96)
            mu = b1 * (1.0 - 0.5 * _ops.exp(t * (psi * log96)))
            mu_next = b1 * (1.0 - 0.5 * _ops.exp((t + 1.0) * (psi * log96)))
            prod = self.mu_product[gid] * mu
            products.append(_ops.reshape(prod, (1,)))
            bc2 = 1.0 - power(b2, t)
            for i, p, g in items:
                g = self._decayed(g, p, float(group["weight_decay"]))
                m = self.exp_avg[i] * b1 + g * (1.0 - b1)
                v = self.exp_avg_sq[i] * b2 + g * g * (1.0 - b2)
                _ops.assign(self.exp_avg[i], m)
                _ops.assign(self.exp_avg_sq[i], v)
                denom = _ops.sqrt(v / bc2) + eps
                step = g / denom * ((1.0 - mu) / (1.0 - prod)) + m / denom * (mu_next / (1.0 - prod * mu_next))
                _ops.assign(p, p - step * lr)
        _ops.assign(self.mu_product, _ops.concat(products) if len(products) > 1 else products[0])
        return True
