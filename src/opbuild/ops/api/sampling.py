"""The functional API of the random family (MindSpore's ``ops.standard_normal``, ``normal``, ``uniform``,
``randn``, ``rand``, ``randint``, ``laplace``) over the sampling primitives of ops/random_sample.py.

Each (function, ``seed``) pair owns one generator state in the session (as ``ops.dropout``'s), created at
first use from ``set_seed`` and ``seed`` and advanced by every call, so successive calls draw new values and
a program draws the same sequence in every run; ``set_seed`` restarts the sequences, as in MindSpore. The
values differ from MindSpore's for the same seeds (other generator): only the distributions agree.

Except for ``standard_normal``, ``randn``, ``rand``, ``randint`` and ``uniform`` once seeded (``set_seed`` ran
or a ``seed`` is given): they then draw MindSpore 2.10's values bit for bit from the seed pair MindSpore would
give the call (core/ms_random_streams.py): in PYNATIVE_MODE on the host, a new generator per call; inside a
GRAPH_MODE trace through a compiled kernel whose generator, seeded when the graph is traced, is the call site's
state Parameter, continued at every run of the graph (ops/ms_random_ops.py), as MindSpore's graph nodes.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core import ms_random_discrete as msd
from ...core.dtypes import DType, dtype_of
from ...core.init_values import seed_epoch
from ...core.ms_random_streams import KernelStream, functional_seeds, is_seeded, logf
from ...core.parameter import Parameter
from ...core.tensor import Tensor, as_tensor
from ...core.trace import current, engine
from .. import ms_random_ops
from ..ms_random_ops import graph_draw
from ..primitive import apply
from ..random_discrete import check_multinomial, ms_randperm, multinomial_values
from ..random_sample import draw, ms_sample, new_state, state_seed
from ..registry import broadcast_shapes

_FLOATS = ("float16", "float32", "float64")


def _state(name: str, seed) -> Parameter:
    _check_seed(name, seed)
    states = engine().state("random")
    epoch = seed_epoch()
    key = (name, seed, epoch)
    state = states.get(key)
    if state is None:
        for stale in [k for k in states if k[2] != epoch]:  # set_seed restarted every sequence
            states.pop(stale, None)
        state = states.setdefault(key, new_state(state_seed(int(seed or 0))))
    return state


def _ms_stream(name: str, seed, normal: bool = False) -> KernelStream | None:
    """MindSpore's kernel generator for this eager call of the functional op ``name`` (seeded), or None where
    opbuild's kernel stream is drawn (unseeded as in MindSpore)."""
    _check_seed(name, seed)
    seeds = functional_seeds(name, seed)
    return None if seeds is None else KernelStream(*seeds, normal=normal)


def _check_seed(name: str, seed) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ValueError(f"{name}: seed must be None or a non-negative int, got {seed!r}")


def _sample(name: str, op: str, shape: tuple[int, ...], seed, bounds: tuple[Tensor, Tensor] | None = None,
            ms_shape: tuple[int, ...] | None = None) -> Tensor:
    """``op``'s draw of ``shape`` for the functional ``name``: MindSpore's stream where it applies (see the
    module docstring), else the kernel's from the (``name``, ``seed``) state."""
    normal = op == "StandardNormal"
    _check_seed(name, seed)
    if current() is not None and is_seeded(seed):
        # A graph node: seeded (and counted) when first traced, its generator is its state Parameter; the (0, 0)
        # pair of a global seed 2**31 - 1 (unseeded in MindSpore) draws some repeatable stream
        ends = () if bounds is None else tuple(apply("Reshape", {"shape": ()}, [t]) for t in bounds)
        return graph_draw(op, lambda: KernelStream(*(functional_seeds(name, seed) or (0, 0)), normal=normal),
                          shape if ms_shape is None else ms_shape, ends)
    stream = _ms_stream(name, seed, normal=normal)
    if stream is not None:
        if bounds is None:
            return ms_sample(op, stream, shape if ms_shape is None else ms_shape)
        lo, hi = (int(t.asnumpy().reshape(-1)[0]) for t in bounds)
        return ms_sample(op, stream, shape, (lo, hi))
    if bounds is None:
        return draw(op, {"shape": shape}, _state(name, seed))
    return draw(op, {"shape": shape}, _state(name, seed),
                tuple(apply("Reshape", {"shape": ()}, [t]) for t in bounds))


def _shape(name: str, shape) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    try:
        out = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name}: shape must hold non-negative ints, got {out}")
    return out


def _size(name: str, size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        return _shape(name, size[0])
    return _shape(name, size)


def _float_dtype(name: str, dtype) -> str:
    dt = "float32" if dtype is None else dtype_of(dtype).name
    if dt not in _FLOATS:
        raise TypeError(f"{name}: dtype must be a float type, got {dt}")
    return dt


def _cast(x: Tensor, dt: str) -> Tensor:
    return x if x.dtype.name == dt else apply("Cast", {"dtype": dt}, [x])


def _param(value, name: str) -> Tensor:
    t = as_tensor(value) if isinstance(value, Tensor) else Tensor(np.asarray(value, np.float32))
    return _cast(t, "float32") if t.dtype.name not in _FLOATS else t


def _out_shape(name: str, shape: tuple[int, ...], *params: Tensor) -> tuple[int, ...]:
    return broadcast_shapes(name, [_TypeOf(t.shape) for t in params] + [_TypeOf(shape)])


class _TypeOf:
    """A shape-only stand-in for broadcast_shapes (it reads ``.shape``)."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape


def standard_normal(shape, seed: int | None = None) -> Tensor:
    """``ops.standard_normal(shape, seed=None)``: float32 samples of N(0, 1)."""
    return _sample("standard_normal", "StandardNormal", _shape("standard_normal", shape), seed)


def normal(shape, mean, stddev, seed: int | None = None) -> Tensor:
    """``ops.normal(shape, mean, stddev, seed=None)``: samples of N(mean, stddev**2), of ``shape``
    broadcast with the shapes of ``mean`` and ``stddev``."""
    m, s = _param(mean, "mean"), _param(stddev, "stddev")
    shp = _shape("normal", shape)
    out = _out_shape("normal", shp, m, s)
    z = _sample("normal", "StandardNormal", out, seed, ms_shape=shp)
    return _cast(z, s.dtype.name) * s + _cast(m, s.dtype.name)


def laplace(shape, mean, lambda_param, seed: int | None = None) -> Tensor:
    """``ops.laplace(shape, mean, lambda_param, seed=None)``: samples of Laplace(mean, lambda_param)."""
    m, b = _param(mean, "mean"), _param(lambda_param, "lambda_param")
    shp = _shape("laplace", shape)
    out = _out_shape("laplace", shp, m, b)
    _check_seed("laplace", seed)
    stream = None if current() is not None else _ms_stream("laplace", seed, normal=True)
    if stream is not None:  # MindSpore draws ``shape`` and broadcasts with the moments
        z = Tensor(msd.standard_laplace(stream, int(np.prod(shp, dtype=np.int64))).reshape(shp))
    else:
        z = draw("StandardLaplace", {"shape": out}, _state("laplace", seed))
    return _cast(z, b.dtype.name) * b + _cast(m, b.dtype.name)


def uniform(shape, minval, maxval, seed: int | None = None, dtype: DType | str = "float32") -> Tensor:
    """``ops.uniform(shape, minval, maxval, seed=None, dtype=float32)``: samples uniform on [minval, maxval);
    ``dtype`` int32 draws integers (scalar bounds), float32 reals (bounds broadcast with ``shape``)."""
    dt = dtype_of(dtype).name
    shp = _shape("uniform", shape)
    if dt == "int32":
        lo, hi = (_cast(as_tensor(v) if isinstance(v, Tensor) else Tensor(np.asarray(v, np.int32)), "int32")
                  for v in (minval, maxval))
        if lo.size != 1 or hi.size != 1:
            raise ValueError("uniform: with dtype int32, minval and maxval must be scalars")
        return _draw_int("uniform", shp, lo, hi, seed)
    if dt != "float32":
        raise TypeError(f"uniform: dtype must be float32 or int32 (MindSpore's), got {dt}")
    lo, hi = _param(minval, "minval"), _param(maxval, "maxval")
    out = _out_shape("uniform", shp, lo, hi)
    # MindSpore draws ``shape`` and broadcasts with the bounds; the kernel stream draws the whole output
    u = _sample("uniform", "UniformReal", out, seed, ms_shape=shp)
    return u * (hi - lo) + lo


def _draw_int(name: str, shape: tuple[int, ...], lo: Tensor, hi: Tensor, seed) -> Tensor:
    if lo._data is not None and hi._data is not None and int(lo.asnumpy().reshape(-1)[0]) >= int(
            hi.asnumpy().reshape(-1)[0]):
        raise ValueError(f"{name}: the low bound must be less than the high bound, got {lo.asnumpy()} and "
                         f"{hi.asnumpy()}")
    return _sample(name, "UniformInt", shape, seed, (lo, hi))


def randn(*size, dtype: DType | str | None = None, seed: int | None = None) -> Tensor:
    """``ops.randn(*size, dtype=None, seed=None)``: samples of N(0, 1) (dtype None: float32)."""
    return randn_named("randn", _size("randn", size), dtype, seed)


def randn_named(name: str, shape: tuple[int, ...], dtype, seed) -> Tensor:
    """:func:`randn` of ``shape`` as the functional op ``name`` (MindSpore counts seeds per name)."""
    dt = _float_dtype(name, dtype)
    return _cast(_sample(name, "StandardNormal", shape, seed), dt)


def rand(*size, dtype: DType | str | None = None, seed: int | None = None) -> Tensor:
    """``ops.rand(*size, dtype=None, seed=None)``: samples uniform on [0, 1) (dtype None: float32)."""
    return rand_named("rand", _size("rand", size), dtype, seed)


def rand_named(name: str, shape: tuple[int, ...], dtype, seed) -> Tensor:
    """:func:`rand` of ``shape`` as the functional op ``name`` (MindSpore counts seeds per name)."""
    dt = _float_dtype(name, dtype)
    return _cast(_sample(name, "UniformReal", shape, seed), dt)


def randint(low: int, high: int, size: Sequence[int], seed: int | None = None, *,
            dtype: DType | str | None = None) -> Tensor:
    """``ops.randint(low, high, size, seed=None, *, dtype=None)``: integers uniform on [low, high) (dtype
    None: int64). The bounds must fit int32 (the UniformInt kernel's)."""
    return randint_named("randint", low, high, size, seed, dtype)


def randint_named(name: str, low: int, high: int, size, seed, dtype) -> Tensor:
    """:func:`randint` as the functional op ``name`` (MindSpore counts seeds per name)."""
    for v in (low, high):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not -2 ** 31 <= v < 2 ** 31:
            raise ValueError(f"{name}: low and high must be ints within int32's range, got {v!r}")
    dt = "int64" if dtype is None else dtype_of(dtype).name
    if dt not in ("int8", "int16", "int32", "int64", "uint8"):
        raise TypeError(f"{name}: dtype must be an integer type, got {dt}")
    shape = size if not isinstance(size, numbers.Integral) else (size,)
    r = _draw_int(name, _shape(name, shape), Tensor(np.asarray(low, np.int32)), Tensor(np.asarray(high, np.int32)),
                  seed)
    return _cast(r, dt)


def multinomial(input, num_samples: int, replacement: bool = True, seed: int | None = None) -> Tensor:
    """``ops.multinomial(input, num_samples, replacement=True, seed=None)``: int32 category indices drawn from
    each row of ``input`` (1-D or 2-D non-negative weights, float or integer); without ``replacement`` a
    category is drawn at most once per row."""
    x = as_tensor(input)
    if not x.dtype.is_float:  # integer weights are counts: drawn from as float32, as MindSpore does
        x = _cast(x, "float32")
    attrs = {"num_samples": num_samples, "replacement": bool(replacement), "dtype": "int32"}
    _check_seed("multinomial", seed)
    if current() is None and x._data is not None and is_seeded(seed):
        seeds = functional_seeds("multinomial", seed)
        if seeds is not None and replacement:
            return Tensor(multinomial_values(KernelStream(*seeds, normal=True), x, attrs))
        if seeds is not None:
            return _multinomial_by_keys(KernelStream(*seeds), x, attrs)
    return draw("Multinomial", attrs, _state("multinomial", seed), (x,))


def _multinomial_by_keys(stream: KernelStream, x: Tensor, attrs: dict) -> Tensor:
    """MindSpore's ``multinomial`` without replacement: a ``UniformReal`` draw ``u`` of the weights' size from
    ``stream`` (mt19937), keys ``log(u) / (x + 1e-6)`` in float32 and the indices of the ``num_samples``
    largest keys per row, largest first."""
    k = check_multinomial(attrs, x)["num_samples"]
    w = x.asnumpy()
    u = stream.uniform_real(w.size).reshape(w.shape)
    keys = logf(u) / (w + w.dtype.type(1e-6))
    order = np.argsort(-keys, axis=-1, kind="stable")[..., :k]
    return Tensor(order.astype(np.int32))


def shuffle(x, seed: int | None = None) -> Tensor:
    """``ops.shuffle(x, seed=None)``: ``x`` with its first axis randomly permuted."""
    t = as_tensor(x)
    _check_seed("shuffle", seed)
    stream = None if current() is not None or t._data is None else _ms_stream("shuffle", seed, normal=True)
    if stream is not None:
        return Tensor(ms_random_ops.random_shuffle(stream, t.asnumpy()))
    return draw("RandomShuffle", {}, _state("shuffle", seed), (t,))


def randperm(n, seed: int = 0, offset: int = 0, dtype: DType | str = "int64") -> Tensor:
    """``ops.randperm(n, seed=0, offset=0, dtype=int64)``: a random permutation of ``range(n)``, a pure
    function of ``(seed, offset)`` as in MindSpore (not of ``set_seed``)."""
    if isinstance(n, Tensor):
        n = int(n.asnumpy())
    for name, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
            raise ValueError(f"randperm: {name} must be a non-negative int, got {v!r}")
    return ms_randperm(n, seed, offset, dtype_of(dtype).name)


__all__ = ["standard_normal", "normal", "laplace", "uniform", "randn", "rand", "randint", "multinomial", "shuffle",
           "randperm"]
