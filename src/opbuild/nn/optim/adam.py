"""``nn.Adam`` and ``nn.AdamWeightDecay`` with MindSpore's signatures: one fused in-place kernel per
parameter (Adam, AdamWeightDecay of ops/optim.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.optim import Adam as AdamOp
from ...ops.optim import AdamWeightDecay as AdamWeightDecayOp
from ...ops.optim import Assign
from ...ops.optim_apply import PRIMITIVES as P
from .optimizer import Optimizer, check_float


def _check_betas(beta1: float, beta2: float, eps: float) -> tuple[float, float, float]:
    b1, b2 = check_float("beta1", beta1, 0.0, strict=True), check_float("beta2", beta2, 0.0, strict=True)
    if b1 >= 1.0 or b2 >= 1.0:
        raise ValueError(f"beta1 and beta2 must be in (0, 1), got {b1}, {b2}")
    return b1, b2, check_float("eps", eps, 0.0, strict=True)


class Adam(Optimizer):
    """``Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs)``: Adam with bias
    correction; weight decay is L2 in the gradient. ``use_amsgrad`` keeps the running maximum ``vhat.<name>``
    of the second moment (ApplyAdamWithAmsgradV2); ``use_lazy`` / ``use_offload`` compute what plain Adam does
    for dense gradients (MindSpore's differ only for sparse gradients or in where they run).
    ``beta1_power``/``beta2_power`` are Parameters multiplied
    by the betas at every step (before the update, so step ``t`` uses ``beta ** t``). State:
    ``moment1.<name>``, ``moment2.<name>``."""

    _POWER_SHAPE: tuple[int, ...] = ()  # MindSpore's beta powers: 0-d here, (1,) in LazyAdam and AdamOffload

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False,
                 weight_decay: float = 0.0, loss_scale: float = 1.0, use_amsgrad: bool = False, **kwargs: Any):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise TypeError(f"Adam got unexpected keyword arguments {sorted(unknown)}")
        for name, flag in (("use_amsgrad", use_amsgrad), *kwargs.items()):
            if not isinstance(flag, bool):
                raise TypeError(f"Adam: {name} must be a bool, got {type(flag).__name__}")
        if use_amsgrad and any(kwargs.values()):
            raise ValueError("Adam: use_amsgrad cannot be combined with use_lazy or use_offload (as in MindSpore)")
        # use_lazy and use_offload change where MindSpore runs the update (sparse rows, the host), not its
        # values for the dense gradients opbuild computes: the same kernel serves them.
        self.use_amsgrad = use_amsgrad
        self.beta1_value, self.beta2_value, self.eps_value = _check_betas(beta1, beta2, eps)
        self.beta1 = Tensor(np.array(self.beta1_value, np.float32))
        self.beta2 = Tensor(np.array(self.beta2_value, np.float32))
        self.eps = Tensor(np.array(self.eps_value, np.float32))
        self.beta1_power = Parameter(np.ones(self._POWER_SHAPE, np.float32), name="beta1_power")
        self.beta2_power = Parameter(np.ones(self._POWER_SHAPE, np.float32), name="beta2_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")
        if use_amsgrad:
            self.vhat = self.clone_state("vhat", "zeros")
        self.use_nesterov = bool(use_nesterov)
        self.opt = (P["ApplyAdamWithAmsgradV2"](use_locking=use_locking) if use_amsgrad
                    else AdamOp(use_locking=use_locking, use_nesterov=self.use_nesterov))
        self._assign = Assign()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self.scale_grad(self.gradients_centralization(self.decay_weight(self._check_grads(gradients))))
        lr = self.get_lr()
        b1p = self.beta1_power * self.beta1
        b2p = self.beta2_power * self.beta2
        self._assign(self.beta1_power, b1p)
        self._assign(self.beta2_power, b2p)
        out = []
        for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moment1, self.moment2, grads)):
            s = self.scalar_like
            if self.use_amsgrad:
                out.append(self.opt(p, m, v, self.vhat[i], s(b1p, p), s(b2p, p), self.lr_of(lr, i),
                                    s(self.beta1, p), s(self.beta2, p), s(self.eps, p), g)[0])
                continue
            out.append(self.opt(p, m, v, s(b1p, p), s(b2p, p), self.lr_of(lr, i), s(self.beta1, p),
                                s(self.beta2, p), s(self.eps, p), g))
        return tuple(out)


class AdamWeightDecay(Optimizer):
    """``AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)``:
    Adam without bias correction and with decoupled weight decay (``param -= lr * (m / (sqrt(v) + eps) +
    weight_decay * param)``), the decay skipping ``beta``/``gamma`` parameters unless groups say otherwise.
    State: ``adam_m.<name>``, ``adam_v.<name>``."""

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-6, weight_decay: float = 0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1_value, self.beta2_value, self.eps_value = _check_betas(beta1, beta2, eps)
        self.beta1 = Tensor(np.array(self.beta1_value, np.float32))
        self.beta2 = Tensor(np.array(self.beta2_value, np.float32))
        self.eps = Tensor(np.array(self.eps_value, np.float32))
        self.moments1 = self.clone_state("adam_m", "zeros")
        self.moments2 = self.clone_state("adam_v", "zeros")
        self.opt = AdamWeightDecayOp()

    def construct(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Apply one update; returns the updated parameters."""
        grads = self._check_grads(gradients)
        lr = self.get_lr()
        s = self.scalar_like
        return tuple(
            self.opt(p, m, v, self.lr_of(lr, i), s(self.beta1, p), s(self.beta2, p), s(self.eps, p),
                     s(self.group_weight_decay[i], p), g)
            for i, (p, m, v, g) in enumerate(zip(self._parameters, self.moments1, self.moments2, grads)))


class LazyAdam(Adam):
    """``LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: MindSpore's lazy Adam updates only the rows a
    sparse gradient names; opbuild's gradients are dense, for which the update is Adam's."""

    _POWER_SHAPE = (1,)

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False, weight_decay: float = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)


class AdamOffload(Adam):
    """``AdamOffload(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0)``: MindSpore runs this Adam on the host to save
    device memory; on opbuild's CPU target it is Adam."""

    _POWER_SHAPE = (1,)

    def __init__(self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, use_locking: bool = False, use_nesterov: bool = False, weight_decay: float = 0.0,
                 loss_scale: float = 1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)
