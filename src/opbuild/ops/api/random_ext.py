"""More random functions of ``mindspore.ops``: ``bernoulli``, ``standard_laplace``, ``gumbel_softmax``,
``random_categorical``, ``multinomial_with_replacement``, ``random_gamma``, ``random_poisson`` and
``choice_with_mask`` (over the sampling kernels of ops/random_sample.py and ops/random_discrete.py, gamma and
Poisson through the fixed-round rejection samplers of random_rejection.py, so they all trace into graphs), and
``log_uniform_candidate_sampler`` and ``uniform_candidate_sampler`` (drawn on the host, see below).

Seeds follow the family's rules (ops/api/sampling.py): each (function, ``seed``) pair owns a generator state
``[seed, counter]`` in the session, created from ``set_seed`` and ``seed`` and advanced by every call; a
primitive instance (ops/ms_prim_random.py) owns its own. The host samplers (their expected counts depend on
how many tries a unique draw took) draw from NumPy's Philox generator keyed by that
``[seed, counter]`` pair: the same seeds give the same values in every run and process, in PyNative mode
(a GRAPH_MODE trace has no values to draw with, so they refuse it). The bit streams differ from MindSpore's
(its own Philox streams): only shapes, dtypes and distributions agree (docs/mindspore-compat.md).
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core import ms_random_discrete as msd
from ...core.dtypes import DType, dtype_of
from ...core.ms_random_streams import KernelStream
from ...core.parameter import Parameter
from ...core.tensor import Tensor, as_tensor
from ...core.trace import current
from ..primitive import apply
from ..random_sample import draw
from . import array as A
from . import math as M
from .aliases import floor_mod
from .math_more import sort
from .nn import softmax
from .random_rejection import gamma_sample, poisson_sample
from .sampling import _shape, _state

_FLOATS = ("float16", "float32", "float64")


def host_rng(name: str, state: Parameter) -> np.random.Generator:
    """NumPy's Philox generator keyed by ``state`` = [seed, counter], whose counter then advances (as a kernel
    draw's does); refuses inside a GRAPH_MODE trace, where the state has no value yet."""
    if current() is not None:
        raise RuntimeError(f"{name}: this sampler draws on the host and needs concrete values; call it in "
                           f"PYNATIVE_MODE (outside construct)")
    seed, counter = (int(v) for v in state.asnumpy())
    apply("Assign", {}, [state, state + Tensor(np.array([0, 1], np.int64))])
    return np.random.Generator(np.random.Philox(key=[seed & (2 ** 64 - 1), counter & (2 ** 64 - 1)]))


def _concrete(name: str, *ts: Tensor) -> None:
    for t in ts:
        if t._data is None:
            raise RuntimeError(f"{name}: needs concrete values; call it in PYNATIVE_MODE (outside construct)")


def _uniform_like(name: str, shape: tuple[int, ...], seed) -> Tensor:
    return draw("UniformReal", {"shape": shape}, _state(name, seed))


def bernoulli_with(x: Tensor, p, u: Tensor, name: str, closed: bool = False) -> Tensor:
    """1 where the uniform draws ``u`` (x's shape) fall below ``p`` (broadcast; ``closed``: at most ``p``,
    compared in p's float type, as MindSpore's kernel), else 0, in x's dtype."""
    if x.dtype.name not in ("bool", "int8", "uint8", "int16", "int32", "int64", "float32", "float64"):
        raise TypeError(f"{name}: input must be bool, an int type, float32 or float64 (MindSpore's), got {x.dtype}")
    prob = p if isinstance(p, Tensor) else Tensor(np.asarray(p, np.float32))
    if prob._data is not None and np.any((prob.asnumpy() < 0) | (prob.asnumpy() > 1)):
        raise ValueError(f"{name}: p must be in [0, 1], got {prob.asnumpy()}")
    if closed:
        pf = prob if prob.dtype.name in ("float32", "float64") else M._cast(prob, "float32")
        return M._cast(M.le(M._cast(u, pf.dtype.name), pf), x.dtype)
    hit = M.lt(u, M._cast(prob, "float32"))
    return M._cast(hit, x.dtype)


def seeded_bernoulli(x: Tensor, p, seed: int, name: str) -> Tensor:
    """MindSpore's ``Bernoulli`` with ``seed`` (not -1): its Philox uniforms for x's size, a constant of
    ``(seed, x.shape)`` (core/ms_random_discrete.py), compared with ``p``."""
    u = Tensor(msd.bernoulli_uniforms(seed, int(np.prod(x.shape, dtype=np.int64))).reshape(tuple(x.shape)))
    return bernoulli_with(x, p, u, name, closed=True)


def bernoulli(input, p=0.5, seed: int | None = None) -> Tensor:  # noqa: A002
    """``ops.bernoulli(input, p=0.5, seed=None)``: 0/1 samples of Bernoulli(``p``) (a float or a tensor
    broadcast to ``input``'s shape), of ``input``'s shape and dtype."""
    x = as_tensor(input)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        return seeded_bernoulli(x, p, int(seed), "bernoulli")  # MindSpore's values (a pure function of seed)
    return bernoulli_with(x, p, _uniform_like("bernoulli", tuple(x.shape), seed), "bernoulli")


def standard_laplace(shape, seed: int | None = None) -> Tensor:
    """``ops.standard_laplace(shape, seed=None)``: float32 samples of Laplace(0, 1)."""
    return draw("StandardLaplace", {"shape": _shape("standard_laplace", shape)}, _state("standard_laplace", seed))


def gumbel_softmax(logits, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Tensor:
    """``ops.gumbel_softmax(logits, tau=1.0, hard=False, dim=-1)``: ``softmax((logits + g) / tau)`` along
    ``dim`` with Gumbel(0, 1) noise ``g``; ``hard`` returns the one-hot of its argmax, whose gradient is the
    soft sample's (straight through)."""
    x = as_tensor(logits)
    if x.dtype.name not in _FLOATS:
        raise TypeError(f"gumbel_softmax: logits must be float16, float32 or float64, got {x.dtype}")
    if not isinstance(tau, numbers.Real) or tau <= 0:
        raise ValueError(f"gumbel_softmax: tau must be a positive float, got {tau!r}")
    if not isinstance(dim, int) or not -x.ndim <= dim < x.ndim:
        raise ValueError(f"gumbel_softmax: dim must be an int in [-{x.ndim}, {x.ndim}), got {dim!r}")
    u = _uniform_like("gumbel_softmax", tuple(x.shape), None)
    # float32 rounds the top draws to 1.0, whose log-log is infinite: keep them inside the open interval.
    u = M.clamp(u, float(np.finfo(np.float32).tiny), 1.0 - 2.0 ** -24)
    g = M._cast(M.neg(M.log(M.neg(M.log(u)))), x.dtype)
    y = softmax(M.div(M.add(x, g), tau), dim)
    if not hard:
        return y
    axis = dim % x.ndim
    index = M.argmax(y, axis)
    one = Tensor(np.array(1, x.dtype.np_dtype))
    y_hard = A.one_hot(index, x.shape[axis], one, Tensor(np.array(0, x.dtype.np_dtype)), axis)
    # Straight through, MindSpore's y_hard - stop(y) + y. ``stop`` is y scaled by a power of two, Round-ed (no
    # gradient) and scaled back in float64: exact for float16/float32 values (2^149 makes any of them an integer),
    # within 2^-101 for float64 ones; so the value is MindSpore's and the gradient the soft sample's.
    scale = float(2 ** 149) if x.dtype.name != "float64" else float(2 ** 100)
    y64 = M._cast(y, "float64")
    stopped = M._cast(M.div(apply("Round", {}, [M.mul(y64, scale)]), scale), x.dtype)
    return M.add(M.sub(y_hard, stopped), y)


def index_dtype(name: str, dtype, allowed=("int16", "int32", "int64")) -> str:
    """The name of ``dtype``, one of ``allowed``, or TypeError naming ``name``."""
    dt = dtype_of(dtype).name
    if dt not in allowed:
        raise TypeError(f"{name}: dtype must be one of {', '.join(allowed)}, got {dt}")
    return dt


def categorical(name: str, logits, num_sample: int, state: Parameter, dtype: str) -> Tensor:
    """``num_sample`` draws per row of the 2-D ``logits`` from softmax(logits), in ``dtype``."""
    x = as_tensor(logits)
    if x.ndim != 2 or not x.dtype.is_float:
        raise ValueError(f"{name}: logits must be a 2-D float Tensor, got {x.dtype} {tuple(x.shape)}")
    if isinstance(num_sample, bool) or not isinstance(num_sample, int) or num_sample <= 0:
        raise ValueError(f"{name}: num_sample must be a positive int, got {num_sample!r}")
    probs = softmax(M._cast(x, "float32") if x.dtype.name == "float16" else x, -1)
    out = draw("Multinomial", {"num_samples": num_sample, "replacement": True,
                               "dtype": "int64" if dtype == "int64" else "int32"}, state, (probs,))
    return M._cast(out, dtype) if out.dtype.name != dtype else out


def random_categorical(logits, num_sample: int, seed: int = 0, dtype: DType | str = "int64") -> Tensor:
    """``ops.random_categorical(logits, num_sample, seed=0, dtype=int64)``: ``num_sample`` category indices per
    row of the (batch, classes) ``logits``, drawn from their softmax."""
    dt = index_dtype("random_categorical", dtype)
    s = int_arg("random_categorical", "seed", seed)
    stream = KernelStream(0, s, normal=True) if s else None  # MindSpore's generator for this call, made afresh
    got = ms_categorical("random_categorical", logits, num_sample, stream, dt)
    if got is not None:
        return got
    return categorical("random_categorical", logits, num_sample, _state("random_categorical", seed or None), dt)


def ms_categorical(name: str, logits, num_sample, stream: KernelStream | None, dtype: str) -> Tensor | None:
    """MindSpore's ``RandomCategorical`` draw from ``stream`` for concrete 2-D float ``logits`` in an eager call
    (core/ms_random_discrete.py), or None where opbuild's stream is drawn (no stream, or traced)."""
    x = as_tensor(logits)
    if stream is None or current() is not None or x._data is None:
        return None
    if x.ndim != 2 or x.dtype.name not in _FLOATS:
        raise ValueError(f"{name}: logits must be a 2-D float Tensor, got {x.dtype} {tuple(x.shape)}")
    if isinstance(num_sample, bool) or not isinstance(num_sample, int) or num_sample <= 0:
        raise ValueError(f"{name}: num_sample must be a positive int, got {num_sample!r}")
    return Tensor(msd.random_categorical(stream, x.asnumpy(), num_sample).astype(dtype))


def int_arg(name: str, what: str, v) -> int:
    """``v`` (an int or a one-element int tensor) as a Python int, or TypeError naming ``name``."""
    if isinstance(v, Tensor):
        v = v.asnumpy().reshape(-1)[0]
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: {what} must be an int, got {v!r}")
    return int(v)


def multinomial_with_replacement(x, seed, offset, numsamples: int, replacement: bool = False) -> Tensor:
    """``ops.multinomial_with_replacement(x, seed, offset, numsamples, replacement=False)``: ``numsamples``
    int64 category indices per row of the 1-D or 2-D weights ``x``, a pure function of ``(seed, offset)``
    (as MindSpore's; not of ``set_seed``)."""
    name = "multinomial_with_replacement"
    s, o = int_arg(name, "seed", seed), int_arg(name, "offset", offset)
    if s < 0 or o < 0:
        raise ValueError(f"{name}: seed and offset must be non-negative, got {s} and {o}")
    w = as_tensor(x)
    if w.dtype.name not in _FLOATS:
        raise TypeError(f"{name}: x must be a float tensor, got {w.dtype}")
    if w.dtype.name == "float16":
        w = M._cast(w, "float32")
    state = Tensor(np.array([s, o], np.int64))  # the kernel's [seed, counter]: nothing global mixed in
    return apply("Multinomial", {"num_samples": int_arg(name, "numsamples", numsamples),
                                 "replacement": bool(replacement), "dtype": "int64"}, [state, w])


def gamma_draw(name: str, shape, alpha, rng_state: Parameter) -> Tensor:
    """Gamma(alpha, 1) samples of ``shape + alpha.shape`` in alpha's dtype (ops/api/random_rejection.py)."""
    a = as_tensor(alpha)
    if a.dtype.name not in _FLOATS:
        raise TypeError(f"{name}: alpha must be one of {', '.join(_FLOATS)}, got {a.dtype}")
    if a._data is not None and np.any(a.asnumpy() <= 0):
        raise ValueError(f"{name}: alpha must be positive, got {a.asnumpy()}")
    return gamma_sample(_shape(name, shape), a, rng_state)


def poisson_draw(name: str, shape, rate, rng_state: Parameter, dtype: str) -> Tensor:
    """Poisson(rate) samples of ``shape + rate.shape`` in ``dtype`` (ops/api/random_rejection.py)."""
    r = as_tensor(rate)
    if r.dtype.name not in (*_FLOATS, "int32", "int64"):
        raise TypeError(f"{name}: rate must be a float, int32 or int64 tensor, got {r.dtype}")
    if r._data is not None and np.any(r.asnumpy() < 0):
        raise ValueError(f"{name}: rate must be non-negative, got {r.asnumpy()}")
    return poisson_sample(_shape(name, shape), r, rng_state, dtype_of(dtype).name)


def random_gamma(shape, alpha, seed: int | None = None) -> Tensor:
    """``ops.random_gamma(shape, alpha, seed=None)``: Gamma(alpha, 1) samples of shape ``shape + alpha.shape``,
    alpha's dtype."""
    return gamma_draw("random_gamma", shape, alpha, _state("random_gamma", seed))


def random_poisson(shape, rate, seed: int | None = None, dtype: DType | str = "float32") -> Tensor:
    """``ops.random_poisson(shape, rate, seed=None, dtype=float32)``: Poisson(rate) samples of shape
    ``shape + rate.shape``."""
    dt = index_dtype("random_poisson", dtype, (*_FLOATS, "int32", "int64"))
    return poisson_draw("random_poisson", shape, rate, _state("random_poisson", seed), dt)


def choice_draw(name: str, input_x, count: int, rng_state: Parameter) -> tuple[Tensor, Tensor]:
    """Up to ``count`` coordinates of True elements in random order, zero rows after them, and the mask: every
    element gets a uniform key (2 for the False ones) and the ``count`` smallest keys win (one stable Sort), so
    it traces like the other kernels."""
    x = as_tensor(input_x)
    if x.dtype.name != "bool" or not 1 <= x.ndim <= 5:
        raise TypeError(f"{name}: input_x must be a bool Tensor of rank 1 to 5, got {x.dtype} {tuple(x.shape)}")
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise ValueError(f"{name}: count must be a positive int, got {count!r}")
    total = int(np.prod(x.shape))
    u = draw("UniformReal", {"shape": (total,)}, rng_state)
    keys = M.where(A.reshape(x, (total,)), u, 2.0)
    if total < count:  # more rows than elements: the tail is padding, never chosen
        keys = A.cat([keys, Tensor(np.full(count - total, 2.0, np.float32))], 0)
    values, order = sort(keys)
    chosen = M.lt(values[:count], 1.5)
    flat = M._cast(order[:count], "int64")
    coords = []
    for d in reversed(x.shape):
        coords.append(floor_mod(flat, d))
        flat = M.div(flat, d, rounding_mode="floor")
    index = M._cast(A.stack(coords[::-1], 1), "int32")
    return M.where(A.expand_dims(chosen, 1), index, Tensor(np.array(0, np.int32))), chosen


def choice_with_mask(input_x, count: int = 256, seed: int | None = None) -> tuple[Tensor, Tensor]:
    """``ops.choice_with_mask(input_x, count=256, seed=None)``: ``count`` random (int32) coordinates of the
    True elements of the bool ``input_x`` (zero rows once they run out) and the bool mask of the real ones."""
    return choice_draw("choice_with_mask", input_x, count, _state("choice_with_mask", seed))


def candidate_draw(name: str, true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                   rng_state: Parameter, log_uniform: bool, remove_hits: bool = False) -> tuple:
    """(sampled candidates, expected counts of the true classes, expected counts of the sampled ones) of the
    uniform or log-uniform candidate sampler; the expected count of a class of probability ``p`` is
    ``num_sampled * p`` when every draw was kept, else ``1 - (1 - p) ** tries`` (TensorFlow's rule)."""
    tc = as_tensor(true_classes)
    for what, v in (("num_true", num_true), ("num_sampled", num_sampled), ("range_max", range_max)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
    if tc.dtype.name not in ("int32", "int64") or tc.ndim != 2 or tc.shape[1] != num_true:
        raise ValueError(f"{name}: true_classes must be an int32/int64 (batch, num_true={num_true}) Tensor, got "
                         f"{tc.dtype} {tuple(tc.shape)}")
    if unique and num_sampled > range_max:
        raise ValueError(f"{name}: with unique=True num_sampled ({num_sampled}) cannot exceed range_max ({range_max})")
    _concrete(name, tc)
    classes = tc.asnumpy()
    k = np.arange(range_max, dtype=np.float64)
    prob = np.log((k + 2) / (k + 1)) / np.log(range_max + 1) if log_uniform else np.full(range_max, 1 / range_max)
    banned = set(classes.reshape(-1).tolist()) if remove_hits else set()
    if unique and num_sampled > range_max - len(banned & set(range(range_max))):
        raise ValueError(f"{name}: too few classes left to draw {num_sampled} unique candidates")
    rng = host_rng(name, rng_state)
    picked: list[int] = []
    tries = 0
    while len(picked) < num_sampled:
        c = int(rng.choice(range_max, p=prob))
        tries += 1
        if c in banned or (unique and c in picked):
            continue
        picked.append(c)

    def expected(p: np.ndarray) -> np.ndarray:
        return p * num_sampled if tries == num_sampled else -np.expm1(tries * np.log1p(-p))

    def p_of(c: np.ndarray) -> np.ndarray:
        c = c.astype(np.float64)
        return np.log((c + 2) / (c + 1)) / np.log(range_max + 1) if log_uniform else np.full(c.shape, 1 / range_max)

    sampled = np.array(picked, classes.dtype)
    return (Tensor(sampled, dtype=tc.dtype), Tensor(expected(p_of(classes)).astype(np.float32)),
            Tensor(expected(p_of(sampled)).astype(np.float32)))


def log_uniform_candidate_sampler(true_classes, num_true: int = 1, num_sampled: int = 5, unique: bool = True,
                                  range_max: int = 5, seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """``ops.log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5,
    seed=0)``: ``num_sampled`` classes drawn with P(k) = log((k + 2) / (k + 1)) / log(range_max + 1) (distinct
    with ``unique``), and the expected counts of the true and sampled classes (float32)."""
    return candidate_draw("log_uniform_candidate_sampler", true_classes, num_true, num_sampled, unique, range_max,
                          _state("log_uniform_candidate_sampler", seed or None), True)


def uniform_candidate_sampler(true_classes, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int = 0, remove_accidental_hits: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """``ops.uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)``: ``num_sampled`` classes drawn uniformly from [0, range_max) (distinct with
    ``unique``; never one of the true classes with ``remove_accidental_hits``) and the expected counts."""
    return candidate_draw("uniform_candidate_sampler", true_classes, num_true, num_sampled, unique, range_max,
                          _state("uniform_candidate_sampler", seed or None), False, remove_accidental_hits)


__all__ = ["bernoulli", "standard_laplace", "gumbel_softmax", "random_categorical", "multinomial_with_replacement",
           "random_gamma", "random_poisson", "choice_with_mask", "log_uniform_candidate_sampler",
           "uniform_candidate_sampler"]
