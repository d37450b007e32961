"""The bijectors: each maps x to y = forward(x) with inverse(y), forward_log_jacobian(x) = log|dy/dx| and
inverse_log_jacobian(y) = log|dx/dy|. A Cell: ``bijector(name, *args)`` dispatches to the method."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .... import ops as _ops
from ....core.tensor import Tensor
from ...cell import Cell
from ..distribution._base import as_float

_METHODS = ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian")


def _scalar(cls: str, name: str, v: Any) -> float:
    if isinstance(v, Tensor) and v._data is not None and v.size == 1:
        v = float(v.asnumpy())
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {name} must be a float, got {type(v).__name__}")
    return float(v)


class Bijector(Cell):
    """``Bijector(is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None)``: the
    base; a subclass implements ``_forward``, ``_inverse``, ``_forward_log_jacobian`` and
    ``_inverse_log_jacobian`` on float32 tensors."""

    def __init__(self, is_constant_jacobian: bool = False, is_injective: bool = True, name: str | None = None,
                 dtype: Any = None, param: dict | None = None) -> None:
        super().__init__()
        self.name = name if name is not None else type(self).__name__
        self.dtype = dtype
        self.is_constant_jacobian = bool(is_constant_jacobian)
        self.is_injective = bool(is_injective)
        self.parameters = dict(param or {})

    def forward(self, value: Any) -> Tensor:
        """y = f(x)."""
        return self._forward(as_float(value))

    def inverse(self, value: Any) -> Tensor:
        """x = f^-1(y)."""
        return self._inverse(as_float(value))

    def forward_log_jacobian(self, value: Any) -> Tensor:
        """log|f'(x)|."""
        return self._forward_log_jacobian(as_float(value))

    def inverse_log_jacobian(self, value: Any) -> Tensor:
        """log|(f^-1)'(y)|."""
        return self._inverse_log_jacobian(as_float(value))

    def _inverse_log_jacobian(self, y: Tensor) -> Tensor:
        return -self._forward_log_jacobian(self._inverse(y))

    def construct(self, name: str, *args: Any, **kwargs: Any) -> Tensor:
        """``bijector(name, value)`` calls the method ``name``."""
        if name not in _METHODS:
            raise ValueError(f"{type(self).__name__}: unknown method {name!r}; one of {', '.join(_METHODS)}")
        return getattr(self, name)(*args, **kwargs)

    def _forward(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}: forward is not implemented")

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}: inverse is not implemented")

    def _forward_log_jacobian(self, x: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}: forward_log_jacobian is not implemented")


class PowerTransform(Bijector):
    """``PowerTransform(power=0.0, name='PowerTransform')``: y = (1 + power * x) ** (1 / power), exp(x) for
    power 0."""

    def __init__(self, power: float = 0.0, name: str = "PowerTransform") -> None:
        power = _scalar(name, "power", power)
        if power < 0:
            raise ValueError(f"{name}: power must be >= 0, got {power}")
        super().__init__(name=name, param={"power": power})
        self.power = power

    def _forward(self, x):
        c = self.power
        return _ops.exp(x) if c == 0 else _ops.exp(_ops.log1p(c * x) / c)

    def _inverse(self, y):
        c = self.power
        return _ops.log(y) if c == 0 else _ops.expm1(c * _ops.log(y)) / c

    def _forward_log_jacobian(self, x):
        c = self.power
        return x if c == 0 else (1.0 / c - 1.0) * _ops.log1p(c * x)

    def _inverse_log_jacobian(self, y):
        return (self.power - 1.0) * _ops.log(y)


class Exp(PowerTransform):
    """``Exp(name='Exp')``: y = exp(x)."""

    def __init__(self, name: str = "Exp") -> None:
        super().__init__(0.0, name)


class ScalarAffine(Bijector):
    """``ScalarAffine(scale=1.0, shift=0.0, name='ScalarAffine')``: y = scale * x + shift."""

    def __init__(self, scale: float = 1.0, shift: float = 0.0, name: str = "ScalarAffine") -> None:
        scale, shift = _scalar(name, "scale", scale), _scalar(name, "shift", shift)
        if scale == 0:
            raise ValueError(f"{name}: scale must not be 0 (the map would not be invertible)")
        super().__init__(is_constant_jacobian=True, name=name, param={"scale": scale, "shift": shift})
        self.scale, self.shift = scale, shift

    def _forward(self, x):
        return x * self.scale + self.shift

    def _inverse(self, y):
        return (y - self.shift) / self.scale

    def _forward_log_jacobian(self, x):
        # a constant jacobian: a scalar, whatever x's shape (MindSpore's)
        return Tensor(np.float32(np.log(abs(self.scale))))

    def _inverse_log_jacobian(self, y):
        return -self._forward_log_jacobian(y)


class Softplus(Bijector):
    """``Softplus(sharpness=1.0, name='Softplus')``: y = log(1 + exp(sharpness * x)) / sharpness."""

    def __init__(self, sharpness: float = 1.0, name: str = "Softplus") -> None:
        sharpness = _scalar(name, "sharpness", sharpness)
        if sharpness <= 0:
            raise ValueError(f"{name}: sharpness must be > 0, got {sharpness}")
        super().__init__(name=name, param={"sharpness": sharpness})
        self.sharpness = sharpness

    def _forward(self, x):
        return _ops.softplus(x * self.sharpness) / self.sharpness

    def _inverse(self, y):
        k = self.sharpness
        # log(expm1(k y)) = k y + log(-expm1(-k y)), finite for large y
        return (k * y + _ops.log(-_ops.expm1(-k * y))) / k

    def _forward_log_jacobian(self, x):
        return -_ops.softplus(-self.sharpness * x)

    def _inverse_log_jacobian(self, y):
        return -_ops.log(-_ops.expm1(-self.sharpness * y))


class GumbelCDF(Bijector):
    """``GumbelCDF(loc=0.0, scale=1.0, name='GumbelCDF')``: y = exp(-exp(-(x - loc) / scale))."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, name: str = "GumbelCDF") -> None:
        loc, scale = _scalar(name, "loc", loc), _scalar(name, "scale", scale)
        if scale <= 0:
            raise ValueError(f"{name}: scale must be > 0, got {scale}")
        super().__init__(name=name, param={"loc": loc, "scale": scale})
        self.loc, self.scale = loc, scale

    def _forward(self, x):
        return _ops.exp(-_ops.exp(-(x - self.loc) / self.scale))

    def _inverse(self, y):
        return self.loc - self.scale * _ops.log(-_ops.log(y))

    def _forward_log_jacobian(self, x):
        z = (x - self.loc) / self.scale
        return -z - _ops.exp(-z) - float(np.log(self.scale))

    def _inverse_log_jacobian(self, y):
        return float(np.log(self.scale)) - _ops.log(-_ops.log(y)) - _ops.log(y)


class Invert(Bijector):
    """``Invert(bijector, name='')``: the inverse map of ``bijector`` (forward and inverse swapped)."""

    def __init__(self, bijector: Bijector, name: str = "") -> None:
        if not isinstance(bijector, Bijector):
            raise TypeError(f"Invert: bijector must be a Bijector, got {type(bijector).__name__}")
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian,
                         is_injective=bijector.is_injective, name=name or "Invert" + bijector.name,
                         dtype=bijector.dtype)
        self.bijector = bijector

    def forward(self, value: Any) -> Tensor:
        """The wrapped bijector's inverse."""
        return self.bijector.inverse(value)

    def inverse(self, value: Any) -> Tensor:
        """The wrapped bijector's forward."""
        return self.bijector.forward(value)

    def forward_log_jacobian(self, value: Any) -> Tensor:
        """The wrapped bijector's inverse_log_jacobian."""
        return self.bijector.inverse_log_jacobian(value)

    def inverse_log_jacobian(self, value: Any) -> Tensor:
        """The wrapped bijector's forward_log_jacobian."""
        return self.bijector.forward_log_jacobian(value)
