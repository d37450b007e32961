"""Parameter: a named, trainable Tensor held by a Cell; and deterministic initialisers."""

from __future__ import annotations

import math
import threading

import numpy as np

from . import config
from .dtypes import dtype_of
from .tensor import Tensor


class _InitCounter:
    """Numbers parameter initialisations so a program's weights depend only on the seed and creation order."""

    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()

    def next(self) -> int:
        with self.lock:
            self.n += 1
            return self.n


_counter = _InitCounter()


def set_seed(seed: int) -> None:
    """Set the initialisation seed and restart the initialisation sequence (like ``mindspore.set_seed``)."""
    config.set_context(seed=seed)
    with _counter.lock:
        _counter.n = 0


def initializer(init, shape, dtype="float32") -> np.ndarray:
    """Initial values: ``init`` is a name ("zeros", "ones", "normal", "uniform", "xavier_uniform",
    "he_uniform", "he_normal"), a number, or an array. Random initialisers draw from a generator seeded by
    (context seed, creation index), so the same program always gets the same weights."""
    shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    dt = dtype_of(dtype).np_dtype
    if isinstance(init, (np.ndarray, Tensor)):
        arr = np.asarray(init, dtype=dt)
        if arr.shape != shape:
            raise ValueError(f"initializer array has shape {arr.shape}, expected {shape}")
        return arr.copy()
    if isinstance(init, (int, float)):
        return np.full(shape, init, dtype=dt)
    rng = np.random.default_rng([int(config.get_context("seed")), _counter.next()])
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else (shape[0] if shape else 1)
    fan_out = shape[0] if shape else 1
    if init == "zeros":
        arr = np.zeros(shape)
    elif init == "ones":
        arr = np.ones(shape)
    elif init == "normal":
        arr = rng.normal(0.0, 0.01, shape)
    elif init == "uniform":
        arr = rng.uniform(-0.07, 0.07, shape)
    elif init == "xavier_uniform":
        bound = math.sqrt(6.0 / max(1, fan_in + fan_out))
        arr = rng.uniform(-bound, bound, shape)
    elif init == "he_uniform":
        bound = math.sqrt(6.0 / max(1, fan_in))
        arr = rng.uniform(-bound, bound, shape)
    elif init == "he_normal":
        arr = rng.normal(0.0, math.sqrt(2.0 / max(1, fan_in)), shape)
    else:
        raise ValueError(f"unknown initializer {init!r}; use zeros, ones, normal, uniform, xavier_uniform, "
                         "he_uniform, he_normal, a number or an array")
    return arr.astype(dt)


class Parameter(Tensor):
    """A Tensor owned by a Cell, with a ``name`` (set from the attribute path) and ``requires_grad``."""

    __slots__ = ("name", "requires_grad")

    def __init__(self, default_input, name: str | None = None, requires_grad: bool = True):
        super().__init__(default_input)
        self.name = name or ""
        self.requires_grad = requires_grad

    def set_data(self, data) -> Parameter:
        """Replace the values (same shape and dtype); compiled graphs read the new data at their next call."""
        arr = np.require(np.asarray(data, dtype=self._data.dtype), requirements='C')  # keeps 0-d shapes
        if arr.shape != self._data.shape:
            raise ValueError(f"Parameter {self.name}: set_data shape {arr.shape} != {self._data.shape}")
        self._data = arr
        return self

    def __repr__(self) -> str:
        return f"Parameter(name={self.name!r}, shape={list(self.shape)}, dtype={self.dtype})"


class ParameterTuple(tuple):
    """An immutable sequence of Parameters (MindSpore's ``ParameterTuple``), what ``GradOperation(
    get_by_list=True)`` and optimizers take as weights."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters only, got {type(p).__name__}")
        return super().__new__(cls, items)
