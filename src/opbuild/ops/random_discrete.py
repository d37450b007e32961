"""Discrete random operators (MindSpore's primitives): ``Multinomial`` (categorical draws per row),
``RandomShuffle`` (a permutation of the first axis) and ``RandpermV2`` (a permutation of ``range(n)``).

They draw from the stream of ops/random_sample.py (``uniforms``: splitmix64 of ``[seed, counter]``, so the
same seeds give the same values in every process) and the NumPy references compute the same numbers: a
category is the first whose running sum (float64, in index order) exceeds ``u * total``; permutations are
Fisher-Yates shuffles swapping position ``i`` (from the last down) with ``floor(u_i * (i + 1))``. The values
differ from MindSpore's (another generator); the distributions agree.

In PYNATIVE_MODE, ``Multinomial`` and ``RandomShuffle`` objects with a seed given (``seed`` or ``seed2`` not 0)
draw MindSpore 2.10's own streams instead, on the host (core/ms_random_discrete.py): one minstd_rand0 per
object and kernel (input shape and dtype, and ``Multinomial``'s sample count), continued across its calls, as
MindSpore's PyNative keeps one kernel each. ``RandpermV2`` always computes MindSpore's permutation on the host
(a pure function of ``(n, seed, offset)``, a constant inside a graph).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import ms_random_discrete as msd
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.ms_random_streams import KernelStream
from ..core.tensor import Tensor, as_tensor
from ..core.trace import current
from . import ms_random_ops
from . import scratch_plan as S
from .primitive import Primitive, defop
from .random_sample import draw, new_state, state_seed, uniforms
from .registry import no_grad

_INDEX_DTYPES = ("int32", "int64")
PERM_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "float32", "float64")


def _state_ok(op: str, state: TensorType, ins: Sequence[TensorType]) -> None:
    if state.dtype != "int64" or state.shape != (2,):
        raise ShapeError(op, "state must be an int64 tensor [seed, counter] of shape (2,)", list(ins))


def _multinomial_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    unknown = set(attrs) - {"num_samples", "replacement", "dtype"}
    if unknown:
        raise ShapeError("Multinomial", f"unknown attribute(s) {sorted(unknown)}", list(ins))
    n = attrs.get("num_samples")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
        raise ShapeError("Multinomial", f"num_samples must be a positive int, got {n!r}", list(ins))
    dt = attrs.get("dtype", "int32")
    if dt not in _INDEX_DTYPES:
        raise ShapeError("Multinomial", f"dtype must be int32 or int64, got {dt}", list(ins))
    return {"num_samples": int(n), "replacement": bool(attrs.get("replacement", True)), "dtype": dt}


def _multinomial_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    state, x = ins
    _state_ok("Multinomial", state, ins)
    if x.dtype not in ("float32", "float64") or len(x.shape) not in (1, 2):
        raise ShapeError("Multinomial", "x must be a 1-D or 2-D float32/float64 tensor of (unnormalised) "
                         "probabilities",
                         list(ins))
    if not attrs["replacement"] and attrs["num_samples"] > x.shape[-1]:
        raise ShapeError("Multinomial", f"without replacement num_samples ({attrs['num_samples']}) cannot exceed "
                         f"the number of categories ({x.shape[-1]})", list(ins))
    return [TensorType((*x.shape[:-1], attrs["num_samples"]), attrs["dtype"])]


def _multinomial_ref(attrs: dict, state: np.ndarray, x: np.ndarray) -> np.ndarray:
    rows = x.reshape(-1, x.shape[-1]).astype(np.float64)
    k = attrs["num_samples"]
    u = uniforms(state, rows.shape[0] * k)
    out = np.zeros((rows.shape[0], k), np.int64)
    for r, row in enumerate(rows):
        w = np.maximum(row, 0.0)
        for s in range(k):
            total = 0.0
            for v in w:
                total += v
            positive = np.flatnonzero(w > 0)
            target, acc, pick = u[r * k + s] * total, 0.0, int(positive[-1]) if positive.size else 0
            for i, v in enumerate(w):
                acc += v
                if acc > target and v > 0:
                    pick = i
                    break
            out[r, s] = pick
            if not attrs["replacement"]:
                w[pick] = 0.0
    return out.reshape((*x.shape[:-1], k)).astype(attrs["dtype"])


@defop(infer=_multinomial_infer, reference=_multinomial_ref, normalize=_multinomial_normalize, n_inputs=2,
       workspace=S.workspace_of(S.multinomial))
class Multinomial(Primitive):
    """``Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples)``: ``num_samples`` category indices per row
    of ``x`` (1-D or 2-D non-negative weights, not necessarily normalised), drawn with replacement."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype="int32"):
        Primitive.__init__(self)
        object.__setattr__(self, "_rng", new_state(state_seed(seed, seed2)))
        object.__setattr__(self, "_dtype", getattr(dtype, "name", dtype))
        ms_kernels(self, seed, seed2)

    def __call__(self, x, num_samples):
        attrs = {"num_samples": num_samples, "replacement": True, "dtype": self._dtype}
        stream = eager_kernel(self, x, num_samples)
        if stream is not None:
            return Tensor(multinomial_values(stream, as_tensor(x), attrs))
        return draw("Multinomial", attrs, self._rng, (x,))


def multinomial_values(stream: KernelStream, x: Tensor, attrs: dict) -> np.ndarray:
    """MindSpore's ``Multinomial`` draw (with replacement) for the concrete weights ``x`` from ``stream``,
    after the op's checks of ``attrs`` and ``x``."""
    attrs = check_multinomial(attrs, x)
    return msd.multinomial(stream, x.asnumpy(), attrs["num_samples"]).astype(attrs["dtype"])


def check_multinomial(attrs: dict, x: Tensor) -> dict:
    """The op's checks of ``attrs`` and the weights ``x`` (ShapeError naming what is wrong); the attributes
    normalised."""
    attrs = _multinomial_normalize(attrs, [])
    _multinomial_infer(attrs, [TensorType((2,), "int64"), TensorType(tuple(x.shape), x.dtype.name)])
    return attrs


def ms_kernels(prim: Primitive, seed: int, seed2: int) -> None:
    """Give ``prim`` MindSpore's seeds (None where both are 0: unseeded there) and its kernel generators."""
    object.__setattr__(prim, "_ms_seeds", (int(seed), int(seed2)) if seed or seed2 else None)
    object.__setattr__(prim, "_ms_kernels", {})


def eager_kernel(prim: Primitive, x, *key) -> KernelStream | None:
    """``prim``'s MindSpore generator (minstd_rand0) for input ``x`` (and ``key``) in an eager call with
    concrete data, made at first use; None where opbuild's kernel stream is drawn (unseeded, or traced)."""
    if prim._ms_seeds is None or current() is not None or not isinstance(x, Tensor) or x._data is None:
        return None
    kernel = (tuple(x.shape), x.dtype.name, *key)
    if kernel not in prim._ms_kernels:
        prim._ms_kernels[kernel] = KernelStream(*prim._ms_seeds, normal=True)
    return prim._ms_kernels[kernel]


def fisher_yates(state: np.ndarray, n: int) -> np.ndarray:
    """The permutation of ``range(n)`` the kernels draw for ``state``."""
    u = uniforms(state, max(n, 1))
    perm = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = min(int(u[i] * (i + 1)), i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _shuffle_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    state, x = ins
    _state_ok("RandomShuffle", state, ins)
    return [TensorType(x.shape, x.dtype)]


@defop(infer=_shuffle_infer, reference=lambda attrs, state, x: x if x.ndim == 0 else x[fisher_yates(state, len(x))],
       n_inputs=2, workspace=S.workspace_of(S.random_shuffle))
class RandomShuffle(Primitive):
    """``RandomShuffle(seed=0, seed2=0)(x)``: ``x`` with its first axis randomly permuted."""

    def __init__(self, seed: int = 0, seed2: int = 0):
        Primitive.__init__(self)
        object.__setattr__(self, "_rng", new_state(state_seed(seed, seed2)))
        ms_kernels(self, seed, seed2)

    def __call__(self, x):
        stream = eager_kernel(self, x)
        if stream is not None:
            return Tensor(ms_random_ops.random_shuffle(stream, x.asnumpy()))
        return draw("RandomShuffle", {}, self._rng, (x,))


def _randperm_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    n, dt = attrs.get("n"), attrs.get("dtype", "int64")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ShapeError("RandpermV2", f"n must be a non-negative int, got {n!r}", list(ins))
    if dt not in PERM_DTYPES:
        raise ShapeError("RandpermV2", f"dtype must be one of {', '.join(PERM_DTYPES)}, got {dt}", list(ins))
    return {"n": int(n), "dtype": dt}


def _randperm_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    _state_ok("RandpermV2", ins[0], ins)
    return [TensorType((attrs["n"],), attrs["dtype"])]


@defop(infer=_randperm_infer, normalize=_randperm_normalize, n_inputs=1, workspace=S.workspace_of(S.randperm),
       reference=lambda attrs, state: fisher_yates(state, attrs["n"]).astype(attrs["dtype"]))
class RandpermV2(Primitive):
    """``RandpermV2(seed=0, offset=0, dtype=int64)(n)``: a random permutation of ``range(n)``, a pure function
    of ``(seed, offset)`` (MindSpore's: the same arguments give the same permutation)."""

    def __init__(self, seed: int = 0, offset: int = 0, dtype="int64"):
        Primitive.__init__(self)
        object.__setattr__(self, "_args", (int(seed), int(offset), getattr(dtype, "name", dtype)))

    def __call__(self, n):
        seed, offset, dt = self._args
        if isinstance(n, Tensor):
            n = int(n.asnumpy())
        return ms_randperm(n, seed, offset, dt)


def ms_randperm(n: int, seed: int, offset: int, dtype: str) -> Tensor:
    """MindSpore's ``RandpermV2`` permutation of ``range(n)`` in ``dtype``, computed on the host (a pure function
    of the arguments: a constant inside a graph)."""
    attrs = _randperm_normalize({"n": n, "dtype": dtype}, [])
    return Tensor(ms_random_ops.randperm(attrs["n"], seed, offset).astype(attrs["dtype"]))


no_grad("Multinomial", "RandomShuffle", "RandpermV2")

PRIMITIVES: dict[str, type[Primitive]] = {"Multinomial": Multinomial, "RandomShuffle": RandomShuffle,
                                          "RandpermV2": RandpermV2}
