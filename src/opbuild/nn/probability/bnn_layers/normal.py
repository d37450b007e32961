"""The Normal prior and the trainable Normal posterior of the Bayesian layers: Cells that call their Normal
distribution's methods by name (``prior('sd')``, ``posterior('kl_loss', 'Normal', mean, sd)``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import ops as _ops
from ....core.dtypes import float32
from ....core.parameter import Parameter
from ....core.tensor import Tensor
from ...cell import Cell
from ..distribution import Normal


class NormalPrior(Cell):
    """``NormalPrior(dtype=float32, mean=0, std=0.1)``: a fixed Normal(mean, std)."""

    def __init__(self, dtype: Any = float32, mean: float = 0, std: float = 0.1) -> None:
        super().__init__()
        self.normal = Normal(mean, std, dtype=dtype)

    def construct(self, *inputs: Any) -> Any:
        """``prior(method, *args)``: the Normal's method."""
        return self.normal(*inputs)


class NormalPosterior(Cell):
    """``NormalPosterior(name, shape, dtype=float32, loc_mean=0, loc_std=0.1, untransformed_scale_mean=-5,
    untransformed_scale_std=0.1)``: a Normal with trainable ``mean`` and ``untransformed_std`` Parameters
    (``<name>_mean``, ``<name>_untransformed_std``, drawn from the given normals), its sd the softplus of
    ``untransformed_std`` plus 1e-6."""

    def __init__(self, name: str, shape: Any, dtype: Any = float32, loc_mean: float = 0, loc_std: float = 0.1,
                 untransformed_scale_mean: float = -5, untransformed_scale_std: float = 0.1) -> None:
        if not isinstance(name, str):
            raise TypeError(f"NormalPosterior: name must be a str, got {type(name).__name__}")
        shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if loc_std <= 0 or untransformed_scale_std <= 0:
            raise ValueError("NormalPosterior: loc_std and untransformed_scale_std must be greater than 0")
        super().__init__()
        rng = np.random.default_rng()
        dt = np.float32
        self.mean = Parameter(Tensor(rng.normal(loc_mean, loc_std, shape).astype(dt)), name=f"{name}_mean")
        self.untransformed_std = Parameter(
            Tensor(rng.normal(untransformed_scale_mean, untransformed_scale_std, shape).astype(dt)),
            name=f"{name}_untransformed_std")
        self.normal = Normal(dtype=dtype)

    def std(self) -> Tensor:
        """The posterior's sd: softplus(untransformed_std) + 1e-6 (MindSpore's floor, which keeps the KL
        term finite however negative untransformed_std gets)."""
        return _ops.softplus(self.untransformed_std) + 1e-6

    def construct(self, *inputs: Any) -> Any:
        """``posterior(method, *args)``: the Normal's method with the posterior's mean and sd last."""
        return self.normal(*inputs, self.mean, self.std())


def normal_prior_fn(*args: Any, **kwargs: Any) -> NormalPrior:
    """The default prior factory (a standard NormalPrior)."""
    return NormalPrior(*args, **kwargs)


def normal_post_fn(name: str, shape: Any) -> NormalPosterior:
    """The default posterior factory."""
    return NormalPosterior(name=name, shape=shape)
