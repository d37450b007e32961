"""Internal: ``PhiloxFill``, the compiled stages of MindSpore's initializer fills (core/philox_fill.py), which
runtime/init_fill.py runs chunk by chunk to draw large parameters fast. Not a MindSpore primitive and never
part of a graph: one binary per stage serves every parameter, seed and shape.

Every stage reads ``pos`` = (seed, start, count), int64: the values ``[start, start + count)`` of the Philox
stream of ``seed``, ``count`` at most the attribute ``capacity`` (the length the outputs are declared with:
a call writes their first ``count`` values, or pairs, and nothing after); and ``params``, float64 (4,):

* ``uniform`` (hi - lo, lo): the values;
* ``normal_draw`` (floor, turn): per pair of draws, ``y = turn * u2`` and ``u1`` (float64 each, ``capacity / 2``);
  ``normal_finish`` (mean, sigma) takes ``y`` and ``log(u1)`` and gives the values;
* ``truncated_draw`` (cdf(a), cdf(b) - cdf(a), tiny, big): per value ``q`` of erfc_inv's argument, negated on
  its upper half, and ``q`` again (for the log); ``truncated_finish`` (mean, sigma, sqrt2) takes the signed
  ``q`` and ``log(q)`` and gives the values.

The values are float32 (attribute ``dtype``, the fills'), or float64: the same double arithmetic without
its last rounding, which tests compare with the reference bit for bit (a fused multiply-add there changes a
double's last bit, hardly ever a float32's).

The logarithm is NumPy's, between the two stages: NumPy computes float64 ``log`` with its own SIMD code on some
machines, not glibc's, and the fills must give the NumPy path's bits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import philox_fill as F
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .primitive import Primitive, defop
from .registry import no_grad

# stage -> (inputs after pos and params as (length divisor, dtype), outputs likewise; "values": attribute dtype)
STAGES: dict[str, tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]] = {
    "uniform": ((), ((1, "values"),)),
    "normal_draw": ((), ((2, "float64"), (2, "float64"))),
    "normal_finish": (((2, "float64"), (2, "float64")), ((1, "values"),)),
    "truncated_draw": ((), ((1, "float64"), (1, "float64"))),
    "truncated_finish": (((1, "float64"), (1, "float64")), ((1, "values"),)),
}


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    stage, cap, dtype = attrs.get("stage"), attrs.get("capacity"), attrs.get("dtype", "float32")
    if stage not in STAGES:
        raise ShapeError("PhiloxFill", f"stage must be one of {sorted(STAGES)}, got {stage!r}", list(ins))
    if isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0 or cap % 4:
        raise ShapeError("PhiloxFill", f"capacity must be a positive multiple of 4, got {cap!r}", list(ins))
    if dtype not in ("float32", "float64"):
        raise ShapeError("PhiloxFill", f"dtype must be 'float32' or 'float64', got {dtype!r}", list(ins))
    return {"stage": stage, "capacity": cap, "dtype": dtype}


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    cap = attrs["capacity"]
    extra, outs = STAGES[attrs["stage"]]
    want = [TensorType((3,), "int64"), TensorType((4,), "float64"),
            *(TensorType((cap // d,), t) for d, t in extra)]
    if list(ins) != want:
        raise ShapeError("PhiloxFill", f"stage {attrs['stage']} takes {want}", list(ins))
    return [TensorType((cap // d,), attrs["dtype"] if t == "values" else t) for d, t in outs]


def _reference(attrs: dict, pos: np.ndarray, params: np.ndarray, *bufs: np.ndarray) -> list[np.ndarray]:
    """The stage in NumPy, as core/philox_fill.py computes it (outputs past ``count`` are zero)."""
    cap, stage = attrs["capacity"], attrs["stage"]
    seed, start, count = (int(v) for v in pos)
    count = min(count, cap)
    outs = [np.zeros(cap // d, attrs["dtype"] if t == "values" else t) for d, t in STAGES[stage][1]]
    pairs = (count + 1) // 2
    a, b, c, _ = (float(v) for v in params)
    if stage == "normal_draw":
        r = F.philox_uint32(seed, 2 * pairs, start).reshape(-1, 2)
        outs[0][:pairs] = b * np.maximum(F.unit23(r[:, 1]), a)
        outs[1][:pairs] = np.maximum(F.unit23(r[:, 0]), a)
    elif stage == "normal_finish":
        x = np.sqrt(-2.0 * bufs[1][:pairs]) * b
        vals = np.stack([a + x * np.cos(bufs[0][:pairs]), a + x * np.sin(bufs[0][:pairs])], 1).reshape(-1)
        outs[0][:count] = vals[:count]
    elif stage == "uniform":
        u = F.unit(F.philox_uint32(seed, count, start))
        outs[0][:count] = u * a + b
    elif stage == "truncated_draw":
        z = F.clamp_open2(2.0 * (a + F.unit(F.philox_uint32(seed, count, start)) * b))
        q = np.where(z > 1.0, 2.0 - z, z)
        outs[0][:count] = np.where(z > 1.0, -q, q)
        outs[1][:count] = q
    else:
        q = np.abs(bufs[0][:count])  # erf_inv takes the log of q itself: bufs[1] holds NumPy's log(q) too
        e = F.erf_inv(1.0 - q, q)
        e = np.where(bufs[0][:count] < 0, -e, e)
        outs[0][:count] = a + (-e * c) * b
    return outs


@defop(infer=_infer, reference=_reference, normalize=_normalize, multi_output=True)
class PhiloxFill(Primitive):
    """Internal: ``PhiloxFill(stage=..., capacity=...)(pos, params, *buffers)``, one stage of an initializer's
    fill (see the module)."""


no_grad("PhiloxFill")
PRIMITIVES: dict[str, type[Primitive]] = {}
