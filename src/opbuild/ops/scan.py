"""Scans: CumSum and CumProd (MindSpore's ``ops.CumSum``/``ops.CumProd`` primitives, ONNX ``CumSum``), and
the running extrema with indices Cummax/Cummin.

One table row per scan gives its C combine, its identity (the first element of an exclusive scan) and its
NumPy reference. ``exclusive`` shifts the running value by one (the first output is the identity);
``reverse`` scans from the last element. The axis is a call argument made canonical in ``normalize``.

The kernel keeps the scan sequential along the axis (each output is the previous output combined with one
input), in the dtype's compute type, rounding each step to the storage type as NumPy's ``cumsum`` does, so
the reference and the kernel agree bit for bit. Integer scans wrap around as NumPy's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.dtypes import ALL_NUMERIC
from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from ..core.tensor import Tensor
from ..targets.cpu.codegen import c_literal, compute_ctype, load, store
from .primitive import Primitive, apply, defop
from .registry import grad_rule, norm_axis, same_dtype
from .shape_args import static_int


@dataclass(frozen=True)
class Scan:
    """One scan: ``combine(a, b)`` as C, the identity element, the NumPy accumulate ufunc."""

    name: str
    combine: Callable[[str, str], str]
    identity: int
    ufunc: Any


SCANS: dict[str, Scan] = {
    "CumSum": Scan("CumSum", lambda a, b: f"({a}) + ({b})", 0, np.add),
    "CumProd": Scan("CumProd", lambda a, b: f"({a}) * ({b})", 1, np.multiply),
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


# ---- the C emitter (one for both scans) -------------------------------------------------------------------

def scan_emit(k: KernelSpec) -> str:
    """C body: per (outer, inner) lane, a sequential scan along the axis (vectorised across the inner lanes)."""
    x = k.inputs[0]
    dt = x.dtype
    if x.size == 0:
        return "/* empty */"
    scan = SCANS[k.op]
    shape = x.shape or (1,)
    axis, excl, rev = k.attrs["axis"], k.attrs["exclusive"], k.attrs["reverse"]
    outer, n, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])
    # Positions along the axis in scan order: t -> i; the previous position is i - step.
    step = -1 if rev else 1
    first = n - 1 if rev else 0
    at = f"(o * {n} + (i)) * {inner} + r"
    prev = at.replace("(i)", f"(i - ({step}))")
    src = prev if excl else at
    head = c_literal(scan.identity, dt) if excl else f"in0[{at}]"
    combined = store(dt, scan.combine(load(dt, f"out0[{prev}]"), load(dt, f"in0[{src}]")))
    pos = f"{n - 1} - t" if rev else "t"
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"{{ const int64_t i = {first};\n"
            f"for (int64_t r = 0; r < {inner}; r++) out0[{at}] = {head}; }}\n"
            f"for (int64_t t = 1; t < {n}; t++) {{\n"
            f"const int64_t i = {pos};\n"
            f"for (int64_t r = 0; r < {inner}; r++) out0[{at}] = {combined};\n"
            f"}}}}")


# ---- the primitives -----------------------------------------------------------------------------------

class _ScanPrimitive(Primitive):
    def __init__(self, exclusive: bool = False, reverse: bool = False):
        if not isinstance(exclusive, bool) or not isinstance(reverse, bool):
            raise TypeError(f"{type(self).__name__}: exclusive and reverse must be bool, got "
                            f"{exclusive!r}, {reverse!r}")
        super().__init__(exclusive=exclusive, reverse=reverse)

    def __call__(self, x: Any, axis: int) -> Tensor:
        return apply(self.op_name, {**self.attrs, "axis": axis}, [x])


@defop(infer=_infer("CumSum"), emit=scan_emit, reference=lambda attrs, x: scan_reference("CumSum", attrs, x),
       normalize=_normalize("CumSum"), n_inputs=1)
class CumSum(_ScanPrimitive):
    """``CumSum(exclusive=False, reverse=False)(input, axis)``: the running sum of ``input`` along ``axis``
    (``exclusive``: each output leaves out its own element; ``reverse``: summed from the end)."""


@defop(infer=_infer("CumProd"), emit=scan_emit, reference=lambda attrs, x: scan_reference("CumProd", attrs, x),
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
# MindSpore's rules (checked against its outputs): an element equal to the running extremum takes over its
# index (the latest of equal elements wins); a NaN becomes the running value for good and keeps its index.
# Cummax's indices are int64, Cummin's int32.

_EXTREMA = {"Cummax": (">=", "int64"), "Cummin": ("<=", "int32")}


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
        return [TensorType(ins[0].shape, ins[0].dtype), TensorType(ins[0].shape, _EXTREMA[op][1])]

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
            if j and not (floats and np.isnan(float(v))):
                take = (floats and np.isnan(float(e))) or (e >= v if op == "Cummax" else e <= v)
                if take:
                    v, k = e, j
            vals[pos + (j,)], idx[pos + (j,)] = v, k
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis).astype(_EXTREMA[op][1])


def extremum_emit(k: KernelSpec) -> str:
    """C body: per lane, one pass along the axis keeping the running value and its index."""
    x = k.inputs[0]
    dt = x.dtype
    cmp = _EXTREMA[k.op][0]
    axis = k.attrs["axis"]
    outer, n, inner = math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:])
    if x.size == 0:
        return "/* empty */"
    floats = dt.startswith(("float", "bfloat"))
    e, v = load(dt, "in0[q]"), "best"
    take = (f"({v} == {v}) && (e != e || e {cmp} {v})" if floats else f"e {cmp} {v}")
    return (f"for (int64_t o = 0; o < {outer}; o++)\n"
            f"for (int64_t r = 0; r < {inner}; r++) {{\n"
            f"{compute_ctype(dt)} best = {load(dt, f'in0[o * {n * inner} + r]')}; int64_t at = 0;\n"
            f"for (int64_t j = 0; j < {n}; j++) {{\n"
            f"const int64_t q = (o * {n} + j) * {inner} + r;\n"
            f"const {compute_ctype(dt)} e = {e};\n"
            f"if (j > 0 && ({take})) {{ best = e; at = j; }}\n"
            f"out0[q] = in0[o * {n * inner} + at * {inner} + r];\n"
            f"out1[q] = at;\n}}}}")


@defop(infer=_extremum_infer("Cummax"), emit=extremum_emit, normalize=_extremum_normalize("Cummax"), n_inputs=1,
       reference=lambda attrs, x: extremum_reference("Cummax", attrs, x))
class Cummax(Primitive):
    """``Cummax(axis)(input)``: the running maximum along ``axis`` and the (int64) index it came from."""

    def __init__(self, axis: int):
        super().__init__(axis=axis)


@defop(infer=_extremum_infer("Cummin"), emit=extremum_emit, normalize=_extremum_normalize("Cummin"), n_inputs=1,
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


__all__ = ["CumProd", "CumSum", "Cummax", "Cummin", "PRIMITIVES", "SCANS", "extremum_emit", "extremum_reference",
           "scan_emit", "scan_reference"]
