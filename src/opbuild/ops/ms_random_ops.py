"""MindSpore 2.10's CPU random kernels as compiled kernels, for GRAPH_MODE: ``MsUniformReal``, ``MsUniformInt``
and ``MsStandardNormal`` draw the generators of core/ms_random_streams.py (mt19937, minstd_rand0 and libstdc++'s
distributions) from a generator state given as data and return the values and the advanced state.

Why state as data: MindSpore seeds each random node of a graph when the graph compiles and keeps that node's
generator inside its kernel, continued at every run of the compiled graph (and untouched by a later
``set_seed``). Here the generator state is an int64 Parameter per call site (``graph_draw``), created at trace
time from the seed pair MindSpore would give the node; the kernel reads it, and an ``Assign`` the graph keeps
writes the advanced state back. The kernel itself holds no state: one binary per (op, shape), reused by every
call site and every seed, as the kernel cache expects.

State layouts (``KernelStream.state``): the mt19937's 624 words and its position (625 int64) for the uniform
ops, the minstd_rand0's value (1 int64) for the normal one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core import ms_random_discrete as msd
from ..core import pynative_sites
from ..core.errors import ShapeError
from ..core.graph_breaks import site_state
from ..core.ir import TensorType
from ..core.ms_random_streams import MT_STATE_SIZE, KernelStream
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..core.trace import engine
from .primitive import Primitive, apply, defop
from .registry import get as get_op
from .registry import no_grad
from .shape_args import static_ints

# The op drawing each MindSpore sampler's stream in a graph, and its state's length.
GRAPH_OPS = {"UniformReal": "MsUniformReal", "UniformInt": "MsUniformInt", "StandardNormal": "MsStandardNormal"}
_STATE_SIZE = {"MsUniformReal": MT_STATE_SIZE, "MsUniformInt": MT_STATE_SIZE, "MsStandardNormal": 1}


def _normalize(op: str):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        unknown = set(attrs) - {"shape"}
        if unknown:
            raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected shape)", list(ins))
        shape = tuple(static_ints(op, "shape", attrs.get("shape"), ins))
        if any(d < 0 for d in shape):
            raise ShapeError(op, f"shape must hold non-negative ints, got {shape}", list(ins))
        return {"shape": shape}
    return normalize


def _infer(op: str, dtype: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        state, size = ins[0], _STATE_SIZE[op]
        if state.dtype != "int64" or state.shape != (size,):
            raise ShapeError(op, f"state must be an int64 generator state of shape ({size},)", list(ins))
        for t in ins[1:]:
            if t.dtype != "int32" or t.shape not in ((), (1,)):
                raise ShapeError(op, "minval and maxval must be int32 scalars", list(ins))
        return [TensorType(attrs["shape"], dtype), TensorType(state.shape, "int64")]
    return infer


def _size(attrs: dict) -> int:
    return int(np.prod(attrs["shape"], dtype=np.int64))


def _real_ref(attrs: dict, state: np.ndarray):
    stream = KernelStream.from_state(state)
    values = stream.uniform_real(_size(attrs)).reshape(attrs["shape"])
    return values, stream.state()


def _normal_ref(attrs: dict, state: np.ndarray):
    stream = KernelStream.from_state(state)
    values = stream.standard_normal(_size(attrs)).reshape(attrs["shape"])
    return values, stream.state()


def _int_ref(attrs: dict, state: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    stream = KernelStream.from_state(state)
    low, high = int(lo.reshape(-1)[0]), int(hi.reshape(-1)[0])
    if high <= low:  # the kernel's answer to bounds it cannot draw from (a graph cannot raise): minval, no draw
        return np.full(attrs["shape"], low, np.int32), state.copy()
    values = stream.uniform_int(_size(attrs), low, high).reshape(attrs["shape"])
    return values, stream.state()


@defop(infer=_infer("MsUniformReal", "float32"), reference=_real_ref, normalize=_normalize("MsUniformReal"),
       n_inputs=1, multi_output=True)
class MsUniformReal(Primitive):
    """Internal: ``MsUniformReal(shape)(state) -> (values, new_state)``, MindSpore's UniformReal kernel."""


@defop(infer=_infer("MsUniformInt", "int32"), reference=_int_ref, normalize=_normalize("MsUniformInt"),
       n_inputs=3, multi_output=True)
class MsUniformInt(Primitive):
    """Internal: ``MsUniformInt(shape)(state, minval, maxval) -> (values, new_state)``, MindSpore's UniformInt
    kernel (minval >= maxval, which MindSpore refuses, gives minval everywhere and leaves the state)."""


@defop(infer=_infer("MsStandardNormal", "float32"), reference=_normal_ref,
       normalize=_normalize("MsStandardNormal"), n_inputs=1, multi_output=True)
class MsStandardNormal(Primitive):
    """Internal: ``MsStandardNormal(shape)(state) -> (values, new_state)``, MindSpore's StandardNormal kernel."""


def _perm_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    n = attrs.get("n")
    if set(attrs) != {"n"} or isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ShapeError("MsShufflePerm", f"takes one attribute n, a non-negative int; got {attrs}", list(ins))
    return {"n": int(n)}


def _perm_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    state = ins[0]
    if state.dtype != "int64" or state.shape not in ((MT_STATE_SIZE,), (1,)):
        raise ShapeError("MsShufflePerm", f"state must be an int64 mt19937 ({MT_STATE_SIZE},) or minstd_rand0 "
                         "(1,) generator state", list(ins))
    return [TensorType((attrs["n"],), "int64"), TensorType(state.shape, "int64")]


def _perm_ref(attrs: dict, state: np.ndarray):
    stream = KernelStream.from_state(state)
    return msd.shuffle_permutation(msd.stream_words(stream), attrs["n"]), stream.state()


@defop(infer=_perm_infer, reference=_perm_ref, normalize=_perm_normalize, n_inputs=1, multi_output=True)
class MsShufflePerm(Primitive):
    """Internal: ``MsShufflePerm(n)(state) -> (permutation, new_state)``, libstdc++'s ``std::shuffle`` of
    ``range(n)`` as MindSpore's RandpermV2 (mt19937 state) and RandomShuffle (minstd_rand0 state) draw it."""


no_grad("MsUniformReal", "MsUniformInt", "MsStandardNormal", "MsShufflePerm")

#: From this length on a permutation is drawn by the compiled ``MsShufflePerm`` (one kernel per length, built
#: once and cached) rather than the host's Python loop (~1.5 us a position: a million take seconds).
COMPILED_PERM_MIN = 1 << 15


def _compiled_permutation(state: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    spec = get_op("MsShufflePerm").spec({"n": n}, [TensorType(state.shape, "int64")])
    perm, new_state = engine().run_eager(spec, [state])
    return perm, new_state


def randperm(n: int, seed: int, offset: int) -> np.ndarray:
    """MindSpore's ``RandpermV2`` permutation of ``range(n)`` (int64), a pure function of its arguments; long
    ones by the compiled kernel, run at once even while a graph is traced (the result is a constant there)."""
    if n < COMPILED_PERM_MIN:
        return msd.randperm(n, seed, offset)
    return _compiled_permutation(msd.mt_state(msd.randperm_seed(seed, offset)), n)[0]


def random_shuffle(stream: KernelStream, x: np.ndarray) -> np.ndarray:
    """MindSpore's ``RandomShuffle`` of ``x``'s first axis drawing from ``stream`` (a minstd_rand0, advanced)."""
    if x.ndim == 0 or x.shape[0] < COMPILED_PERM_MIN:
        return msd.random_shuffle(stream, x)
    perm, new_state = _compiled_permutation(stream.state(), x.shape[0])
    stream.load(new_state)
    return x[perm]


def graph_draw(op: str, make_stream: Callable[[], KernelStream], shape: tuple[int, ...],
               bounds: Sequence[Tensor] = (), owner: Callable[[Callable[[], Parameter]], Parameter] | None = None
               ) -> Tensor:
    """Inside a trace: the node of MindSpore's sampler ``op`` (``UniformReal``, ``UniformInt``,
    ``StandardNormal``) drawing ``shape``. Its state is this call site's Parameter, made from ``make_stream()``
    the first time the site is traced (core/graph_breaks.site_state: a function traced again after a graph
    break finds it again) and advanced in place at every run of the compiled graph (see the module docstring).
    In a gradient traced from PyNative (core/pynative_sites.py) PyNative's rules hold instead: a functional
    call's state is reseeded from ``make_stream()`` before every later call; a primitive's comes from
    ``owner`` (given the maker, it returns the object's state for this shape, kept in step with its eager
    generator)."""
    def new_state() -> Parameter:
        return Parameter(make_stream().state(), name="ms_rng_state", requires_grad=False)

    if owner is not None and pynative_sites.active():
        state = owner(new_state)
    elif pynative_sites.active():  # PyNative's rule in a compiled gradient: a new seed pair at every call
        state = new_state()
        pynative_sites.register(lambda: state.set_data(make_stream().state()), None)
    else:
        state = site_state(GRAPH_OPS[op], new_state)
    values, new_state = apply(GRAPH_OPS[op], {"shape": tuple(shape)}, [state, *bounds])
    apply("Assign", {}, [state, new_state])
    return values

