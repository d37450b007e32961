"""Random operators: ``Dropout(keep_prob=0.5)(x, state) -> (y, mask)`` and its backward ``DropoutGrad``.

The mask is drawn inside the kernel from a counter-based generator: ``state`` is an int64 tensor
``[seed, counter]``, and element ``i`` keeps its value when ``u(seed, counter, i) < keep_prob``, ``u`` being
splitmix64 of a key mixed from the three, scaled to [0, 1) with 53 bits. Being a pure function of its inputs
the kernel is an ordinary cache entry (no hidden state, the same binary for every call), and a caller that
advances ``counter`` between calls (nn.Dropout does, inside its graph) gets a fresh mask per call that
``set_seed`` makes repeatable. The NumPy reference computes the same numbers bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype

# The generator's constants (splitmix64), shared by the reference and the kernels of every target.
GOLDEN = 0x9E3779B97F4A7C15
M1, M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK64 = (1 << 64) - 1


def _keep_prob(op: str, attrs: dict, ins: Sequence[TensorType]) -> dict:
    unknown = set(attrs) - {"keep_prob", "Seed0", "Seed1"}
    if unknown:
        raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected keep_prob)", list(ins))
    kp = attrs.get("keep_prob", 0.5)
    if isinstance(kp, bool) or not isinstance(kp, (int, float, np.floating)) or not 0.0 < kp <= 1.0:
        raise ShapeError(op, f"keep_prob must be a float in (0, 1], got {kp!r}", list(ins))
    # MindSpore's Seed0/Seed1 attributes are accepted and dropped: the seed is the state input here.
    return {"keep_prob": float(kp)}


def _dropout_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, state = ins
    if x.dtype not in ALL_FLOATS:
        raise ShapeError("Dropout", f"x must be float16, bfloat16, float32 or float64, got {x.dtype}", list(ins))
    if state.dtype != "int64" or state.shape != (2,):
        raise ShapeError("Dropout", "state must be an int64 tensor [seed, counter] of shape (2,)", list(ins))
    return [TensorType(x.shape, x.dtype), TensorType(x.shape, x.dtype)]


def _uniform(state: np.ndarray, n: int) -> np.ndarray:
    """The generator of the kernel in NumPy (uint64 arithmetic wraps as C's does)."""
    with np.errstate(over="ignore"):
        seed, counter = (np.uint64(int(v) & _MASK64) for v in state)
        key = (seed * np.uint64(GOLDEN)) ^ (counter * np.uint64(M1))
        z = key + (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(GOLDEN))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(M2)
        z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def _dropout_ref(attrs: dict, x: np.ndarray, state: np.ndarray):
    kp = attrs["keep_prob"]
    mask = (_uniform(state, x.size) < kp).reshape(x.shape).astype(x.dtype)
    return x * mask * x.dtype.type(1.0 / kp), mask


def _dropout_init(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
    Primitive.__init__(self, keep_prob=keep_prob)


@defop(infer=_dropout_infer, reference=_dropout_ref,
       normalize=lambda attrs, ins: _keep_prob("Dropout", attrs, ins), n_inputs=2, multi_output=True)
class Dropout(Primitive):
    """``Dropout(keep_prob=0.5)(x, state) -> (y, mask)``: ``mask`` is 1 where an element is kept (probability
    ``keep_prob``) and 0 elsewhere, ``y = x * mask / keep_prob``. ``state`` is int64 ``[seed, counter]``
    (MindSpore's primitive keeps its generator inside; here it is an input so that the kernel is a pure
    function and the caller advances the counter)."""

    __init__ = _dropout_init


def _dropout_grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("DropoutGrad", ins, ALL_FLOATS)
    if ins[0].shape != ins[1].shape:
        raise ShapeError("DropoutGrad", "dy and mask must have the same shape", list(ins))
    return [TensorType(ins[0].shape, dt)]


@defop(infer=_dropout_grad_infer,
       reference=lambda attrs, dy, mask: dy * mask * dy.dtype.type(1.0 / attrs["keep_prob"]),
       normalize=lambda attrs, ins: _keep_prob("DropoutGrad", attrs, ins), n_inputs=2, scenario="backward")
class DropoutGrad(Primitive):
    """Internal backward op (MindSpore's ``DropoutGrad(keep_prob)(dy, mask)``): ``dy * mask / keep_prob``."""


@grad_rule("Dropout")
def _dropout_grad(attrs, ins, outs, douts):
    if douts[0] is None:
        return [None, None]
    return [apply("DropoutGrad", {"keep_prob": attrs["keep_prob"]}, [douts[0], outs[1]]), None]

# DropoutGrad's rule (second-order derivatives): ops/backward_grads.py.

PRIMITIVES: dict[str, type[Primitive]] = {"Dropout": Dropout}
