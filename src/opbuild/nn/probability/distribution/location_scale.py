"""Location-scale distributions of ``nn.probability.distribution``: Cauchy, Gumbel, Logistic, and MindSpore
2.10's partial Laplace, HalfNormal and StudentT (density and sampling only; their other methods are refused
as MindSpore refuses them)."""

from __future__ import annotations

import math
from typing import Any

from .... import ops as _ops
from ....core.dtypes import float32
from ....core.tensor import Tensor
from ._base import Distribution

_EULER = 0.5772156649015329
_TINY = 1e-7


def _uniform01(shape: tuple, seed: int | None) -> Tensor:
    """Uniform draws in (0, 1), kept off both ends so their logs stay finite."""
    return _ops.uniform(shape, Tensor(_TINY, float32), Tensor(1.0 - _TINY, float32), seed=seed)


class _LocScale(Distribution):
    _param_names = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, seed: int | None, dtype: Any, name: str) -> None:
        super().__init__(seed, dtype, name, {"loc": loc, "scale": scale})
        self._set_params(loc, scale)

    def _check_params(self, loc, scale) -> None:
        self._positive(type(self).__name__, self._param_names[1], scale)


class Cauchy(_LocScale):
    """``Cauchy(loc=None, scale=None, seed=None, dtype=float32, name='Cauchy')``: no mean or variance."""

    _undefined = {"mean": "", "variance": "", "standard deviation": ""}

    def __init__(self, loc: Any = None, scale: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Cauchy") -> None:
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, loc, scale):
        z = (x - loc) / scale
        return -math.log(math.pi) - _ops.log(scale) - _ops.log1p(z * z)

    def _cdf(self, x, loc, scale):
        return _ops.atan((x - loc) / scale) / math.pi + 0.5

    def _mode(self, loc, scale):
        return loc * _ops.ones_like(scale)

    def _entropy(self, loc, scale):
        return _ops.log(4.0 * math.pi * scale) * _ops.ones_like(loc)

    def _kl(self, other, mine):
        (la, sa), (lb, sb) = mine, other
        s, d = sa + sb, la - lb
        return _ops.log(s * s + d * d) - _ops.log(4.0 * sa * sb)

    def _sample(self, shape, loc, scale):
        return loc + scale * _ops.tan(math.pi * (_uniform01(shape, self.seed) - 0.5))


class Gumbel(_LocScale):
    """``Gumbel(loc, scale, seed=0, dtype=float32, name='Gumbel')``."""

    def __init__(self, loc: Any, scale: Any, seed: int | None = 0, dtype: Any = float32,
                 name: str = "Gumbel") -> None:
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, loc, scale):
        z = (x - loc) / scale
        return -(z + _ops.exp(-z)) - _ops.log(scale)

    def _cdf(self, x, loc, scale):
        return _ops.exp(-_ops.exp(-(x - loc) / scale))

    def _mean(self, loc, scale):
        return loc + scale * _EULER

    def _mode(self, loc, scale):
        return loc * _ops.ones_like(scale)

    def _var(self, loc, scale):
        return (math.pi * math.pi / 6.0) * scale * scale * _ops.ones_like(loc)

    def _entropy(self, loc, scale):
        return (_ops.log(scale) + _EULER + 1.0) * _ops.ones_like(loc)

    def _kl(self, other, mine):
        (la, sa), (lb, sb) = mine, other
        r = sa / sb
        return (_ops.log(sb / sa) + _EULER * (r - 1.0) + _ops.exp((lb - la) / sb + _ops.lgamma(r + 1.0))
                - 1.0 + (la - lb) / sb)

    def _sample(self, shape, loc, scale):
        return loc - scale * _ops.log(-_ops.log(_uniform01(shape, self.seed)))


class Logistic(_LocScale):
    """``Logistic(loc=None, scale=None, seed=None, dtype=float32, name='Logistic')``: no KL."""

    def __init__(self, loc: Any = None, scale: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Logistic") -> None:
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, loc, scale):
        z = (x - loc) / scale
        return -z - 2.0 * _ops.softplus(-z) - _ops.log(scale)

    def _cdf(self, x, loc, scale):
        return _ops.sigmoid((x - loc) / scale)

    def log_cdf(self, value: Any, *args: Any) -> Tensor:
        """log P(X <= value) = -softplus(-z), stable in the tails."""
        x, (loc, scale) = self._value(value), self._resolve(args)
        return -_ops.softplus(-(x - loc) / scale)

    def log_survival(self, value: Any, *args: Any) -> Tensor:
        """log P(X > value) = -softplus(z)."""
        x, (loc, scale) = self._value(value), self._resolve(args)
        return -_ops.softplus((x - loc) / scale)

    def _mean(self, loc, scale):
        return loc * _ops.ones_like(scale)

    _mode = _mean

    def _var(self, loc, scale):
        return (math.pi * math.pi / 3.0) * scale * scale * _ops.ones_like(loc)

    def _entropy(self, loc, scale):
        return (_ops.log(scale) + 2.0) * _ops.ones_like(loc)

    def _sample(self, shape, loc, scale):
        u = _uniform01(shape, self.seed)
        return loc + scale * (_ops.log(u) - _ops.log1p(-u))


class Laplace(_LocScale):
    """``Laplace(mean=None, sd=None, seed=None, dtype=float32, name='Laplace')``: density and sampling."""

    _param_names = ("mean", "sd")

    def __init__(self, mean: Any = None, sd: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Laplace") -> None:
        super().__init__(mean, sd, seed, dtype, name)

    def _log_prob(self, x, mean, sd):
        return -math.log(2.0) - _ops.log(sd) - _ops.abs(x - mean) / sd

    def _sample(self, shape, mean, sd):
        return mean + sd * _ops.standard_laplace(shape, seed=self.seed)


class HalfNormal(_LocScale):
    """``HalfNormal(mean=None, sd=None, seed=None, dtype=float32, name='HalfNormal')``: density and sampling."""

    _param_names = ("mean", "sd")

    def __init__(self, mean: Any = None, sd: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "HalfNormal") -> None:
        super().__init__(mean, sd, seed, dtype, name)

    def _log_prob(self, x, mean, sd):
        z = (x - mean) / sd
        return 0.5 * math.log(2.0 / math.pi) - _ops.log(sd) - 0.5 * z * z

    def _sample(self, shape, mean, sd):
        return mean + sd * _ops.abs(_ops.standard_normal(shape, seed=self.seed))


class StudentT(Distribution):
    """``StudentT(df=None, mean=None, sd=None, seed=None, dtype=float32, name='StudentT')``: density and
    sampling."""

    _param_names = ("df", "mean", "sd")

    def __init__(self, df: Any = None, mean: Any = None, sd: Any = None, seed: int | None = None,
                 dtype: Any = float32, name: str = "StudentT") -> None:
        super().__init__(seed, dtype, name, {"df": df, "mean": mean, "sd": sd})
        self._set_params(df, mean, sd)

    def _check_params(self, df, mean, sd) -> None:
        self._positive("StudentT", "df", df)
        self._positive("StudentT", "sd", sd)

    def _log_prob(self, x, df, mean, sd):
        z = (x - mean) / sd
        return (_ops.lgamma(0.5 * (df + 1.0)) - _ops.lgamma(0.5 * df) - 0.5 * _ops.log(df * math.pi)
                - _ops.log(sd) - 0.5 * (df + 1.0) * _ops.log1p(z * z / df))

    def _sample(self, shape, df, mean, sd):
        lead = shape[:len(shape) - df.ndim]
        chi2 = 2.0 * _ops.random_gamma(lead, 0.5 * df, seed=self.seed)
        return mean + sd * _ops.standard_normal(shape, seed=self.seed) * _ops.rsqrt(chi2 / df)
