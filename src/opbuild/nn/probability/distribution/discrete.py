"""Discrete distributions of ``nn.probability.distribution``: Bernoulli, Geometric (failures before the first
success), Poisson and Categorical. Their parameters are float32; ``dtype`` is the samples' type (int32 by
default, float32 for Poisson), and values are read as float32."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import ops as _ops
from ....core.dtypes import float32, int32
from ....core.tensor import Tensor
from ._base import Distribution, as_float

_INF = float("inf")


def _xlogy(x: Tensor, y: Tensor) -> Tensor:
    """x * log(y), 0 where x is 0 (a certain outcome contributes nothing to an entropy)."""
    return _ops.where(x == 0.0, 0.0, x * _ops.log(y))


class _Probs(Distribution):
    _param_names = ("probs",)
    _int_dtype_ok = True

    def __init__(self, probs: Any, seed: int | None, dtype: Any, name: str) -> None:
        super().__init__(seed, dtype, name, {"probs": probs})
        self._set_params(probs)

    def _check_params(self, probs) -> None:
        self._probability(type(self).__name__, probs, closed=type(self) is Bernoulli)


class Bernoulli(_Probs):
    """``Bernoulli(probs=None, seed=None, dtype=int32, name='Bernoulli')``: 1 with probability ``probs``."""

    def __init__(self, probs: Any = None, seed: int | None = None, dtype: Any = int32,
                 name: str = "Bernoulli") -> None:
        super().__init__(probs, seed, dtype, name)

    def _log_prob(self, x, p):
        return _xlogy(x, p) + _xlogy(1.0 - x, 1.0 - p)

    def _cdf(self, x, p):
        return _ops.where(x < 0.0, 0.0, _ops.where(x < 1.0, 1.0 - p, 1.0))

    def _mean(self, p):
        return p

    def _mode(self, p):
        return _ops.cast(p > 0.5, float32)

    def _var(self, p):
        return p * (1.0 - p)

    def _entropy(self, p):
        return -_xlogy(p, p) - _xlogy(1.0 - p, 1.0 - p)

    def _kl(self, other, mine):
        pa, pb = mine[0], other[0]
        return _xlogy(pa, pa / pb) + _xlogy(1.0 - pa, (1.0 - pa) / (1.0 - pb))

    def _sample(self, shape, p):
        u = _ops.uniform(shape, Tensor(0.0, float32), Tensor(1.0, float32), seed=self.seed)
        return _ops.cast(u < p, float32)


class Geometric(_Probs):
    """``Geometric(probs=None, seed=None, dtype=int32, name='Geometric')``: the number of failures before the
    first success, each trial succeeding with probability ``probs``."""

    def __init__(self, probs: Any = None, seed: int | None = None, dtype: Any = int32,
                 name: str = "Geometric") -> None:
        super().__init__(probs, seed, dtype, name)

    def _log_prob(self, x, p):
        k = _ops.floor(x)
        return _ops.where(k >= 0.0, k * _ops.log1p(-p) + _ops.log(p), -_INF)

    def _cdf(self, x, p):
        k = _ops.floor(x)
        return _ops.where(k >= 0.0, -_ops.expm1((k + 1.0) * _ops.log1p(-p)), 0.0)

    def _mean(self, p):
        return (1.0 - p) / p

    def _mode(self, p):
        return _ops.zeros_like(p)

    def _var(self, p):
        return (1.0 - p) / (p * p)

    def _entropy(self, p):
        return (-_xlogy(p, p) - _xlogy(1.0 - p, 1.0 - p)) / p

    def _kl(self, other, mine):
        pa, pb = mine[0], other[0]
        return _ops.log(pa / pb) + (1.0 - pa) / pa * _ops.log((1.0 - pa) / (1.0 - pb))

    def _sample(self, shape, p):
        u = _ops.uniform(shape, Tensor(1e-7, float32), Tensor(1.0, float32), seed=self.seed)
        return _ops.floor(_ops.log(u) / _ops.log1p(-p))


class Poisson(Distribution):
    """``Poisson(rate=None, seed=None, dtype=float32, name='Poisson')``: no entropy or KL (as in MindSpore)."""

    _param_names = ("rate",)
    _int_dtype_ok = True

    def __init__(self, rate: Any = None, seed: int | None = None, dtype: Any = float32,
                 name: str = "Poisson") -> None:
        super().__init__(seed, dtype, name, {"rate": rate})
        self._set_params(rate)

    def _check_params(self, rate) -> None:
        self._positive("Poisson", "rate", rate)

    def _log_prob(self, x, rate):
        ok = _ops.logical_and(x >= 0.0, _ops.floor(x) == x)
        return _ops.where(ok, x * _ops.log(rate) - rate - _ops.lgamma(x + 1.0), -_INF)

    def _cdf(self, x, rate):
        k = _ops.floor(x)
        return _ops.where(k >= 0.0, _ops.igammac(_ops.relu(k) + 1.0, rate * _ops.ones_like(k)), 0.0)

    def _mean(self, rate):
        return rate

    _var = _mean

    def _mode(self, rate):
        return _ops.floor(rate)

    def _sample(self, shape, rate):
        lead = shape[:len(shape) - rate.ndim]
        return _ops.random_poisson(lead, rate, seed=self.seed)


class Categorical(Distribution):
    """``Categorical(probs=None, seed=None, dtype=int32, name='Categorical')``: the index of a category,
    ``probs`` over the last axis (normalised to sum to 1)."""

    _param_names = ("probs",)
    _int_dtype_ok = True

    def __init__(self, probs: Any = None, seed: int | None = None, dtype: Any = int32,
                 name: str = "Categorical") -> None:
        super().__init__(seed, dtype, name, {"probs": probs})
        self._set_params(probs)

    def _check_params(self, probs) -> None:
        if probs is not None and probs._data is not None:
            a = probs.asnumpy()
            if a.ndim < 1 or a.shape[-1] < 2 or (a < 0).any():
                raise ValueError(f"Categorical: probs must have at least two non-negative entries on the last "
                                 f"axis, got {a}")

    def _resolve(self, args: tuple) -> list[Tensor]:
        (p,) = super()._resolve(args)
        return [p / _ops.sum(p, -1, keepdim=True)]

    def _onehot(self, x: Tensor, p: Tensor) -> Tensor:
        k = p.shape[-1]
        idx = Tensor(np.arange(k, dtype=np.float32))
        return _ops.cast(_ops.expand_dims(x, -1) == idx, float32)

    def _log_prob(self, x, p):
        return _ops.sum(self._onehot(x, p) * _ops.log(p), -1)

    def _cdf(self, x, p):
        k = p.shape[-1]
        idx = Tensor(np.arange(k, dtype=np.float32))
        below = _ops.cast(idx <= _ops.expand_dims(_ops.floor(x), -1), float32)
        return _ops.sum(below * p, -1)

    def _mean(self, p):
        idx = Tensor(np.arange(p.shape[-1], dtype=np.float32))
        return _ops.sum(p * idx, -1, keepdim=True)

    def _var(self, p):
        idx = Tensor(np.arange(p.shape[-1], dtype=np.float32))
        m = _ops.sum(p * idx, -1, keepdim=True)
        return _ops.sum(p * idx * idx, -1, keepdim=True) - m * m

    def _mode(self, p):
        return _ops.cast(_ops.argmax(p, -1), float32)

    def _entropy(self, p):
        return -_ops.sum(_xlogy(p, p), -1)

    def _kl(self, other, mine):
        pa, pb = mine[0], as_float(other[0])
        pb = pb / _ops.sum(pb, -1, keepdim=True)
        return _ops.sum(_xlogy(pa, pa / pb), -1)

    def sample(self, shape: tuple = (), *args: Any) -> Tensor:
        """Category indices of shape ``shape + batch_shape`` (batch_shape: probs' leading axes)."""
        if isinstance(shape, int):
            shape = (shape,)
        (p,) = self._resolve(args)
        n = int(np.prod(shape)) if shape else 1
        flat = _ops.reshape(p, (-1, p.shape[-1]))
        draws = _ops.multinomial(flat, n, True, seed=self.seed)  # (batch, n)
        out = _ops.reshape(_ops.transpose(draws, (1, 0)), tuple(shape) + tuple(p.shape[:-1]))
        return _ops.cast(out, self.dtype)
