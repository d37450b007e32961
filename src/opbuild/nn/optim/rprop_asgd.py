"""``nn.Rprop`` and ``nn.ASGD`` with MindSpore's signatures, defaults and state names. MindSpore writes both as
compositions of elementwise ops and ``Assign`` (no fused primitive), and so does opbuild: each step is a few
elementwise kernels and in-place writes of the state Parameters, traced into the training graph like any
other update.

MindSpore's conditions on the step count (``global_step == 1``, ``mu != 1``) are tensor conditions there; here
they are ``select``s over both branches, the same values without a graph break."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.optim import Assign
from .adaptive import _Prepared
from .optimizer import check_float


def _pair(name: str, value: Any) -> tuple[float, float]:
    if not isinstance(value, tuple):
        raise TypeError(f"Rprop: {name} must be a tuple, got {type(value).__name__}")
    if len(value) != 2:
        raise ValueError(f"Rprop: {name} must be a tuple of 2 floats, got {len(value)} values")
    return check_float(f"{name}[0]", value[0]), check_float(f"{name}[1]", value[1])


def _f32(v: float) -> Tensor:
    return Tensor(np.array(v, np.float32))


class Rprop(_Prepared):
    """``Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0), weight_decay=0.0)``:
    resilient backpropagation. Per element: the step size (``lr`` at the first step) is multiplied by
    ``etaplus`` where the gradient kept its sign, by ``etaminus`` where it flipped (and the gradient is then
    taken as 0), clipped to ``step_sizes``; ``param -= sign(g) * step``. State: ``prev.<name>`` (the last
    gradient used), ``step_size.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, etas: tuple = (0.5, 1.2),
                 step_sizes: tuple = (1e-6, 50.0), weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.etaminus, self.etaplus = _pair("etas", etas)
        self.step_size_min, self.step_size_max = _pair("step_sizes", step_sizes)
        if self.step_size_min > self.step_size_max:
            raise ValueError(f"Rprop: the minimal step size {self.step_size_min} exceeds the maximal "
                             f"{self.step_size_max}")
        if not 0.0 < self.etaminus < 1.0:
            raise ValueError(f"Rprop: etaminus must be in (0, 1), got {self.etaminus}")
        if self.etaplus <= 1.0:
            raise ValueError(f"Rprop: etaplus must be greater than 1.0, got {self.etaplus}")
        self.prev = self.clone_state("prev", "zeros")
        self.step_size = self.clone_state("step_size", "zeros")
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lrs = self.prepare(gradients)
        self._assign_add(self.global_step, Tensor(np.ones((1,), np.int32)))  # after get_lr, as MindSpore
        first = F.equal(self.global_step, Tensor(np.ones((1,), np.int32)))
        out = []
        for i, (g, p, prev, step) in enumerate(zip(grads, self._parameters, self.prev, self.step_size)):
            lr = self.lr_of(lrs, i)
            size = F.select(F.broadcast_to(first, p.shape), F.ones_like(step) * lr, step)
            s = F.sign(g * prev)
            factor = F.select(s > 0, F.ones_like(s) * self.etaplus,
                              F.select(s < 0, F.ones_like(s) * self.etaminus, F.ones_like(s)))
            size = F.clip_by_value(size * factor, self.scalar_like(self.step_size_min, p),
                                   self.scalar_like(self.step_size_max, p))
            g = F.select(factor == self.etaminus, F.zeros_like(g), g)
            out.append(self._assign(p, p - F.sign(g) * size))
            self._assign(prev, g)
            self._assign(step, size)
        return tuple(out)


class ASGD(_Prepared):
    """``ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)``: averaged SGD.
    ``param = param * (1 - lambd * eta) - eta * g`` with ``eta`` the learning rate at the first step and
    ``lr / (1 + lambd * lr * t) ** alpha`` after step ``t``; the average ``ax`` follows with weight
    ``mu = 1 / max(1, t - t0)``. State: ``mu_<name>``, ``eta_<name>`` (float32 scalars), ``ax_.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 0.1, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, v in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            if not isinstance(v, float):
                raise TypeError(f"ASGD: {name} must be a float, got {type(v).__name__}")
        self.lambd, self.alpha, self.t0 = lambd, alpha, t0
        self.mu = ParameterTuple(Parameter(np.array(1.0, np.float32), name=f"mu_{p.name}")
                                 for p in self._parameters)
        self.eta = ParameterTuple(Parameter(np.array(0.0, np.float32), name=f"eta_{p.name}")
                                  for p in self._parameters)
        for p in (*self.mu, *self.eta):
            self._params[p.name] = p
        self.ax = self.clone_state("ax_", "zeros")
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads, lrs = self.prepare(gradients)
        self._assign_add(self.global_step, Tensor(np.ones((1,), np.int32)))
        step = F.reshape(F.cast(self.global_step, "float32"), ())
        first = F.equal(step, _f32(1.0))
        out = []
        for i, (g, p, mu, eta, ax) in enumerate(zip(grads, self._parameters, self.mu, self.eta, self.ax)):
            lr = F.reshape(F.cast(lrs[i] if self.is_group_lr else lrs, "float32"), ())
            eta_now = F.select(first, lr, eta)  # MindSpore assigns it first; one write of eta below suffices
            new = F.cast(p, "float32") * (1.0 - self.lambd * eta_now) - eta_now * F.cast(g, "float32")
            out.append(self._assign(p, F.cast(new, p._type.dtype)))
            avg = F.cast(ax, "float32") + (new - F.cast(ax, "float32")) * mu
            self._assign(ax, F.cast(F.select(F.broadcast_to(F.not_equal(mu, _f32(1.0)), p.shape), avg, new),
                                    ax._type.dtype))
            self._assign(eta, lr / F.pow(1.0 + self.lambd * lr * step, self.alpha))
            self._assign(mu, 1.0 / F.maximum(_f32(1.0), step - self.t0))
        return tuple(out)
