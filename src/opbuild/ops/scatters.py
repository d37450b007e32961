"""Scatters: MindSpore's ``TensorScatterUpdate``/``Add``/``Sub``/``Mul``/``Div``/``Max``/``Min`` (ONNX
ScatterND) and ``TensorScatterElements`` (ONNX ScatterElements).

``TensorScatter*(input_x, indices, updates)``: the output is ``input_x`` with the slices
``out[indices[j]]`` (``indices`` of shape ``(..., K)`` index the first K axes) combined with ``updates[j]``
(shape ``indices.shape[:-1] + input_x.shape[K:]``). ``TensorScatterElements(axis, reduction)(input_x,
indices, updates)``: ``out[p with p[axis] := indices[p]]`` combined with ``updates[p]`` for every position p of
``indices`` (same rank as input_x, each axis no longer than input_x's).

Updates are applied in order, so with repeated indices the last update wins (``none``/``Update``) or all are
combined. Out-of-range indices of TensorScatter* follow ``bounds`` (ops/bounds.py): ``"raise"`` (what users
call, as MindSpore 2.10's CPU) takes ``[0, n)`` and raises for any other index; ``"ignore"`` (opbuild's own
compositions) counts a negative index from the end and skips an update out of range. TensorScatterElements
counts a negative index from the end and skips an update out of range (MindSpore 2.10's CPU does the same);
with ``bounds="raise"`` (ONNX ScatterElements) an index outside ``[-n, n)`` raises before any update.
No kernel writes out of bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY, FLOATS, HALFS, INTS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .bounds import index_report, norm_bounds, raise_out_of_range
from .primitive import Primitive, apply, defop
from .registry import norm_axis, same_dtype
from .shape_args import static_int

# reduction -> NumPy combine of the current value a and the update b (the C combines are the target's:
# targets/cpu/kernels/scatters.py)
COMBINE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "none": lambda a, b: b,
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
}
ND_OPS = {"TensorScatterUpdate": "none", "TensorScatterAdd": "add", "TensorScatterSub": "sub",
          "TensorScatterMul": "mul", "TensorScatterDiv": "div", "TensorScatterMax": "max",
          "TensorScatterMin": "min"}


# ---- TensorScatter* (ScatterND) -------------------------------------------------------------------------

def _nd_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        x, indices, updates = ins
        allowed = (*FLOATS, *HALFS) if ND_OPS[op] == "div" else ANY if ND_OPS[op] == "none" else \
            tuple(d for d in ANY if d != "bool")
        same_dtype(op, [x, updates], allowed)
        if indices.dtype not in INTS:
            raise ShapeError(op, f"indices must be int32 or int64, got {indices.dtype}", list(ins))
        if indices.rank < 1 or indices.shape[-1] > x.rank:
            raise ShapeError(op, "indices must have rank >= 1 and a last axis no longer than input_x's rank",
                             list(ins))
        k = indices.shape[-1]
        want = indices.shape[:-1] + x.shape[k:]
        if updates.shape != want:
            raise ShapeError(op, f"updates must have shape indices.shape[:-1] + input_x.shape[K:] = {list(want)}",
                             list(ins))
        return [TensorType(x.shape, x.dtype)]

    return infer


def nd_status(attrs: dict, ins: Sequence[TensorType], value: int, position: int) -> str:
    """The message of an ND scatter's report (``OpDef.status``): the entry of ``indices`` out of ``[0, n)``."""
    x, indices = ins[0], ins[1]
    d = position % indices.shape[-1]
    return index_report("indices", indices.shape, value, position, x.shape[d],
                        f"axis {d} of input_x (shape {tuple(x.shape)})", from_end=False)


def nd_reference(reduction: str, x: np.ndarray, indices: np.ndarray, updates: np.ndarray,
                 attrs: dict | None = None, op: str = "") -> np.ndarray:
    """NumPy TensorScatter*: updates applied one index row at a time, in order (``attrs["bounds"]``: see the
    module)."""
    out = x.copy()
    kk = indices.shape[-1]
    if attrs is not None and attrs.get("bounds") == "raise":
        raise_out_of_range(op, nd_status, attrs, x, indices, indices.astype(np.int64),
                           np.asarray(x.shape[:kk], np.int64), from_end=False)
    rows = indices.reshape(-1, kk).astype(np.int64)
    ups = updates.reshape((rows.shape[0],) + x.shape[kk:])
    fn = COMBINE[reduction]
    with np.errstate(all="ignore"):
        for j, row in enumerate(rows):
            row = np.where(row < 0, row + np.asarray(x.shape[:kk], np.int64), row)
            if np.any(row < 0) or np.any(row >= np.asarray(x.shape[:kk], np.int64)):
                continue
            at = tuple(int(i) for i in row)
            out[at] = fn(out[at], ups[j]).astype(x.dtype) if reduction != "none" else ups[j]
    return out


def _nd_class(op: str) -> type[Primitive]:
    reduction = ND_OPS[op]

    class _Cls(Primitive):
        __doc__ = (f"``{op}()(input_x, indices, updates)``: input_x with the slices named by the rows of "
                   f"``indices`` {'replaced by' if reduction == 'none' else 'combined (' + reduction + ') with'} "
                   f"``updates`` (see the module).")

        def __call__(self, input_x: Any, indices: Any, updates: Any) -> Tensor:
            return apply(op, {"bounds": "raise"}, [input_x, indices, updates])

    _Cls.__name__ = _Cls.__qualname__ = op
    return defop(infer=_nd_infer(op), n_inputs=3, status=nd_status,
                 normalize=lambda attrs, ins: {"bounds": norm_bounds(op, attrs, ins)},
                 reference=lambda attrs, x, i, u: nd_reference(reduction, x, i, u, attrs, op))(_Cls)


PRIMITIVES: dict[str, type[Primitive]] = {op: _nd_class(op) for op in ND_OPS}


# ---- TensorScatterElements (ScatterElements) -------------------------------------------------------------

ELEMENT_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _el_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("TensorScatterElements", "input_x must have rank >= 1", list(ins))
    axis = static_int("TensorScatterElements", "axis", attrs.get("axis", 0), ins)
    reduction = attrs.get("reduction", "none")
    if reduction not in ELEMENT_REDUCTIONS:
        raise ShapeError("TensorScatterElements", f"reduction must be one of {', '.join(ELEMENT_REDUCTIONS)}, "
                         f"got {reduction!r}", list(ins))
    return {"axis": norm_axis("TensorScatterElements", axis, x.rank, ins), "reduction": reduction,
            "bounds": norm_bounds("TensorScatterElements", attrs, ins)}


def _el_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, indices, updates = ins
    allowed = ANY if attrs["reduction"] == "none" else tuple(d for d in ANY if d != "bool")
    same_dtype("TensorScatterElements", [x, updates], allowed)
    if indices.dtype not in INTS:
        raise ShapeError("TensorScatterElements", f"indices must be int32 or int64, got {indices.dtype}", list(ins))
    if indices.shape != updates.shape or indices.rank != x.rank or any(
            i > n for d, (i, n) in enumerate(zip(indices.shape, x.shape, strict=True)) if d != attrs["axis"]):
        raise ShapeError("TensorScatterElements", "indices and updates must have one shape, of input_x's rank, no "
                         "longer than input_x along the axes other than axis", list(ins))
    return [TensorType(x.shape, x.dtype)]


def _el_status(attrs: dict, ins: Sequence[TensorType], value: int, position: int) -> str:
    x, indices = ins[0], ins[1]
    a = attrs["axis"]
    return index_report("indices", indices.shape, value, position, x.shape[a],
                        f"axis {a} of input_x (shape {tuple(x.shape)})")


def elements_reference(attrs: dict, x: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """NumPy TensorScatterElements: updates applied in C order of ``indices`` (``bounds="raise"``: every index
    in ``[-n, n)`` first, else the op's error)."""
    out = x.copy()
    axis, fn = attrs["axis"], COMBINE[attrs["reduction"]]
    n = x.shape[axis]
    if attrs.get("bounds") == "raise":
        raise_out_of_range("TensorScatterElements", _el_status, attrs, x, indices, indices.astype(np.int64), n)
    with np.errstate(all="ignore"):
        for p in np.ndindex(*indices.shape):
            i = int(indices[p])
            i = i + n if i < 0 else i
            if not 0 <= i < n:
                continue
            at = p[:axis] + (i,) + p[axis + 1:]
            out[at] = updates[p] if attrs["reduction"] == "none" else fn(out[at], updates[p])
    return out


@defop(infer=_el_infer, reference=elements_reference, normalize=_el_normalize, n_inputs=3, status=_el_status)
class TensorScatterElements(Primitive):
    """``TensorScatterElements(axis=0, reduction="none")(input_x, indices, updates)``: input_x with
    ``out[p with p[axis] := indices[p]]`` replaced by (or combined with, ``reduction`` add/mul/max/min)
    ``updates[p]``. An index out of ``[-n, n)`` is skipped, as MindSpore 2.10's CPU does (ONNX's
    ScatterElements, whose specification makes it an error, passes ``bounds="raise"``)."""

    def __init__(self, axis: int = 0, reduction: str = "none"):
        super().__init__(axis=axis, reduction=reduction)


PRIMITIVES["TensorScatterElements"] = TensorScatterElements

from . import scatters_grad  # noqa: E402,F401  (attaches the gradient rules)

__all__ = ["COMBINE", "ELEMENT_REDUCTIONS", "ND_OPS", "PRIMITIVES", "TensorScatterElements",
           "elements_reference", "nd_reference"]
