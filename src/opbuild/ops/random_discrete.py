"""Discrete random operators (MindSpore's primitives): ``Multinomial`` (categorical draws per row),
``RandomShuffle`` (a permutation of the first axis) and ``RandpermV2`` (a permutation of ``range(n)``).

They draw from the stream of ops/random_sample.py (``uniforms``: splitmix64 of ``[seed, counter]``, so the
same seeds give the same values in every process) and the NumPy references compute the same numbers: a
category is the first whose running sum (float64, in index order) exceeds ``u * total``; permutations are
Fisher-Yates shuffles swapping position ``i`` (from the last down) with ``floor(u_i * (i + 1))``. The values
differ from MindSpore's (another generator); the distributions agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from . import scratch_plan as S
from .primitive import Primitive, apply, defop
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

    def __call__(self, x, num_samples):
        return draw("Multinomial", {"num_samples": num_samples, "replacement": True, "dtype": self._dtype},
                    self._rng, (x,))


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

    def __call__(self, x):
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
        return apply("RandpermV2", {"n": n, "dtype": dt}, [Tensor(np.array([seed, offset], np.int64))])


no_grad("Multinomial", "RandomShuffle", "RandpermV2")

PRIMITIVES: dict[str, type[Primitive]] = {"Multinomial": Multinomial, "RandomShuffle": RandomShuffle,
                                          "RandpermV2": RandpermV2}
