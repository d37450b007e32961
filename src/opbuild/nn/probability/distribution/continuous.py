"""Continuous distributions of ``nn.probability.distribution``: Normal, LogNormal, Exponential, Uniform,
Gamma, Beta, Cauchy, Gumbel and Logistic, with MindSpore 2.10's parameters, methods and refusals (Beta has no
cdf, Cauchy no mean or variance, Logistic no KL)."""

from __future__ import annotations

import math
from typing import Any

from .... import ops as _ops
from ....core.dtypes import float32
from ....core.tensor import Tensor
from ._base import Distribution

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_INF = float("inf")


def _normal_log_prob(x: Tensor, mean: Tensor, sd: Tensor) -> Tensor:
    z = (x - mean) / sd
    return -0.5 * z * z - _ops.log(sd) - _HALF_LOG_2PI


def _normal_cdf(x: Tensor, mean: Tensor, sd: Tensor) -> Tensor:
    return 0.5 * (1.0 + _ops.erf((x - mean) / (sd * math.sqrt(2.0))))


def _normal_kl(ma: Tensor, sa: Tensor, mb: Tensor, sb: Tensor) -> Tensor:
    d = ma - mb
    return _ops.log(sb / sa) + (sa * sa + d * d) / (2.0 * sb * sb) - 0.5


class Normal(Distribution):
    """``Normal(mean=None, sd=None, seed=None, dtype=float32, name='Normal')``."""

    _param_names = ("mean", "sd")

    def __init__(self, mean: Any = None, sd: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Normal") -> None:
        super().__init__(seed, dtype, name, {"mean": mean, "sd": sd})
        self._set_params(mean, sd)

    def _check_params(self, mean, sd) -> None:
        self._positive(type(self).__name__, "sd", sd)

    def _log_prob(self, x, mean, sd):
        return _normal_log_prob(x, mean, sd)

    def _cdf(self, x, mean, sd):
        return _normal_cdf(x, mean, sd)

    def _mean(self, mean, sd):
        return mean * _ops.ones_like(sd)

    def _mode(self, mean, sd):
        return self._mean(mean, sd)

    def _var(self, mean, sd):
        return sd * sd * _ops.ones_like(mean)

    def _entropy(self, mean, sd):
        return (_ops.log(sd) + 0.5 + _HALF_LOG_2PI) * _ops.ones_like(mean)

    def _kl(self, other, mine):
        return _normal_kl(mine[0], mine[1], other[0], other[1])

    def _sample(self, shape, mean, sd):
        return mean + sd * _ops.standard_normal(shape, seed=self.seed)


class LogNormal(Normal):
    """``LogNormal(loc=None, scale=None, seed=0, dtype=float32, name='LogNormal')``: exp of a Normal."""

    _param_names = ("loc", "scale")

    def __init__(self, loc: Any = None, scale: Any = None, seed: int | None = 0, dtype: Any = float32,
                 name: str = "LogNormal") -> None:
        Distribution.__init__(self, seed, dtype, name, {"loc": loc, "scale": scale})
        self._set_params(loc, scale)

    def _check_params(self, loc, scale) -> None:
        self._positive(type(self).__name__, "scale", scale)

    def _log_prob(self, x, loc, scale):
        lx = _ops.log(x)
        return _normal_log_prob(lx, loc, scale) - lx

    def _cdf(self, x, loc, scale):
        return _normal_cdf(_ops.log(x), loc, scale)

    def _mean(self, loc, scale):
        return _ops.exp(loc + 0.5 * scale * scale)

    def _mode(self, loc, scale):
        return _ops.exp(loc - scale * scale)

    def _var(self, loc, scale):
        s2 = scale * scale
        return _ops.expm1(s2) * _ops.exp(2.0 * loc + s2)

    def _entropy(self, loc, scale):
        return loc + 0.5 + _ops.log(scale) + _HALF_LOG_2PI

    def _sample(self, shape, loc, scale):
        return _ops.exp(super()._sample(shape, loc, scale))


class Exponential(Distribution):
    """``Exponential(rate=None, seed=None, dtype=float32, name='Exponential')``."""

    _param_names = ("rate",)

    def __init__(self, rate: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Exponential") -> None:
        super().__init__(seed, dtype, name, {"rate": rate})
        self._set_params(rate)

    def _check_params(self, rate) -> None:
        self._positive(type(self).__name__, "rate", rate)

    def _log_prob(self, x, rate):
        return _ops.where(x >= 0.0, _ops.log(rate) - rate * x, -_INF)

    def _cdf(self, x, rate):
        return _ops.where(x >= 0.0, -_ops.expm1(-rate * x), 0.0)

    def log_survival(self, value: Any, *args: Any) -> Tensor:
        """log P(X > value) = -rate * value (0 below the support)."""
        x, (rate,) = self._value(value), self._resolve(args)
        return _ops.where(x >= 0.0, -rate * x, 0.0)

    def _mean(self, rate):
        return 1.0 / rate

    def _mode(self, rate):
        return _ops.zeros_like(rate)

    def _var(self, rate):
        return 1.0 / (rate * rate)

    def _entropy(self, rate):
        return 1.0 - _ops.log(rate)

    def _kl(self, other, mine):
        ra, rb = mine[0], other[0]
        return _ops.log(ra / rb) + rb / ra - 1.0

    def _sample(self, shape, rate):
        u = _ops.uniform(shape, Tensor(1e-12, float32), Tensor(1.0, float32), seed=self.seed)
        return -_ops.log(u) / rate


class Uniform(Distribution):
    """``Uniform(low=None, high=None, seed=None, dtype=float32, name='Uniform')``."""

    _param_names = ("low", "high")

    def __init__(self, low: Any = None, high: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Uniform") -> None:
        super().__init__(seed, dtype, name, {"low": low, "high": high})
        self._set_params(low, high)

    def _check_params(self, low, high) -> None:
        if low is not None and high is not None and low._data is not None and high._data is not None \
                and not bool((low.asnumpy() < high.asnumpy()).all()):
            raise ValueError(f"Uniform: low must be less than high, got {low.asnumpy()} and {high.asnumpy()}")

    def _log_prob(self, x, low, high):
        inside = _ops.logical_and(x >= low, x <= high)
        return _ops.where(inside, -_ops.log(high - low), -_INF)

    def _cdf(self, x, low, high):
        return _ops.clamp((x - low) / (high - low), 0.0, 1.0)

    def _mean(self, low, high):
        return 0.5 * (low + high)

    def _var(self, low, high):
        w = high - low
        return w * w / 12.0

    def _entropy(self, low, high):
        return _ops.log(high - low)

    def _kl(self, other, mine):
        (la, ha), (lb, hb) = mine, other
        contained = _ops.logical_and(lb <= la, ha <= hb)
        return _ops.where(contained, _ops.log((hb - lb) / (ha - la)), _INF)

    def _sample(self, shape, low, high):
        u = _ops.uniform(shape, Tensor(0.0, float32), Tensor(1.0, float32), seed=self.seed)
        return low + (high - low) * u


class Gamma(Distribution):
    """``Gamma(concentration=None, rate=None, seed=None, dtype=float32, name='Gamma')``."""

    _param_names = ("concentration", "rate")

    def __init__(self, concentration: Any = None, rate: Any = None, seed: int | None = None,
                 dtype: Any = float32, name: str = "Gamma") -> None:
        super().__init__(seed, dtype, name, {"concentration": concentration, "rate": rate})
        self._set_params(concentration, rate)

    def _check_params(self, a, b) -> None:
        self._positive(type(self).__name__, "concentration", a)
        self._positive(type(self).__name__, "rate", b)

    def _log_prob(self, x, a, b):
        return a * _ops.log(b) + (a - 1.0) * _ops.log(x) - b * x - _ops.lgamma(a)

    def _cdf(self, x, a, b):
        return _ops.igamma(a * _ops.ones_like(x), _ops.relu(b * x))

    def _mean(self, a, b):
        return a / b

    def _mode(self, a, b):
        return _ops.where(a >= 1.0, (a - 1.0) / b, float("nan"))

    def _var(self, a, b):
        return a / (b * b)

    def _entropy(self, a, b):
        return a - _ops.log(b) + _ops.lgamma(a) + (1.0 - a) * _ops.digamma(a)

    def _kl(self, other, mine):
        (aa, ba), (ab, bb) = mine, other
        return ((aa - ab) * _ops.digamma(aa) - _ops.lgamma(aa) + _ops.lgamma(ab)
                + ab * (_ops.log(ba) - _ops.log(bb)) + aa * (bb - ba) / ba)

    def _sample(self, shape, a, b):
        lead = shape[:len(shape) - a.ndim]
        return _ops.random_gamma(lead, a, seed=self.seed) / b


def _lbeta(a: Tensor, b: Tensor) -> Tensor:
    return _ops.lgamma(a) + _ops.lgamma(b) - _ops.lgamma(a + b)


class Beta(Distribution):
    """``Beta(concentration1=None, concentration0=None, seed=None, dtype=float32, name='Beta')``: no cdf."""

    _param_names = ("concentration1", "concentration0")

    def __init__(self, concentration1: Any = None, concentration0: Any = None, seed: int | None = None,
                 dtype: Any = float32, name: str = "Beta") -> None:
        super().__init__(seed, dtype, name, {"concentration1": concentration1, "concentration0": concentration0})
        self._set_params(concentration1, concentration0)

    def _check_params(self, a, b) -> None:
        self._positive(type(self).__name__, "concentration1", a)
        self._positive(type(self).__name__, "concentration0", b)

    def _log_prob(self, x, a, b):
        return (a - 1.0) * _ops.log(x) + (b - 1.0) * _ops.log1p(-x) - _lbeta(a, b)

    def cdf(self, value: Any, *args: Any) -> Tensor:
        """Not implemented (as in MindSpore)."""
        self._not_implemented("cdf")

    def log_cdf(self, value: Any, *args: Any) -> Tensor:
        """Not implemented (as in MindSpore)."""
        self._not_implemented("log_cdf")

    def survival_function(self, value: Any, *args: Any) -> Tensor:
        """Not implemented (as in MindSpore)."""
        self._not_implemented("survival_function")

    def log_survival(self, value: Any, *args: Any) -> Tensor:
        """Not implemented (as in MindSpore)."""
        self._not_implemented("log_cdf")

    def _mean(self, a, b):
        return a / (a + b)

    def _mode(self, a, b):
        ok = _ops.logical_and(a > 1.0, b > 1.0)
        return _ops.where(ok, (a - 1.0) / (a + b - 2.0), float("nan"))

    def _var(self, a, b):
        s = a + b
        return a * b / (s * s * (s + 1.0))

    def _entropy(self, a, b):
        return (_lbeta(a, b) - (a - 1.0) * _ops.digamma(a) - (b - 1.0) * _ops.digamma(b)
                + (a + b - 2.0) * _ops.digamma(a + b))

    def _kl(self, other, mine):
        (a1, b1), (a2, b2) = mine, other
        return (_lbeta(a2, b2) - _lbeta(a1, b1) + (a1 - a2) * _ops.digamma(a1) + (b1 - b2) * _ops.digamma(b1)
                + (a2 - a1 + b2 - b1) * _ops.digamma(a1 + b1))

    def _sample(self, shape, a, b):
        lead = shape[:len(shape) - a.ndim]
        x = _ops.random_gamma(lead, a, seed=self.seed)
        y = _ops.random_gamma(lead, b, seed=None if self.seed is None else self.seed + 1)
        return x / (x + y)
