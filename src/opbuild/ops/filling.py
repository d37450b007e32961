"""Replicating and filling operators: Tile, BroadcastTo, Pad, OnesLike, ZerosLike and Fill.

Call arguments become canonical attributes in ``normalize`` (ops/shape_args.py). Tile and BroadcastTo share
one replication body (every byte written once, every copy a contiguous run); Pad writes zeros then the
interior rows with :func:`~opbuild.targets.cpu.codegen.strided_copy`; the fills are plain loops gcc vectorises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY, ANY_C, COMPLEX, INTS, dtype_of
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import InferFn, allow_complex, same_dtype
from .shape_args import attr_shape_infer, is_int, static_ints

# ---- Tile ---------------------------------------------------------------------------------------------

def _tile_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    mult = static_ints("Tile", "multiples", attrs.get("multiples"), ins, allow_scalar=True)
    if any(m < 0 for m in mult):
        raise ShapeError("Tile", f"multiples {tuple(mult)} must be non-negative", [x])
    return {"multiples": [1] * (x.rank - len(mult)) + mult}  # np.tile: the shorter side is padded with 1s


def _tile_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    mult = attrs["multiples"]
    shape = (1,) * (len(mult) - ins[0].rank) + ins[0].shape
    return [TensorType(tuple(s * m for s, m in zip(shape, mult, strict=True)), same_dtype("Tile", ins, ANY))]


@defop(infer=_tile_infer, normalize=_tile_normalize, n_inputs=1,
       reference=lambda attrs, x: np.tile(x, attrs["multiples"]))
class Tile(Primitive):
    """``Tile()(x, multiples)``: repeat ``x`` ``multiples[i]`` times along axis ``i`` (as ``np.tile``)."""

    def __call__(self, x: Any, multiples: Sequence[int]) -> Tensor:
        return apply("Tile", {"multiples": multiples}, [x])


# ---- BroadcastTo --------------------------------------------------------------------------------------

def _broadcast_to_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    shape = static_ints("BroadcastTo", "shape", attrs.get("shape"), ins, allow_scalar=True)
    lead = len(shape) - x.rank
    if lead < 0:
        raise ShapeError("BroadcastTo", f"target shape {tuple(shape)} has fewer dims than the input", [x])
    out = []
    for d, t in enumerate(shape):
        src = x.shape[d - lead] if d >= lead else None
        if t == -1 and src is not None:
            t = src
        if t < 0 or (src is not None and src not in (1, t)):
            raise ShapeError("BroadcastTo", f"cannot broadcast to shape {tuple(shape)} (-1 keeps an input "
                                            f"dim; other dims must equal the input's or broadcast a 1)", [x])
        out.append(t)
    return {"shape": out}


@defop(infer=attr_shape_infer("BroadcastTo"), normalize=_broadcast_to_normalize,
       n_inputs=1, reference=lambda attrs, x: np.broadcast_to(x, attrs["shape"]).copy())
class BroadcastTo(Primitive):
    """``BroadcastTo(shape)(x)``: NumPy broadcasting to ``shape``; a ``-1`` keeps the input's dim."""

    def __init__(self, shape: Sequence[int]):
        super().__init__(shape=shape)


# ---- Pad ----------------------------------------------------------------------------------------------

def _pad_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    raw = attrs.get("paddings")
    if isinstance(raw, np.ndarray):
        raw = raw.tolist()
    ok = isinstance(raw, (tuple, list)) and len(raw) == x.rank and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(is_int(v) and v >= 0 for v in p) for p in raw)
    if not ok:
        raise ShapeError("Pad", f"paddings must be one (before, after) pair of non-negative ints per axis "
                                f"(rank {x.rank}), got {raw!r}", [x])
    return {"paddings": [[int(a), int(b)] for a, b in raw]}


def _pad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    shape = tuple(n + a + b for n, (a, b) in zip(ins[0].shape, attrs["paddings"], strict=True))
    return [TensorType(shape, same_dtype("Pad", ins, ANY))]


@defop(infer=_pad_infer, normalize=_pad_normalize, n_inputs=1,
       reference=lambda attrs, x: np.pad(x, attrs["paddings"]) if x.ndim else x)
class Pad(Primitive):
    """``Pad(paddings)(x)``: zero padding, ``paddings`` = one ``(before, after)`` pair per axis."""

    def __init__(self, paddings: Sequence[Sequence[int]]):
        super().__init__(paddings=paddings)


# ---- OnesLike / ZerosLike / Fill ----------------------------------------------------------------------


def _like_infer(op: str) -> InferFn:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(ins[0].shape, same_dtype(op, ins, ANY_C))]

    return infer


@defop(infer=_like_infer("OnesLike"), reference=lambda attrs, x: np.ones_like(x), n_inputs=1)
class OnesLike(Primitive):
    """``OnesLike()(x)``: ones of x's shape and dtype."""


@defop(infer=_like_infer("ZerosLike"), reference=lambda attrs, x: np.zeros_like(x),
       n_inputs=1)
class ZerosLike(Primitive):
    """``ZerosLike()(x)``: zeros of x's shape and dtype."""


def _fill_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    try:
        dt = dtype_of(attrs.get("dtype")).name
    except TypeError as e:
        raise ShapeError("Fill", str(e)) from None
    shape = static_ints("Fill", "shape", attrs.get("shape"), ins, allow_scalar=True)
    if any(d < 0 for d in shape):
        raise ShapeError("Fill", f"shape {tuple(shape)} has a negative dim")
    value = attrs.get("value")
    if isinstance(value, Tensor) and value._data is not None and value.ndim == 0:
        value = value.asnumpy().item()
    if isinstance(value, np.generic):
        value = value.item()
    if dt in COMPLEX and isinstance(value, (bool, int, float, complex)):
        # [real, imaginary] floats: the attribute stays plain JSON in the kernel's descriptor
        v = complex(np.asarray(value).astype(dt).item())
        return {"dtype": dt, "shape": shape, "value": [v.real, v.imag]}
    if not isinstance(value, (bool, int, float)):
        raise ShapeError("Fill", f"value must be a Python scalar (bool, int or float), got {value!r}")
    if dt in INTS and not (np.isfinite(value) and np.iinfo(dt).min <= value <= np.iinfo(dt).max):
        raise ShapeError("Fill", f"value {value} does not fit in {dt}")
    # The value as the output dtype holds it (NumPy's conversion), so 1 and 1.0 give one float32 kernel.
    return {"dtype": dt, "shape": shape, "value": np.asarray(value).astype(dt).item()}


def _fill_reference(attrs: dict) -> np.ndarray:
    value = attrs["value"]
    return np.full(attrs["shape"], complex(*value) if isinstance(value, list) else value, dtype=attrs["dtype"])


@defop(infer=lambda attrs, ins: [TensorType(tuple(attrs["shape"]), attrs["dtype"])],
       reference=_fill_reference, normalize=_fill_normalize, n_inputs=0)
class Fill(Primitive):
    """``Fill()(type, shape, value)``: a new tensor of dtype ``type`` and ``shape`` filled with ``value``
    (converted to ``type`` as NumPy's ``astype`` does). It has no tensor inputs."""

    def __call__(self, type: Any, shape: Sequence[int], value: bool | int | float) -> Tensor:
        return apply("Fill", {"dtype": type, "shape": shape, "value": value}, [])


PRIMITIVES: dict[str, type[Primitive]] = {
    cls.__name__: cls for cls in (Tile, BroadcastTo, Pad, OnesLike, ZerosLike, Fill)}


# ---- gradient rules -----------------------------------------------------------------------------------

from . import gradlib as G  # noqa: E402
from .registry import grad_rule, no_grad  # noqa: E402

no_grad("OnesLike", "ZerosLike", "Fill")  # outputs independent of the input values


@grad_rule("BroadcastTo")
def _broadcast_to_grad(attrs, ins, outs, douts):
    return [G.unbroadcast(douts[0], ins[0].shape)]


@grad_rule("Tile")
def _tile_grad(attrs, ins, outs, douts):
    # The output seen as (m0, d0, m1, d1, ...): summing the multiples' axes gives back (d0, d1, ...).
    x, mult = ins[0], attrs["multiples"]
    shape = (1,) * (len(mult) - len(x.shape)) + tuple(x.shape)  # multiples may be longer than the rank
    split = [v for m, d in zip(mult, shape, strict=True) for v in (m, d)]
    g = G.reshape(douts[0], split)
    return [G.reshape(G.reduce_sum(g, list(range(0, len(split), 2))), x.shape)]


@grad_rule("Pad")
def _pad_grad(attrs, ins, outs, douts):
    x = ins[0]
    if not x.shape:
        return [douts[0]]
    begin = [a for a, _ in attrs["paddings"]]
    return [apply("Slice", {"begin": begin, "size": list(x.shape)}, [douts[0]])]

# Complex elements fill and replicate like any other (docs/fft.md).
allow_complex("OnesLike", "ZerosLike", "Fill", "BroadcastTo")
