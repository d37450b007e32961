"""``TransformedDistribution(bijector, distribution, seed=None, name='transformed_distribution')``: the
distribution of ``bijector.forward(X)`` for X drawn from ``distribution`` (change of variables)."""

from __future__ import annotations

from typing import Any

from ....core.tensor import Tensor
from ._base import Distribution


class TransformedDistribution(Distribution):
    """Y = bijector.forward(X): log_prob(y) = log_prob_X(inverse(y)) + inverse_log_jacobian(y), cdf(y) =
    cdf_X(inverse(y)) (an increasing bijector), samples the forward of X's. Its mean needs a linear
    bijector (MindSpore refuses it otherwise), which it then maps through the bijector."""

    def __init__(self, bijector: Any, distribution: Distribution, seed: int | None = None,
                 name: str = "transformed_distribution") -> None:
        if not isinstance(distribution, Distribution):
            raise TypeError(f"TransformedDistribution: distribution must be a Distribution, got "
                            f"{type(distribution).__name__}")
        if not hasattr(bijector, "forward") or not hasattr(bijector, "inverse"):
            raise TypeError(f"TransformedDistribution: bijector must be a Bijector, got {type(bijector).__name__}")
        super().__init__(seed if seed is not None else distribution.seed, distribution.dtype, name, {})
        self.bijector = bijector
        self.distribution = distribution
        self._param_names = distribution._param_names
        self.default_parameters = distribution.default_parameters

    def log_prob(self, value: Any, *args: Any) -> Tensor:
        """log p_X(inverse(value)) + inverse_log_jacobian(value)."""
        x = self.bijector.inverse(value)
        return self.distribution.log_prob(x, *args) + self.bijector.inverse_log_jacobian(value)

    def cdf(self, value: Any, *args: Any) -> Tensor:
        """cdf_X(inverse(value))."""
        return self.distribution.cdf(self.bijector.inverse(value), *args)

    def mean(self, *args: Any) -> Tensor:
        """forward(mean of X), for a linear bijector only."""
        if not getattr(self.bijector, "is_constant_jacobian", False):
            raise ValueError("TransformedDistribution: mean needs a linear bijector (one with a constant "
                             "jacobian); use samples to estimate it")
        return self.bijector.forward(self.distribution.mean(*args))

    def sample(self, shape: tuple = (), *args: Any) -> Tensor:
        """forward(samples of X)."""
        return self.bijector.forward(self.distribution.sample(shape, *args))

    def _kl(self, other, mine):
        raise NotImplementedError("kl_loss is not implemented for TransformedDistribution distribution.")

    def var(self, *args: Any) -> Tensor:
        """Refused: not computable in closed form for a general bijector."""
        raise NotImplementedError("var is not implemented for TransformedDistribution distribution.")

    sd = var
    entropy = var

