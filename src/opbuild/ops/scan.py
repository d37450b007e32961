"""Scans: CumSum and CumProd (MindSpore's ``ops.CumSum``/``ops.CumProd`` primitives, ONNX ``CumSum``), and
the running extrema with indices Cummax/Cummin.

One table row per scan gives its identity (the first element of an exclusive scan) and its
NumPy reference. ``exclusive`` shifts the running value by one (the first output is the identity);
``reverse`` scans from the last element. The axis is a call argument made canonical in ``normalize``.

The kernel keeps the scan sequential along the axis (each output is the previous output combined with one
input), in the dtype's compute type, rounding each step to the storage type as NumPy's ``cumsum`` does, so
the reference and the kernel agree bit for bit. Integer scans wrap around as NumPy's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.dtypes import ALL_NUMERIC
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import grad_rule, norm_axis, same_dtype
from .shape_args import static_int


@dataclass(frozen=True)
class Scan:
    """One scan: its name, the identity element (the first output of an exclusive scan), the NumPy
    accumulate ufunc. The C combine is the target's (targets/cpu/kernels/scan.py)."""

    name: str
    identity: int
    ufunc: Any


SCANS: dict[str, Scan] = {
    "CumSum": Scan("CumSum", 0, np.add),
    "CumProd": Scan("CumProd", 1, np.multiply),
}


def _normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        x = ins[0]
        axis = static_int(op, "axis", attrs.get("axis"), ins)
        rank = max(x.rank, 1)
        if not -rank <= axis < rank:
            raise ShapeError(op, f"axis {axis} is out of range for rank {x.rank} (use -rank <= axis < rank)",
                             list(ins))
        return {"axis": norm_axis(op, axis, rank, ins), "exclusive": bool(attrs.get("exclusive", False)),
                "reverse": bool(attrs.get("reverse", False))}

    return normalize


def _infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        same_dtype(op, ins, ALL_NUMERIC)
        return [TensorType(ins[0].shape, ins[0].dtype)]

    return infer


def scan_reference(op: str, attrs: dict, x: np.ndarray) -> np.ndarray:
    """NumPy scan of ``x`` along ``attrs['axis']`` (exclusive/reverse as the kernel), in x's dtype."""
    scan = SCANS[op]
    shaped = x.reshape(x.shape or (1,))
    axis = attrs["axis"]
    if attrs["reverse"]:
        shaped = np.flip(shaped, axis)
    out = scan.ufunc.accumulate(shaped, axis=axis, dtype=x.dtype) if shaped.size else shaped.copy()
    if attrs["exclusive"] and shaped.size:
        first = np.full_like(np.take(out, [0], axis=axis), scan.identity)
        out = np.concatenate([first, np.delete(out, -1, axis=axis)], axis=axis)
    if attrs["reverse"]:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out).reshape(x.shape)


# ---- the primitives -----------------------------------------------------------------------------------

class _ScanPrimitive(Primitive):
    def __init__(self, exclusive: bool = False, reverse: bool = False):
        if not isinstance(exclusive, bool) or not isinstance(reverse, bool):
            raise TypeError(f"{type(self).__name__}: exclusive and reverse must be bool, got "
                            f"{exclusive!r}, {reverse!r}")
        super().__init__(exclusive=exclusive, reverse=reverse)

    def __call__(self, x: Any, axis: int) -> Tensor:
        return apply(self.op_name, {**self.attrs, "axis": axis}, [x])


@defop(infer=_infer("CumSum"), reference=lambda attrs, x: scan_reference("CumSum", attrs, x),
       normalize=_normalize("CumSum"), n_inputs=1)
class CumSum(_ScanPrimitive):
    """``CumSum(exclusive=False, reverse=False)(input, axis)``: the running sum of ``input`` along ``axis``
    (``exclusive``: each output leaves out its own element; ``reverse``: summed from the end)."""


@defop(infer=_infer("CumProd"), reference=lambda attrs, x: scan_reference("CumProd", attrs, x),
       normalize=_normalize("CumProd"), n_inputs=1)
class CumProd(_ScanPrimitive):
    """``CumProd(exclusive=False, reverse=False)(x, axis)``: the running product of ``x`` along ``axis``."""


PRIMITIVES: dict[str, type[Primitive]] = {"CumSum": CumSum, "CumProd": CumProd}


# ---- gradients ----------------------------------------------------------------------------------------

@grad_rule("CumSum")
def _cumsum_grad(attrs, ins, outs, douts):
    """Each input feeds every later output: the cotangent is the scan of dout in the other direction."""
    return [apply("CumSum", {**attrs, "reverse": not attrs["reverse"]}, [douts[0]])]


@grad_rule("CumProd")
def _cumprod_grad(attrs, ins, outs, douts):
    """d out_j / d x_i = out_j / x_i for every j the scan carries x_i into: the reverse scan of dout * out,
    divided by x (MindSpore's rule: a zero in x gives inf/nan there, as in MindSpore)."""
    x, out, dy = ins[0], outs[0], douts[0]
    summed = apply("CumSum", {**attrs, "reverse": not attrs["reverse"]}, [apply("Mul", {}, [dy, out])])
    return [apply("RealDiv", {}, [summed, x])]




# ---- Cummax / Cummin: running extrema with their indices ---------------------------------------------------
# MindSpore's rules (checked against its outputs, and torch's): an element equal to the running extremum takes
# over its index (the latest of equal elements wins); a NaN becomes the running value for good, and each later
# NaN takes over the index (cummin([3, nan, 1, nan]) has indices [0, 1, 1, 3]).
# Cummax's indices are int64, Cummin's int32.

_INDEX_DTYPE = {"Cummax": "int64", "Cummin": "int32"}


def _extremum_normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        x = ins[0]
        if x.rank == 0:
            raise ShapeError(op, "input must have rank >= 1", list(ins))
        axis = static_int(op, "axis", attrs.get("axis"), ins)
        if not -x.rank <= axis < x.rank:
            raise ShapeError(op, f"axis {axis} is out of range for rank {x.rank}", list(ins))
        return {"axis": axis % x.rank}

    return normalize


def _extremum_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        same_dtype(op, ins, ALL_NUMERIC)
        return [TensorType(ins[0].shape, ins[0].dtype), TensorType(ins[0].shape, _INDEX_DTYPE[op])]

    return infer


def extremum_reference(op: str, attrs: dict, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NumPy running maximum/minimum and index along ``attrs['axis']`` (MindSpore's tie and NaN rules)."""
    axis = attrs["axis"]
    moved = np.moveaxis(x, axis, -1)
    vals = np.empty_like(moved)
    idx = np.empty(moved.shape, np.int64)
    floats = moved.dtype.kind == "f" or moved.dtype.name in ("float16", "bfloat16")
    for pos in np.ndindex(*moved.shape[:-1]):
        row = moved[pos]
        v, k = row[0], 0
        for j, e in enumerate(row):
            nan_e, nan_v = floats and np.isnan(float(e)), floats and np.isnan(float(v))
            if j and (nan_e or (not nan_v and (e >= v if op == "Cummax" else e <= v))):
                v, k = e, j
            vals[pos + (j,)], idx[pos + (j,)] = v, k
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis).astype(_INDEX_DTYPE[op])


@defop(infer=_extremum_infer("Cummax"), normalize=_extremum_normalize("Cummax"), n_inputs=1,
       reference=lambda attrs, x: extremum_reference("Cummax", attrs, x))
class Cummax(Primitive):
    """``Cummax(axis)(input)``: the running maximum along ``axis`` and the (int64) index it came from."""

    def __init__(self, axis: int):
        super().__init__(axis=axis)


@defop(infer=_extremum_infer("Cummin"), normalize=_extremum_normalize("Cummin"), n_inputs=1,
       reference=lambda attrs, x: extremum_reference("Cummin", attrs, x))
class Cummin(Primitive):
    """``Cummin(axis)(input)``: the running minimum along ``axis`` and the (int32) index it came from."""

    def __init__(self, axis: int):
        super().__init__(axis=axis)


PRIMITIVES.update({"Cummax": Cummax, "Cummin": Cummin})


@grad_rule("Cummax", "Cummin")
def _extremum_grad(attrs, ins, outs, douts):
    """Each output is a copy of the input element its index names: the cotangents add up there."""
    x, dv = ins[0], douts[0]
    if dv is None:
        return [None]
    zeros = Tensor(np.zeros(x.shape, x._type.dtype))
    return [apply("TensorScatterElements", {"axis": attrs["axis"], "reduction": "add"}, [zeros, outs[1], dv])]


__all__ = ["CumProd", "CumSum", "Cummax", "Cummin", "PRIMITIVES", "SCANS", "extremum_reference", "scan_reference"]
