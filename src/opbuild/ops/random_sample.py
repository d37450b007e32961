"""Random sampling operators (MindSpore's primitives): ``StandardNormal``, ``UniformReal``, ``StandardLaplace``
(float32) and ``UniformInt`` (int32), each ``Op(seed=0, seed2=0)(shape, ...)``.

As Dropout's (ops/random_ops.py), each kernel is a pure function of an int64 ``state`` input
``[seed, counter]``: draw ``j`` of a call is splitmix64 of a key mixed from seed, counter and ``j``, scaled to
the open interval (0, 1) with 53 bits. The primitive object keeps its state (a Parameter) and advances the
counter after each call, so successive calls draw fresh values, and the same seeds draw the same values in
every run and every process. Distributions from uniforms: Box-Muller (normal, two draws per value), inverse
CDF (Laplace), ``minval + floor(u * (maxval - minval))`` (integers). The bit streams differ from MindSpore's
(Philox there): the same seeds give other values; only the distributions agree (docs/mindspore-compat.md).

In PYNATIVE_MODE, ``StandardNormal``/``UniformReal``/``UniformInt``/``StandardLaplace`` objects with a seed
given (``seed`` or ``seed2`` not 0) draw MindSpore 2.10's own streams instead, on the host
(core/ms_random_streams.py, core/ms_random_discrete.py): the generator MindSpore's kernel seeds from
``(seed, seed2)``, one per object and output shape, as MindSpore's PyNative keeps one kernel per shape. Inside
a GRAPH_MODE trace the first three draw it too, through the compiled kernels of ops/ms_random_ops.py: each call
site of the graph gets its own generator seeded from ``(seed, seed2)``, continued at every run of the compiled
graph, as MindSpore's graph nodes. With both seeds 0 (unseeded in MindSpore) they keep the kernels' stream
above.

Seeds (MindSpore's rules, ``set_seed`` and the op's ``seed``/``seed2``): both op seeds 0 takes the next op seed
of the global sequence (``core/init_values.op_seed``: the global seed mixed with the op's creation number);
otherwise the state's seed mixes the global seed with the two op seeds. Unlike MindSpore, a program that never
calls ``set_seed`` is repeatable too (the global seed is then 0).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core import config, pynative_sites
from ..core import ms_random_discrete as msd
from ..core.errors import ShapeError
from ..core.init_values import op_seed
from ..core.ir import TensorType
from ..core.ms_random_streams import KernelStream
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..core.trace import current
from .ms_random_ops import graph_draw
from .primitive import Primitive, apply, defop
from .random_ops import GOLDEN, M1, M2
from .registry import no_grad
from .shape_args import static_ints

_MASK64 = (1 << 64) - 1
TWO_PI = 6.283185307179586


def uniforms(state: np.ndarray, n: int) -> np.ndarray:
    """Draws 0..n-1 of the kernels' stream for ``state`` = [seed, counter], as float64 in (0, 1)."""
    with np.errstate(over="ignore"):
        seed, counter = (np.uint64(int(v) & _MASK64) for v in state)
        key = (seed * np.uint64(GOLDEN)) ^ (counter * np.uint64(M1))
        z = key + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(GOLDEN))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(M2)
        z ^= z >> np.uint64(31)
    return ((z >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0 ** -53


def _normalize(op: str):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        unknown = set(attrs) - {"shape"}
        if unknown:
            raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected shape)", list(ins))
        shape = static_ints(op, "shape", attrs.get("shape"), ins)
        if any(d < 0 for d in shape):
            raise ShapeError(op, f"shape must hold non-negative ints, got {tuple(shape)}", list(ins))
        return {"shape": tuple(shape)}
    return normalize


def _infer(op: str, dtype: str, n_bounds: int = 0):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        state = ins[0]
        if state.dtype != "int64" or state.shape != (2,):
            raise ShapeError(op, "state must be an int64 tensor [seed, counter] of shape (2,)", list(ins))
        for t in ins[1:1 + n_bounds]:
            if t.dtype != "int32" or t.shape not in ((), (1,)):
                raise ShapeError(op, "minval and maxval must be int32 scalars", list(ins))
        return [TensorType(attrs["shape"], dtype)]
    return infer


def _normal_ref(attrs: dict, state: np.ndarray) -> np.ndarray:
    n = int(np.prod(attrs["shape"], dtype=np.int64))
    u = uniforms(state, 2 * n)
    z = np.sqrt(-2.0 * np.log(u[0::2])) * np.cos(TWO_PI * u[1::2])
    return z.astype(np.float32).reshape(attrs["shape"])


def _uniform_ref(attrs: dict, state: np.ndarray) -> np.ndarray:
    n = int(np.prod(attrs["shape"], dtype=np.int64))
    return uniforms(state, n).astype(np.float32).reshape(attrs["shape"])


def _laplace_ref(attrs: dict, state: np.ndarray) -> np.ndarray:
    n = int(np.prod(attrs["shape"], dtype=np.int64))
    u = uniforms(state, n) - 0.5
    return (-np.sign(u) * np.log1p(-2.0 * np.abs(u))).astype(np.float32).reshape(attrs["shape"])


def _uniform_int_ref(attrs: dict, state: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    n = int(np.prod(attrs["shape"], dtype=np.int64))
    low, span = int(lo.reshape(-1)[0]), int(hi.reshape(-1)[0]) - int(lo.reshape(-1)[0])
    draws = np.floor(uniforms(state, n) * span).astype(np.int64) + low
    return draws.astype(np.int32).reshape(attrs["shape"])


def state_seed(seed: int = 0, seed2: int = 0) -> int:
    """The generator seed of a random op created with MindSpore's op seeds ``seed``/``seed2`` (see the module
    docstring), a non-negative int64."""
    for name, value in (("seed", seed), ("seed2", seed2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"random op: {name} must be a non-negative int, got {value!r}")
    if seed == 0 and seed2 == 0:
        return op_seed()
    mixed = (int(config.get_context("seed")) * 1_000_003 + int(seed)) * 1_000_033 + int(seed2)
    return (mixed * GOLDEN) & 0x7FFFFFFFFFFFFFFF


def new_state(seed: int) -> Parameter:
    """A generator state ``[seed, 0]`` as a Parameter that compiled graphs advance in place."""
    return Parameter(np.array([seed, 0], np.int64), name="rng_state", requires_grad=False)


def draw(op: str, attrs: dict, state: Parameter, extra: Sequence[Tensor] = ()) -> Tensor:
    """Run the sampling op ``op`` on ``state`` and advance its counter (an Assign the graph keeps)."""
    out = apply(op, attrs, [state, *extra])
    apply("Assign", {}, [state, state + Tensor(np.array([0, 1], np.int64))])
    return out


def ms_sample(op: str, stream: KernelStream, shape, bounds: tuple[int, int] = (0, 1)) -> Tensor:
    """``op``'s values of ``shape`` drawn from MindSpore's kernel generator ``stream`` (on the host)."""
    shp = _normalize(op)({"shape": shape}, [])["shape"]
    n = int(np.prod(shp, dtype=np.int64))
    if op == "StandardNormal":
        values = stream.standard_normal(n)
    elif op == "StandardLaplace":
        values = msd.standard_laplace(stream, n)
    elif op == "UniformReal":
        values = stream.uniform_real(n)
    else:
        values = stream.uniform_int(n, *bounds)
    return Tensor(values.reshape(shp))


def _concrete_bounds(lo: Tensor, hi: Tensor) -> tuple[int, int] | None:
    """(minval, maxval) when both are concrete int32 scalars (the host draw's case), else None."""
    for t in (lo, hi):
        if t._data is None or t.dtype.name != "int32" or t.shape not in ((), (1,)):
            return None
    return int(lo.asnumpy().reshape(-1)[0]), int(hi.asnumpy().reshape(-1)[0])


# The samplers whose MindSpore streams core/ms_random_streams.py (and ms_random_discrete.py) reproduce eagerly,
# those drawn by a graph kernel of ops/ms_random_ops.py in a trace, and those on a minstd_rand0.
_MS_STREAM_OPS = ("StandardNormal", "UniformReal", "UniformInt", "StandardLaplace")
_MS_GRAPH_OPS = ("StandardNormal", "UniformReal", "UniformInt")
_MINSTD_OPS = ("StandardNormal", "StandardLaplace")


class _Sampler(Primitive):
    """The common constructor of MindSpore's sampling primitives: ``Op(seed=0, seed2=0)``; the instance keeps
    its generator state, so each call draws new values."""

    def __init__(self, seed: int = 0, seed2: int = 0):
        Primitive.__init__(self)
        object.__setattr__(self, "_rng", new_state(state_seed(seed, seed2)))
        # MindSpore's own stream (PYNATIVE_MODE, a seed given): one kernel generator per output shape
        object.__setattr__(self, "_ms_seeds", (int(seed), int(seed2)) if seed or seed2 else None)
        object.__setattr__(self, "_ms_kernels", {})

    def _ms_stream(self, shape) -> KernelStream | None:
        """This object's MindSpore kernel generator for ``shape``, or None where the kernel stream is used."""
        op = type(self).__name__
        if self._ms_seeds is None or current() is not None or op not in _MS_STREAM_OPS:
            return None
        return self._eager_kernel(_normalize(op)({"shape": shape}, [])["shape"])

    def _eager_kernel(self, key: tuple[int, ...]) -> KernelStream:
        if key not in self._ms_kernels:
            self._ms_kernels[key] = KernelStream(*self._ms_seeds, normal=type(self).__name__ in _MINSTD_OPS)
        return self._ms_kernels[key]

    def _owner(self, key: tuple[int, ...]):
        """In a gradient traced from PyNative: the state of this object's generator for shape ``key``, one
        Parameter for every call site of the trace (they share the object's PyNative kernel), loaded from the
        eager generator before each later call and handed back to it after each call."""
        def owned(_maker) -> Parameter:
            state, new = pynative_sites.shared((id(self), key), lambda: Parameter(
                self._eager_kernel(key).state(), name="ms_rng_state", requires_grad=False))
            if new:
                def give_back() -> None:
                    self._ms_kernels[key] = KernelStream.from_state(state.asnumpy())
                pynative_sites.register(lambda: state.set_data(self._eager_kernel(key).state()), give_back)
            return state
        return owned

    def _graph_stream(self) -> Callable[[], KernelStream] | None:
        """Inside a trace, a seeded MindSpore sampler's maker of a new generator for this call site (MindSpore
        seeds each node of a graph from the object's seeds when the graph compiles), else None."""
        op = type(self).__name__
        if self._ms_seeds is None or current() is None or op not in _MS_GRAPH_OPS:
            return None
        return lambda: KernelStream(*self._ms_seeds, normal=op == "StandardNormal")

    def __call__(self, shape):
        graph_stream = self._graph_stream()
        if graph_stream is not None:
            key = _normalize(type(self).__name__)({"shape": shape}, [])["shape"]
            return graph_draw(type(self).__name__, graph_stream, key, owner=self._owner(key))
        stream = self._ms_stream(shape)
        if stream is not None:
            return ms_sample(type(self).__name__, stream, shape)
        return draw(type(self).__name__, {"shape": shape}, self._rng)


@defop(infer=_infer("StandardNormal", "float32"), reference=_normal_ref, normalize=_normalize("StandardNormal"),
       n_inputs=1)
class StandardNormal(_Sampler):
    """``StandardNormal(seed=0, seed2=0)(shape)``: float32 samples of N(0, 1)."""


@defop(infer=_infer("UniformReal", "float32"), reference=_uniform_ref, normalize=_normalize("UniformReal"),
       n_inputs=1)
class UniformReal(_Sampler):
    """``UniformReal(seed=0, seed2=0)(shape)``: float32 samples of U(0, 1)."""


@defop(infer=_infer("StandardLaplace", "float32"), reference=_laplace_ref, normalize=_normalize("StandardLaplace"),
       n_inputs=1)
class StandardLaplace(_Sampler):
    """``StandardLaplace(seed=0, seed2=0)(shape)``: float32 samples of Laplace(0, 1)."""


@defop(infer=_infer("UniformInt", "int32", n_bounds=2), reference=_uniform_int_ref,
       normalize=_normalize("UniformInt"), n_inputs=3)
class UniformInt(_Sampler):
    """``UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: int32 samples uniform on [minval, maxval)
    (int32 scalar tensors, minval < maxval)."""

    def __call__(self, shape, minval, maxval):
        lo, hi = (v if isinstance(v, Tensor) else Tensor(np.asarray(v, np.int32)) for v in (minval, maxval))
        if lo._data is not None and hi._data is not None and int(lo.asnumpy().reshape(-1)[0]) >= int(
                hi.asnumpy().reshape(-1)[0]):
            raise ValueError(f"UniformInt: minval must be less than maxval, got {lo.asnumpy()} and {hi.asnumpy()}")
        graph_stream = self._graph_stream()
        if graph_stream is not None:
            key = _normalize("UniformInt")({"shape": shape}, [])["shape"]
            return graph_draw("UniformInt", graph_stream, key, [apply("Reshape", {"shape": ()}, [t]) for t in (lo, hi)],
                              owner=self._owner(key))
        bounds = _concrete_bounds(lo, hi)
        stream = self._ms_stream(shape) if bounds is not None else None
        if stream is not None:
            return ms_sample("UniformInt", stream, shape, bounds)
        return draw("UniformInt", {"shape": shape}, self._rng, (lo, hi))


no_grad("StandardNormal", "UniformReal", "StandardLaplace", "UniformInt")

PRIMITIVES: dict[str, type[Primitive]] = {"StandardNormal": StandardNormal, "UniformReal": UniformReal,
                                          "StandardLaplace": StandardLaplace, "UniformInt": UniformInt}
