"""The ``Distribution`` base of ``nn.probability.distribution``: parameters given at construction or at each
call, the derived methods (prob from log_prob, survival from cdf, sd from var, cross entropy from entropy and
KL), and ``construct(name, *args)`` dispatch. Everything is computed with opbuild's ops, so a distribution
used inside a GRAPH_MODE Cell's ``construct`` traces into its graph and gradients flow through its
parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import ops as _ops
from ....core.dtypes import DType, float32
from ....core.tensor import Tensor
from ...cell import Cell

_METHODS = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "mean", "var", "sd",
            "mode", "entropy", "kl_loss", "cross_entropy", "sample", "get_dist_args", "get_dist_type")


def as_float(x: Any) -> Tensor:
    """A parameter or value as a float32 tensor (a tensor kept as is when already float32)."""
    if isinstance(x, Tensor):
        return x if x.dtype == float32 else _ops.cast(x, float32)
    return Tensor(np.asarray(x, np.float32))


class Distribution(Cell):
    """``Distribution(seed, dtype, name, param)``: the base class. A subclass names its parameters in
    ``_param_names`` and implements ``_log_prob``, ``_cdf``, ``_mean``, ``_var``, ``_entropy``, ``_kl``,
    ``_mode`` and ``_sample`` over explicit parameter tensors; the public methods take the parameters
    positionally after their own arguments, each defaulting to the one given at construction."""

    _param_names: tuple[str, ...] = ()
    _undefined: dict[str, str] = {}  # method -> why it is refused (an undefined moment)
    _int_dtype_ok = False  # discrete distributions also draw integer samples

    def __init__(self, seed: int | None, dtype: Any, name: str, param: dict | None = None) -> None:
        super().__init__()
        if not isinstance(name, str):
            raise TypeError(f"{type(self).__name__}: name must be a str, got {type(name).__name__}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"{name}: seed must be an int or None, got {type(seed).__name__}")
        if dtype is not None:
            ok = isinstance(dtype, DType) and (dtype.is_float or (self._int_dtype_ok and dtype.is_int))
            if not ok:
                kinds = "a float or an int dtype" if self._int_dtype_ok else "a float dtype"
                raise TypeError(f"{name}: dtype must be {kinds} (the samples' type), got {dtype!r}")
        self.seed = seed
        self.dtype = dtype
        self.name = name
        self.parameters = dict(param or {})
        self.default_parameters: list[Tensor | None] = []

    def _set_params(self, *values: Any) -> None:
        for v in values:
            t = None if v is None else as_float(v)
            self.default_parameters.append(t)
        self._check_params(*[t for t in self.default_parameters])

    def _check_params(self, *params: Tensor | None) -> None:
        """Refuses out-of-range constant parameters (overridden where a parameter has a bound)."""

    @staticmethod
    def _positive(cls: str, name: str, t: Tensor | None) -> None:
        if t is not None and not _traced(t) and not bool((t.asnumpy() > 0).all()):
            raise ValueError(f"{cls}: {name} must be greater than 0, got {t.asnumpy()}")

    @staticmethod
    def _probability(cls: str, t: Tensor | None, *, closed: bool = False) -> None:
        if t is not None and not _traced(t):
            a = t.asnumpy()
            ok = ((a >= 0) & (a <= 1)).all() if closed else ((a > 0) & (a < 1)).all()
            if not ok:
                raise ValueError(f"{cls}: probs must be in {'[0, 1]' if closed else '(0, 1)'}, got {a}")

    def _resolve(self, args: tuple) -> list[Tensor]:
        """The distribution's parameters: each call argument that is given, else the constructor's."""
        cls = type(self).__name__
        if len(args) > len(self._param_names):
            raise TypeError(f"{cls}: got {len(args)} parameter arguments, it has {len(self._param_names)}: "
                            f"{', '.join(self._param_names)}")
        out = []
        for i, pname in enumerate(self._param_names):
            v = args[i] if i < len(args) and args[i] is not None else self.default_parameters[i]
            if v is None:
                raise ValueError(f"{cls}: {pname} was given neither at construction nor in the call")
            out.append(as_float(v))
        return out

    def _refuse(self, method: str) -> None:
        if method in self._undefined:
            raise ValueError(f"{method} is undefined for {type(self).__name__} distribution.")

    def _not_implemented(self, method: str):
        raise NotImplementedError(f"{method} is not implemented for {type(self).__name__} distribution.")

    # value methods
    def log_prob(self, value: Any, *args: Any) -> Tensor:
        """The log of the probability (density or mass) of ``value``."""
        return self._log_prob(self._value(value), *self._resolve(args))

    def prob(self, value: Any, *args: Any) -> Tensor:
        """The probability (density or mass) of ``value``."""
        return _ops.exp(self.log_prob(value, *args))

    def cdf(self, value: Any, *args: Any) -> Tensor:
        """P(X <= value)."""
        return self._cdf(self._value(value), *self._resolve(args))

    def log_cdf(self, value: Any, *args: Any) -> Tensor:
        """log P(X <= value)."""
        return _ops.log(self.cdf(value, *args))

    def survival_function(self, value: Any, *args: Any) -> Tensor:
        """P(X > value)."""
        return 1.0 - self.cdf(value, *args)

    def log_survival(self, value: Any, *args: Any) -> Tensor:
        """log P(X > value)."""
        return _ops.log(self.survival_function(value, *args))

    # statistics
    def mean(self, *args: Any) -> Tensor:
        """The mean."""
        self._refuse("mean")
        return self._mean(*self._resolve(args))

    def var(self, *args: Any) -> Tensor:
        """The variance."""
        self._refuse("variance")
        return self._var(*self._resolve(args))

    def sd(self, *args: Any) -> Tensor:
        """The standard deviation."""
        self._refuse("standard deviation")
        return _ops.sqrt(self._var(*self._resolve(args)))

    def mode(self, *args: Any) -> Tensor:
        """The mode."""
        return self._mode(*self._resolve(args))

    def entropy(self, *args: Any) -> Tensor:
        """The entropy."""
        return self._entropy(*self._resolve(args))

    def kl_loss(self, dist: str, *args: Any) -> Tensor:
        """KL(self || other), ``other`` a distribution of the same type named ``dist`` whose parameters come
        first in ``args``, followed by this one's (optional)."""
        other, mine = self._pair(dist, args)
        return self._kl(other, mine)

    def cross_entropy(self, dist: str, *args: Any) -> Tensor:
        """H(self, other) = entropy(self) + KL(self || other), arguments as ``kl_loss``'s."""
        other, mine = self._pair(dist, args)
        return self._entropy(*mine) + self._kl(other, mine)

    def _pair(self, dist: str, args: tuple) -> tuple[list[Tensor], list[Tensor]]:
        cls = type(self).__name__
        if dist != cls:
            raise ValueError(f"{cls}: kl_loss and cross_entropy compare with the same type, got dist={dist!r}")
        n = len(self._param_names)
        if len(args) < n or any(a is None for a in args[:n]):
            raise ValueError(f"{cls}: give the other distribution's {', '.join(self._param_names)}")
        return [as_float(a) for a in args[:n]], self._resolve(tuple(args[n:]))

    def sample(self, shape: tuple = (), *args: Any) -> Tensor:
        """Samples of shape ``shape + batch_shape``, in the distribution's dtype."""
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise TypeError(f"{type(self).__name__}.sample: shape must be a tuple of ints, got {shape!r}")
        params = self._resolve(args)
        batch = np.broadcast_shapes(*[tuple(p.shape) for p in params]) if params else ()
        out = self._sample(tuple(shape) + tuple(batch), *[_ops.broadcast_to(p, batch) if tuple(p.shape) != batch
                                                         else p for p in params])
        return out if out.dtype == self.dtype else _ops.cast(out, self.dtype)

    def get_dist_args(self, *args: Any) -> tuple[Tensor, ...]:
        """The parameters a call with ``args`` uses."""
        return tuple(self._resolve(args))

    def get_dist_type(self) -> str:
        """The distribution's type name."""
        return type(self).__name__

    def construct(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """``dist(name, *args)`` calls the method ``name`` (MindSpore's dispatch in a Cell)."""
        if name not in _METHODS:
            raise ValueError(f"{type(self).__name__}: unknown method {name!r}; one of {', '.join(_METHODS)}")
        return getattr(self, name)(*args, **kwargs)

    def _value(self, value: Any) -> Tensor:
        return as_float(value)

    # to implement
    def _log_prob(self, value: Tensor, *p: Tensor) -> Tensor:
        self._not_implemented("log_prob")

    def _cdf(self, value: Tensor, *p: Tensor) -> Tensor:
        self._not_implemented("cdf")

    def _mean(self, *p: Tensor) -> Tensor:
        self._not_implemented("mean")

    def _var(self, *p: Tensor) -> Tensor:
        self._not_implemented("var")

    def _mode(self, *p: Tensor) -> Tensor:
        self._not_implemented("mode")

    def _entropy(self, *p: Tensor) -> Tensor:
        self._not_implemented("entropy")

    def _kl(self, other: list[Tensor], mine: list[Tensor]) -> Tensor:
        self._not_implemented("kl_loss")

    def _sample(self, shape: tuple, *p: Tensor) -> Tensor:
        self._not_implemented("sample")

    def extend_repr(self) -> str:
        shown = [f"{n} = {t.asnumpy()}" if t is not None and not _traced(t) else f"{n} = None"
                 for n, t in zip(self._param_names, self.default_parameters)]
        return ", ".join(shown) if shown else "batch_shape = ()"


def _traced(t: Tensor) -> bool:
    """True for a symbolic tensor of a graph being traced (its value is not known)."""
    return getattr(t, "_data", None) is None


def seed_of(dist: Distribution) -> int | None:
    """The seed a sampler uses: the distribution's, or None for the global generator."""
    return dist.seed
