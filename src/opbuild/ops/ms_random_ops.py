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

from ..core import pynative_sites
from ..core.errors import ShapeError
from ..core.graph_breaks import site_state
from ..core.ir import TensorType
from ..core.ms_random_streams import MT_STATE_SIZE, KernelStream
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
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


no_grad("MsUniformReal", "MsUniformInt", "MsStandardNormal")


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

