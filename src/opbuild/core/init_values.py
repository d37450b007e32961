"""MindSpore's initializers (``Normal``, ``HeUniform``, ...) and :func:`init_array`, what layers use to create
their parameters' values, as NumPy arrays. :func:`initializer` (the Tensor-returning function) is in
core/initializer.py, above core/tensor.py: this module imports no Tensor, so the Tensor constructor can use it.
Users reach both as ``opbuild.common.initializer`` (MindSpore's module path); they live in core because
Parameter uses them.

Random initializers give MindSpore 2.10's values bit for bit after ``set_seed``: as MindSpore's, each takes
one 64-bit seed from NumPy's global generator (which ``set_seed`` seeds) and fills with MindSpore's Philox
streams (core/philox_fill.py). Before any ``set_seed`` (MindSpore is then unseeded) they draw their seeds from
a private generator seeded with 0 instead, so an unseeded program still gets the same weights on every run.
The fan rules are MindSpore's (``shape[1] * receptive field`` / ``shape[0] * receptive field``).
"""

from __future__ import annotations

import math
import numbers
import random
import threading
from collections.abc import Sequence

import numpy as np

from . import config
from .dtypes import DType, dtype_of, float32
from .philox_fill import normal_fill, truncated_normal_fill, uniform_fill


class _InitCounter:
    """Numbers initialisations so a program's weights depend only on the seed and creation order."""

    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()

    def next(self) -> int:
        with self.lock:
            self.n += 1
            return self.n

    def reset(self) -> None:
        with self.lock:
            self.n = 0


_seed_epoch = _InitCounter()
_op_counter = _InitCounter()  # random operators (Dropout): their own sequence, so weights do not shift


def op_seed() -> int:
    """A seed for the next random operator created: the global seed (``set_seed``; 0 when never set) mixed
    with the operator's creation number since the last ``set_seed``, so two Dropouts draw different masks
    and a program that sets the seed draws the same ones every run (MindSpore's op seeds)."""
    seed = int(config.get_context("seed"))
    return (seed * 1_000_003 + _op_counter.next()) & 0x7FFFFFFFFFFFFFFF


def set_seed(seed: int) -> None:
    """Set the global seed (``mindspore.set_seed``): as MindSpore's, it seeds NumPy's global generator
    (``numpy.random.seed``), from which the initializers take their seeds, and Python's ``random``; so weights,
    and data a program draws with ``np.random`` or ``random`` afterwards, are MindSpore's. Also restarts the
    random operators' seed sequence. ``seed`` is an int in [0, 2**32 - 1] (TypeError / ValueError otherwise)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"set_seed: seed must be an int, got {type(seed).__name__}")
    if not 0 <= seed <= 2**32 - 1:
        raise ValueError(f"set_seed: seed must be in [0, 2**32 - 1], got {seed}")
    config.set_context(seed=seed)
    np.random.seed(seed)
    random.seed(seed)
    _op_counter.reset()
    _seed_epoch.next()


# Seeds of initializers before any set_seed: a private generator, so unseeded programs stay repeatable without
# disturbing np.random (MindSpore draws from np.random unseeded, so its values then differ run to run anyway).
_unseeded: list[np.random.RandomState] = []


def seed_source() -> np.random.RandomState:
    """Where the next initializer takes its seed: NumPy's global generator once set_seed ran (MindSpore's)."""
    if _seed_epoch.n > 0:
        return np.random.mtrand._rand
    if not _unseeded:
        _unseeded.append(np.random.RandomState(int(config.get_context("seed"))))
    return _unseeded[0]


def draw_seed(rng: np.random.RandomState) -> int:
    """One initializer's seed, drawn as MindSpore draws it: ``randint(1, 2**63)`` as int64."""
    return int(rng.randint(low=1, high=1 << 63, dtype=np.int64))


def seed_epoch() -> int:
    """How many times ``set_seed`` has run in this process: functional random ops restart their generator
    states when it changes, as MindSpore's do after ``set_seed``."""
    return _seed_epoch.n


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight: ``shape[1]`` / ``shape[0]`` times the receptive field (the product of
    the remaining dims), MindSpore's (and PyTorch's) rule. Fewer than 2 dims has no fan: ValueError."""
    if len(shape) < 2:
        raise ValueError(f"fan in and fan out cannot be computed for a shape with fewer than 2 dimensions: "
                         f"{shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain of a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope^2)) for leaky_relu (``param`` is the slope, default 0.01), 3/4 for selu."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, numbers.Number):
            raise ValueError(f"negative_slope {slope!r} is not a valid number")
        return math.sqrt(2.0 / (1 + float(slope) ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")


class Initializer:
    """Base class of initializers: ``sample(shape, rng)`` returns the values of ``shape`` (float32 for the random
    ones, as MindSpore fills them); ``rng`` is the NumPy RandomState their seeds come from (see
    :func:`draw_seed`). Subclasses that draw nothing set ``random = False``.

    A user subclass may instead override ``_initialize(arr)`` and fill ``arr`` (a NumPy array of the
    target shape and dtype) in place, as MindSpore's own protocol has it; its values are its own (often drawn
    from NumPy's global generator), not from this package's seeds.
    """

    random = True

    def __init__(self, **kwargs) -> None:
        self._kwargs = kwargs

    def sample(self, shape: tuple[int, ...], rng: np.random.RandomState) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} gives no values: an Initializer subclass must override "
                                  f"_initialize(arr) (fill arr in place) or sample(shape, rng)")

    def __call__(self, arr: np.ndarray) -> None:
        """Fill ``arr`` in place (MindSpore's Initializer protocol)."""
        arr[...] = init_array(self, arr.shape, arr.dtype)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


class Zero(Initializer):
    """All zeros (name ``'zeros'``)."""

    random = False

    def sample(self, shape, rng):
        return np.zeros(shape)


class One(Initializer):
    """All ones (name ``'ones'``)."""

    random = False

    def sample(self, shape, rng):
        return np.ones(shape)


class Constant(Initializer):
    """Every element ``value`` (a number, or an array broadcastable to the shape)."""

    random = False

    def __init__(self, value) -> None:
        super().__init__(value=value)
        self.value = value

    def sample(self, shape, rng):
        return np.broadcast_to(np.asarray(self.value), shape).copy()


class Normal(Initializer):
    """N(mean, sigma^2) (name ``'normal'``)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = float(sigma), float(mean)

    def sample(self, shape, rng):
        return normal_fill(draw_seed(rng), shape, self.mean, self.sigma)


class Uniform(Initializer):
    """U(-scale, scale) (name ``'uniform'``)."""

    def __init__(self, scale: float = 0.07) -> None:
        super().__init__(scale=scale)
        self.scale = float(scale)

    def sample(self, shape, rng):
        return uniform_fill(draw_seed(rng), shape, -self.scale, self.scale)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) restricted to [a, b] (name ``'truncatednormal'``), drawn by inverse CDF."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0) -> None:
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        if not a < b:
            raise ValueError(f"TruncatedNormal: a ({a}) must be less than b ({b})")
        self.sigma, self.mean, self.a, self.b = float(sigma), float(mean), float(a), float(b)

    def sample(self, shape, rng):
        return truncated_normal_fill(draw_seed(rng), shape, self.a, self.b, self.mean, self.sigma)


class XavierUniform(Initializer):
    """U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)) (name ``'xavier_uniform'``)."""

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = float(gain)

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / max(1, fan_in + fan_out))
        return uniform_fill(draw_seed(rng), shape, -bound, bound)


class XavierNormal(Initializer):
    """N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)) (name ``'xavier_normal'``)."""

    def __init__(self, gain: float = 1) -> None:
        super().__init__(gain=gain)
        self.gain = float(gain)

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape)
        return normal_fill(draw_seed(rng), shape, 0.0, self.gain * math.sqrt(2.0 / max(1, fan_in + fan_out)))


class _He(Initializer):
    """Kaiming initialisation: std = gain(nonlinearity, negative_slope) / sqrt(fan of ``mode``)."""

    def __init__(self, negative_slope: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity
        calculate_gain(nonlinearity, negative_slope)  # validate now, not at the first sample

    def _std(self, shape) -> float:
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(max(1, fan))


class HeUniform(_He):
    """U(-bound, bound), bound = sqrt(3) * gain / sqrt(fan) (name ``'he_uniform'``)."""

    def sample(self, shape, rng):
        bound = math.sqrt(3.0) * self._std(shape)
        return uniform_fill(draw_seed(rng), shape, -bound, bound)


class HeNormal(_He):
    """N(0, std^2), std = gain / sqrt(fan) (name ``'he_normal'``)."""

    def sample(self, shape, rng):
        return normal_fill(draw_seed(rng), shape, 0.0, self._std(shape))


# Names MindSpore accepts for ``init`` strings (matched case-insensitively): each class's lower-case name and
# the snake_case aliases its documentation uses.
_NAMES: dict[str, type[Initializer]] = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "truncated_normal": TruncatedNormal,
    "xavieruniform": XavierUniform, "xavier_uniform": XavierUniform,
    "xaviernormal": XavierNormal, "xavier_normal": XavierNormal,
    "heuniform": HeUniform, "he_uniform": HeUniform, "henormal": HeNormal, "he_normal": HeNormal,
}


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def is_array_like(init: object) -> bool:
    """An array or a Tensor (anything with ``asnumpy``): the inits taken as values rather than drawn."""
    return isinstance(init, np.ndarray) or callable(getattr(init, "asnumpy", None))


def _fills_in_place(init: Initializer) -> bool:
    """True for a subclass written to MindSpore's ``_initialize(arr)`` protocol rather than ``sample``."""
    cls = type(init)
    return cls.sample is Initializer.sample and callable(getattr(cls, "_initialize", None))


def init_array(init, shape: int | Sequence[int], dtype: DType | str = float32) -> np.ndarray:
    """Initial values as a NumPy array: ``init`` is an :class:`Initializer`, a name of one (``'normal'``,
    ``'he_uniform'``, ...), a number, or an array/Tensor of exactly ``shape``."""
    shape = _shape(shape)
    dt = dtype_of(dtype).np_dtype
    if is_array_like(init):
        arr = np.asarray(init, dtype=dt)
        if arr.shape != shape:
            raise ValueError(f"initializer array has shape {arr.shape}, expected {shape}")
        return arr.copy()
    if isinstance(init, numbers.Number) and not isinstance(init, bool):
        return np.full(shape, init, dtype=dt)
    if isinstance(init, str):
        cls = _NAMES.get(init.lower())
        if cls is None:
            raise ValueError(f"unknown initializer {init!r}; known names: {', '.join(sorted(_NAMES))}")
        init = cls()
    if not isinstance(init, Initializer):
        raise TypeError(f"init must be an Initializer, a name, a number, an array or a Tensor, got "
                        f"{type(init).__name__}")
    if _fills_in_place(init):
        arr = np.zeros(shape, dtype=dt)
        init._initialize(arr)
        return arr
    arr = np.asarray(init.sample(shape, seed_source()))
    if arr.dtype == dt and type(init).sample.__module__ in _NEW_ARRAY_SAMPLES:
        return arr  # a new array already of dtype: no copy of the parameter (ViT-B/32: 0.4 s of 88M values)
    return arr.astype(dt)  # a subclass's sample may return an array it keeps: the parameter gets its own


# The modules whose initializers' ``sample`` returns a new array at every call (this one's and
# core/initializer_more.py's): init_array keeps the array itself when it has the dtype asked for.
_NEW_ARRAY_SAMPLES = frozenset({__name__, __name__.rpartition(".")[0] + ".initializer_more"})


__all__ = ["Initializer", "init_array", "is_array_like", "set_seed", "calculate_gain", "Zero", "One", "Constant",
           "Normal", "Uniform", "TruncatedNormal", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal"]
