"""Cases of MindSpore's ``nn`` optimizers, written once against a MindSpore-shaped namespace:
scripts/record_optim_image.py runs them on real MindSpore 2.10 (tests/fixtures/optim_image.npz) and
tests/compat/test_nn_optim.py on opbuild.

Each case is ``name -> make(nn, params) -> optimizer``. :func:`run` builds two Parameters (``w`` and
``gamma``, which weight decay skips by name), calls the optimizer on fixed gradients for three steps in PyNative
mode and returns the parameters after each step. This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RNG = np.random.default_rng(2510)
W0, G0 = RNG.uniform(-1, 1, (3, 4)).astype(np.float32), RNG.uniform(0.5, 1.5, (4,)).astype(np.float32)
GRADS = [(RNG.uniform(-1, 1, (3, 4)).astype(np.float32), RNG.uniform(-1, 1, (4,)).astype(np.float32))
         for _ in range(3)]
GRADS[2][0][0] = -GRADS[1][0][0]  # a sign change between steps (Rprop's case)

CASES: dict[str, Callable[[Any, list], Any]] = {
    "Adagrad": lambda nn, ps: nn.Adagrad(ps, accum=0.1, learning_rate=0.1),
    "Adagrad_wd_scale": lambda nn, ps: nn.Adagrad(ps, accum=0.2, learning_rate=0.05, loss_scale=2.0,
                                                   weight_decay=0.1),
    "Adadelta": lambda nn, ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.8, epsilon=1e-5),
    "AdaMax": lambda nn, ps: nn.AdaMax(ps, learning_rate=0.01, weight_decay=0.01),
    "RMSProp": lambda nn, ps: nn.RMSProp(ps, learning_rate=0.01, momentum=0.5),
    "RMSProp_centered": lambda nn, ps: nn.RMSProp(ps, learning_rate=0.01, momentum=0.3, centered=True,
                                                  epsilon=1e-6),
    "FTRL": lambda nn, ps: nn.FTRL(ps, learning_rate=0.1, l1=0.01, l2=0.02),
    "ProximalAdagrad": lambda nn, ps: nn.ProximalAdagrad(ps, learning_rate=0.1, l1=0.01, l2=0.05),
    "Rprop": lambda nn, ps: nn.Rprop(ps, learning_rate=0.05),
    "Rprop_wd": lambda nn, ps: nn.Rprop(ps, learning_rate=0.05, etas=(0.4, 1.5), step_sizes=(1e-3, 0.1),
                                        weight_decay=0.1),
    "Adam_amsgrad": lambda nn, ps: nn.Adam(ps, learning_rate=0.05, use_amsgrad=True, weight_decay=0.01),
    "Adam_lazy": lambda nn, ps: nn.Adam(ps, learning_rate=0.05, use_lazy=True),
    "LazyAdam": lambda nn, ps: nn.LazyAdam(ps, learning_rate=0.05, beta1=0.8),
    "AdamOffload": lambda nn, ps: nn.AdamOffload(ps, learning_rate=0.05, use_nesterov=True),
    "AdaFactor": lambda nn, ps: nn.AdaFactor(ps),
    "AdaFactor_lr_wd": lambda nn, ps: nn.AdaFactor(ps, learning_rate=0.05, relative_step=False, weight_decay=0.1,
                                                   beta1=0.0, scale_parameter=False),
    "ASGD_groups": lambda nn, ps: nn.ASGD([{"params": ps[:1], "lr": 0.2}, {"params": ps[1:]}], learning_rate=0.05,
                                         alpha=0.5),
    "ASGD": lambda nn, ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.01, t0=0.0),
}


def make(ms: Any, nn: Any, name: str) -> tuple[Any, list]:
    """Case ``name``'s optimizer over fresh Parameters ``w`` and ``gamma``."""
    ps = [ms.Parameter(ms.Tensor(W0.copy()), name="w"), ms.Parameter(ms.Tensor(G0.copy()), name="gamma")]
    return CASES[name](nn, ps), ps


def state_names(ms: Any, nn: Any, name: str) -> list[str]:
    """The names of case ``name``'s optimizer's Parameters (its checkpoint keys), sorted."""
    return sorted(n for n, _ in make(ms, nn, name)[0].parameters_and_names())


def run(ms: Any, nn: Any, name: str) -> list[np.ndarray]:
    """Three steps of case ``name``; the parameters' values after each."""
    opt, ps = make(ms, nn, name)
    out = []
    for g in GRADS:
        opt(tuple(ms.Tensor(a) for a in g))
        out += [np.array(p.asnumpy()) for p in ps]
    return out


__all__ = ["CASES", "make", "run", "state_names"]
