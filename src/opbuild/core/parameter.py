"""Parameter: a named, trainable Tensor held by a Cell; ParameterTuple: an immutable group of them."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

# Re-exported here because ``from opbuild.core.parameter import initializer`` predates core/initializer.py
# (users reach it as opbuild.common.initializer, MindSpore's path).
from . import host_writes, parameter_shapes, trace
from .initializer import init_array, initializer, set_seed
from .parameter_settings import ParameterSettings
from .tensor import Tensor

# Names given to Parameters made without one: "Parameter#N", N counting them in the process. MindSpore 2.10
# counts from 0 and its import makes two, so the first of a program is "Parameter#2" there: so it is here.
GENERATED_PREFIX = "Parameter#"
_generated = itertools.count(2)
_NAME_MAX = 1024  # MindSpore's longest name


def is_generated_name(name: str) -> bool:
    """Whether ``name`` is a generated one (a Cell attribute gives such a Parameter the attribute's name)."""
    return name.startswith(GENERATED_PREFIX)


class Parameter(ParameterSettings, Tensor):
    """A Tensor owned by a Cell, with a ``name`` (set from the attribute path) and ``requires_grad``. Without a
    name (None, "" or blanks) it is named ``Parameter#N``, MindSpore's generated names."""

    # False while nn.no_init_parameters() is active (MindSpore's flag for deferred initialisation)
    init_param = True

    __slots__ = ("_name", "requires_grad", "_settings")

    def __init__(self, default_input, name: str | None = None, requires_grad: bool = True,
                 layerwise_parallel: bool = False, parallel_optimizer: bool = True, storage_format: str = "",
                 device=None):
        # MindSpore's signature: the parallel and storage options choose device placement and sharding, which
        # one CPU process has no use for; they are accepted so model-zoo code constructs its parameters.
        super().__init__(default_input)
        self.name = name
        self.requires_grad = requires_grad
        self._settings = {"layerwise_parallel": bool(layerwise_parallel),
                          "parallel_optimizer": bool(parallel_optimizer)}

    @property
    def name(self) -> str:
        """The name (what checkpoints store it under)."""
        return self._name

    @name.setter
    def name(self, name: str | None) -> None:
        if name is not None and not isinstance(name, str):
            # As MindSpore 2.10 (ValueError): a number or bytes would be saved under a name nothing can load.
            raise ValueError(f"Parameter: name must be a str or None, got {type(name).__name__} {name!r}")
        name = (name or "").strip()
        if len(name) > _NAME_MAX:
            raise ValueError(f"Parameter: a name is at most {_NAME_MAX} characters, got {len(name)} "
                             f"({name[:40]!r}...)")
        self._name = name or f"{GENERATED_PREFIX}{next(_generated)}"

    def clone(self, init="same") -> Parameter:
        """A new Parameter of the same name, ``requires_grad`` and settings, holding a copy of the values
        (``init='same'``) or values drawn by ``init`` (a name, Initializer or number)."""
        data = self._read().copy() if init == "same" else init_array(init, self.shape, self.dtype)
        out = Parameter(data, name=self.name, requires_grad=self.requires_grad)
        out._settings = dict(self._settings)
        return out

    def set_data(self, data, slice_shape: bool = False) -> Parameter:
        """Replace the values, cast to the parameter's dtype; compiled graphs read the new data at their next
        call. The shape must stay unless ``slice_shape=True`` (MindSpore's flag, with which model zoos
        reshape a weight when adapting a checkpoint, e.g. to another class count); graphs compiled for the
        old shape are rebuilt for the new one."""
        try:
            arr = np.require(np.asarray(data, dtype=self._data.dtype), requirements='C')  # keeps 0-d shapes
        except (TypeError, ValueError) as e:  # NumPy's message alone names neither the parameter nor the fix
            raise TypeError(f"Parameter {self.name}: set_data takes a Tensor, array or number convertible to "
                            f"{self._data.dtype}, got {type(data).__name__} ({e})") from None
        except OverflowError as e:  # a Python int or float too large for an integer dtype: never wrapped
            info = np.iinfo(self._data.dtype) if self._data.dtype.kind in "iu" else None
            bounds = f" [{info.min}, {info.max}]" if info is not None else ""
            raise OverflowError(f"Parameter {self.name}: set_data got a value out of {self._data.dtype}'s "
                                f"range{bounds} ({e}); clip the data, or give the parameter a wider dtype") from None
        if arr.shape != self._data.shape and not slice_shape:
            raise ValueError(f"Parameter {self.name}: set_data shape {arr.shape} != {self._data.shape} (pass "
                             f"slice_shape=True to change the parameter's shape)")
        if arr.shape != self._data.shape:
            parameter_shapes.changed()
        self._data = arr
        # The same array again (refilled by the caller): device mirrors upload it, and a device copy that was
        # newer is superseded by the caller's bytes (not downloaded over them).
        host_writes.overwritten(arr)
        return self

    def value(self) -> Tensor:
        """The parameter's value (MindSpore's ``Parameter.value()``): while a graph is traced the parameter
        itself, so that the read is of the live parameter; otherwise a Tensor of its current data (which prints
        as values, as MindSpore's does)."""
        if trace.current() is not None:
            return self
        return Tensor(self._read(), dtype=self.dtype)

    def __repr__(self) -> str:
        # MindSpore's layout, for repr and print alike (documented examples print parameter lists).
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__


class ParameterTuple(tuple):
    """An immutable tuple of Parameters (MindSpore's ``ParameterTuple``), as ``net.trainable_params()``
    groups are passed to optimizers. Every element must be a Parameter; names must be unique."""

    def __new__(cls, iterable: Iterable[Parameter] = ()) -> ParameterTuple:
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: elements must be Parameters, got {type(p).__name__}")
        names = [p.name for p in items if p.name]
        if len(names) != len(set(names)):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"ParameterTuple: duplicate parameter names {dup}")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init="same") -> ParameterTuple:
        """Copies of every parameter named ``prefix.name``, with their values (``init='same'``) or freshly
        initialised by ``init`` (a name, Initializer or number)."""
        out = []
        for p in self:
            data = p.asnumpy().copy() if init == "same" else init_array(init, p.shape, p.dtype)
            out.append(Parameter(data, name=f"{prefix}.{p.name}", requires_grad=p.requires_grad))
        return ParameterTuple(out)


__all__ = ["Parameter", "ParameterTuple", "initializer", "init_array", "set_seed"]
