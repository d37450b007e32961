"""``nn.Lamb`` and ``nn.LARS``, MindSpore's layer-wise adaptive optimizers, with its signatures, defaults, checks
and state names, composed of elementwise ops, reductions and ``Assign``.

MindSpore 2.10 cannot run either on its CPU (its ``Lamb`` and ``LARSUpdate`` kernels exist for GPU and Ascend
only; tests/fixtures/mindspore/nn_surface.json records the refusal), so the updates follow the rules its
documentation and primitives state, and tests/compat/test_nn_surface.py checks them against NumPy's form:

- Lamb, per parameter at step ``t``: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``, the ratio
  ``r = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)``, the update ``u = r + wd * w`` (``wd`` 0 for the
  parameters the decay filter skips), and ``w -= lr * trust * u`` with ``trust = ||w|| / ||u||`` (1 when either
  norm is 0).
- LARS wraps another optimizer and rewrites each filtered gradient before it: ``g' = c * (g + wd * w)`` with the
  local rate ``c = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon)`` (1 when either norm is 0; with
  ``use_clip``, ``min(c / lr, 1)``). The wrapped optimizer's weight decay and loss scale move into LARS."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.optim import Assign
from .optimizer import Optimizer


def _float(cls: str, name: str, value: Any, low: float | None = None, high: float | None = None) -> float:
    if not isinstance(value, float):
        raise TypeError(f"{cls}: {name} must be a float, got {type(value).__name__}")
    if (low is not None and value <= low) or (high is not None and value >= high):
        bounds = f"in ({low}, {high})" if high is not None else f"> {low}"
        raise ValueError(f"{cls}: {name} must be {bounds}, got {value}")
    return value


def _norm(x: Tensor) -> Tensor:
    return F.sqrt(F.sum(F.square(x)))


def _trust(num: Tensor, den: Tensor, w_norm: Tensor, g_norm: Tensor) -> Tensor:
    """``num / den`` where both norms are positive, else 1."""
    ok = F.logical_and(w_norm > 0.0, g_norm > 0.0)
    one = F.ones_like(num)
    return F.select(ok, num / F.select(ok, den, one), one)


class Lamb(Optimizer):
    """``Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)`` (see the module
    docstring). ``beta1``, ``beta2`` and ``eps`` must be floats (betas in (0, 1), eps > 0). Weight decay skips
    parameters named with ``beta`` or ``gamma`` unless groups say otherwise. State: ``lamb_m.<name>``,
    ``lamb_v.<name>`` and the step count ``global_step``."""

    def __init__(self, params: Any, learning_rate: Any, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        self.beta1_value = _float("Lamb", "beta1", beta1, 0.0, 1.0)
        self.beta2_value = _float("Lamb", "beta2", beta2, 0.0, 1.0)
        self.eps_value = _float("Lamb", "eps", eps, 0.0)
        self.beta1 = Tensor(np.array([beta1], np.float32))
        self.beta2 = Tensor(np.array([beta2], np.float32))
        self.eps = Tensor(np.array([eps], np.float32))
        self.params = self._parameters
        self.moments1 = self.clone_state("lamb_m", "zeros")
        self.moments2 = self.clone_state("lamb_v", "zeros")
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self.gradients_centralization(self._check_grads(gradients))
        lr = self.get_lr()  # reads the rate of this step (and counts the step when the rate is dynamic)
        if not self.dynamic_lr:
            self._assign_add(self.global_step, Tensor(np.ones((1,), np.int32)))
        t = F.cast(self.global_step, "float32")
        b1, b2 = self.beta1_value, self.beta2_value
        bias1 = 1.0 - F.pow(Tensor(np.array([b1], np.float32)), t)
        bias2 = 1.0 - F.pow(Tensor(np.array([b2], np.float32)), t)
        out = []
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moments1, self.moments2, grads)):
            w = F.cast(p, "float32")
            g = F.cast(g, "float32")
            m_t = self._assign(m, m * b1 + g * (1.0 - b1))
            v_t = self._assign(v, v * b2 + F.square(g) * (1.0 - b2))
            update = (m_t / bias1) / (F.sqrt(v_t / bias2) + self.eps_value)
            wd = self.group_weight_decay[i]
            if wd > 0:
                update = update + w * wd
            w_norm, u_norm = _norm(w), _norm(update)
            trust = _trust(w_norm, u_norm, w_norm, u_norm)
            rate = F.reshape(F.cast(self.lr_of(lr, i), "float32"), ())
            out.append(self._assign(p, F.cast(w - update * (trust * rate), p._type.dtype)))
        return tuple(out)


class _NotLayerNormOrBias:
    """LARS's default filter: the parameters whose names hold neither 'LayerNorm' nor 'bias' (an object, so
    that the signature prints the same in every process)."""

    def __call__(self, p: Parameter) -> bool:
        return "LayerNorm" not in p.name and "bias" not in p.name

    def __repr__(self) -> str:
        return "<lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name>"


_default_lars_filter = _NotLayerNormOrBias()


class LARS(Optimizer):
    """``LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=<not LayerNorm, not
    bias>)``: wraps ``optimizer`` (its parameters, learning rate and step) and hands it LARS's rewritten
    gradients (see the module docstring); ``lars_filter(param)`` picks the parameters LARS rewrites (the others
    reach the optimizer unchanged). ``epsilon`` and ``coefficient`` must be floats, ``use_clip`` a bool."""

    def __init__(self, optimizer: Optimizer, epsilon: float = 1e-05, coefficient: float = 0.001,
                 use_clip: bool = False, lars_filter: Callable[[Parameter], bool] = _default_lars_filter) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"LARS: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        self_epsilon = _float("LARS", "epsilon", epsilon)
        self_coefficient = _float("LARS", "coefficient", coefficient)
        if not isinstance(use_clip, bool):
            raise TypeError(f"LARS: use_clip must be a bool, got {type(use_clip).__name__}")
        if use_clip and optimizer.is_group_lr and optimizer.dynamic_lr:
            raise ValueError("LARS: with use_clip=True the optimizer cannot have both group and dynamic "
                             "learning rates")
        super().__init__(0.0, [Parameter(np.zeros((), np.float32), name="fake_param")])
        self.opt = optimizer
        self.epsilon, self.coefficient, self.use_clip = self_epsilon, self_coefficient, use_clip
        self.global_step = optimizer.global_step
        self.parameters = optimizer.parameters
        self.is_group = optimizer.is_group
        self.lars_flag = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        # The decay (plain weight_decay: MindSpore stores it times loss_scale and divides it back) and the loss
        # scale move into LARS's rewrite; the wrapped optimizer then applies neither.
        self.lars_decay = tuple(optimizer.group_weight_decay)
        self.lars_loss_scale = optimizer.loss_scale
        optimizer.exec_weight_decay = False
        optimizer.loss_scale = 1.0

    def _clip_rates(self) -> tuple[Tensor, ...]:
        """The wrapped optimizer's learning rate of this step, per parameter (read before it counts the step)."""
        opt = self.opt
        rates = [opt._rate(kind, src) for kind, src in opt._lr_sources]
        return tuple(F.reshape(F.cast(rates[k] if isinstance(rates[k], Tensor) else
                                      Tensor(np.float32(rates[k])), "float32"), ())
                     for k in opt._lr_index)

    def construct(self, gradients: Sequence[Tensor]) -> Any:
        """Rewrite the gradients, then run the wrapped optimizer's update with them."""
        grads = self._check_lars_grads(gradients)
        if self.lars_loss_scale != 1.0:
            grads = tuple(g * (1.0 / self.lars_loss_scale) for g in grads)
        rates = self._clip_rates() if self.use_clip else None
        out = []
        for i, (g, p) in enumerate(zip(grads, self.parameters)):
            if not self.lars_flag[i]:
                out.append(g)
                continue
            wd = self.lars_decay[i]
            w = F.cast(p, "float32")
            g32 = F.cast(g, "float32")
            w_norm, g_norm = _norm(w), _norm(g32)
            local = _trust(w_norm * self.coefficient, g_norm + w_norm * wd + self.epsilon, w_norm, g_norm)
            if rates is not None:
                local = F.minimum(local / rates[i], F.ones_like(local))
            out.append(F.cast((g32 + w * wd if wd > 0 else g32) * local, g._type.dtype))
        return self.opt(tuple(out))

    def _check_lars_grads(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        gradients = tuple(gradients)
        if len(gradients) != len(self.parameters):
            raise ValueError(f"LARS: got {len(gradients)} gradients for {len(self.parameters)} parameters")
        return gradients
