"""Reductions: ReduceSum/Mean/Max/Min/Prod over a set of axes, and ArgMax/ArgMin along one axis.

Each reduction is one row of a table: its dtypes, whether integers wrap, whether it divides by the count,
whether an empty reduction is defined, and its NumPy reference (the combine expression and neutral element of
the CPU's kernels are in targets/cpu/kernels/reduction.py). Call arguments (``axis``) become canonical
attributes in ``normalize``: negative axes made positive, ``()`` expanded to every axis, a sorted tuple; so
``ReduceSum()(x)`` and ``ReduceSum()(x, (1, 0))`` of a rank-2 ``x`` share one kernel. float16 and bfloat16
reduce in float32 and round once; their reference is NumPy's float32 reduction, rounded once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import ALL_FLOATS, ALL_NUMERIC, BY_NAME, dtype_of, int32
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, declare
from .registry import OpDef, norm_axis, same_dtype


@dataclass(frozen=True)
class Reduction:
    """A reduction: its dtypes and NumPy reference, whether ints accumulate with wrap-around (as
    ``np.sum(x, dtype=x.dtype)``), whether it divides by the count (mean), whether an empty reduction is
    defined (max/min of nothing is not), and what it computes (for its docstring)."""

    dtypes: tuple[str, ...]
    ref: Callable[..., np.ndarray]
    wraps: bool = False
    mean: bool = False
    empty_ok: bool = True
    what: str = ""


def _ref(fn: Callable, typed: bool) -> Callable:
    """NumPy reference over the canonical axes; ``typed`` keeps the input dtype as accumulator (wrap-around
    for ints: NumPy would otherwise promote int32 sums to int64). Half types reduce in float32 and round
    once, as the kernels do."""

    def ref(attrs: dict, x: np.ndarray) -> np.ndarray:
        half = BY_NAME[x.dtype.name].is_half
        w = x.astype(np.float32) if half else x
        kw = {"dtype": w.dtype} if typed else {}
        with np.errstate(all="ignore"):
            out = fn(w, axis=tuple(attrs["axis"]), keepdims=attrs["keep_dims"], **kw)
        return np.asarray(out).astype(x.dtype) if half else out

    return ref


REDUCTIONS: dict[str, Reduction] = {
    "ReduceSum": Reduction(ALL_NUMERIC, _ref(np.sum, True), wraps=True, what="sum"),
    "ReduceMean": Reduction(ALL_FLOATS, _ref(np.mean, True), mean=True, what="mean (floats only)"),
    "ReduceProd": Reduction(ALL_NUMERIC, _ref(np.prod, True), wraps=True, what="product"),
    "ReduceMax": Reduction(ALL_NUMERIC, _ref(np.max, False), empty_ok=False,
                           what="maximum (NaN-propagating, like np.max)"),
    "ReduceMin": Reduction(ALL_NUMERIC, _ref(np.min, False), empty_ok=False,
                           what="minimum (NaN-propagating, like np.min)"),
}


# ---- attributes and shape inference --------------------------------------------------------------

def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def reduce_axes(op: str, axis, ins: Sequence[TensorType]) -> tuple[int, ...]:
    """Canonical reduction axes of ``ins[0]``: an int or a tuple/list of ints, negative allowed, ``()`` (or
    None) meaning every axis; returns a sorted tuple of distinct non-negative axes."""
    rank = ins[0].rank
    if axis is None:
        axis = ()
    if _is_int(axis):
        axis = (axis,)
    if not isinstance(axis, (tuple, list)) or not all(_is_int(a) for a in axis):
        raise ShapeError(op, f"axis must be an int or a tuple of ints, got {axis!r}", list(ins))
    if not axis:
        return tuple(range(rank))
    if rank == 0:
        raise ShapeError(op, f"axis {tuple(axis)} is out of range for a rank-0 input (use axis=())", list(ins))
    axes = [norm_axis(op, a, rank, ins) for a in axis]
    if len(set(axes)) != len(axes):
        raise ShapeError(op, f"axis {tuple(axis)} names the same axis twice (rank {rank})", list(ins))
    return tuple(sorted(axes))


def _reduce_normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        unknown = set(attrs) - {"axis", "keep_dims"}
        if unknown:
            raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected keep_dims, axis)", list(ins))
        keep = attrs.get("keep_dims", False)
        if not isinstance(keep, (bool, np.bool_)):
            raise ShapeError(op, f"keep_dims must be a bool, got {keep!r}", list(ins))
        return {"axis": reduce_axes(op, attrs.get("axis", ()), ins), "keep_dims": bool(keep)}

    return normalize


def _reduce_infer(op: str, r: Reduction) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(op, ins, r.dtypes)
        shape, axes = ins[0].shape, attrs["axis"]
        if not r.empty_ok and any(shape[a] == 0 for a in axes):
            raise ShapeError(op, f"cannot reduce over axis {tuple(axes)}: it has size 0 and {op} of nothing is "
                                 "undefined", list(ins))
        out = tuple((1 if d in axes else s) for d, s in enumerate(shape) if attrs["keep_dims"] or d not in axes)
        return [TensorType(out, dt)]

    return infer


# ---- C emission -------------------------------------------------------------------------------------


def _reduce_init(self, keep_dims: bool = False) -> None:
    Primitive.__init__(self, keep_dims=keep_dims)


# MindSpore 2.10's ReduceSum and ReduceProd primitives give a bool tensor's any and all, as bool (recorded); the
# kernels reduce numbers, so a bool input is summed (multiplied) as int64 and compared back to bool.
_BOOL_REDUCE = ("ReduceSum", "ReduceProd")


def _int_mean(attrs: dict, x) -> Tensor:
    # MindSpore 2.10's ReduceMean of an integer tensor keeps its dtype, the mean truncated toward zero (recorded,
    # as ops.mean): an int64 sum divided in float64 and truncated.
    total = apply("ReduceSum", attrs, [apply("Cast", {"dtype": "int64"}, [x])])
    count = Tensor(np.float64(max(int(np.prod(x.shape)), 1) // max(int(np.prod(total.shape)), 1)))
    mean = apply("RealDiv", {}, [apply("Cast", {"dtype": "float64"}, [total]), count])
    return apply("Cast", {"dtype": x.dtype.name}, [apply("Trunc", {}, [mean])])


def _reduce_call(self, x, axis=()):
    attrs = {**self.attrs, "axis": axis}
    name = getattr(getattr(x, "dtype", None), "name", None)
    if self.op_name in _BOOL_REDUCE and name == "bool":
        counts = apply(self.op_name, attrs, [apply("Cast", {"dtype": "int64"}, [x])])
        return apply("Cast", {"dtype": "bool"}, [counts])
    if self.op_name == "ReduceMean" and name is not None and name != "bool" and dtype_of(name).is_int:
        return _int_mean(attrs, x)
    return apply(self.op_name, attrs, [x])


PRIMITIVES: dict[str, type[Primitive]] = {
    name: declare(
        OpDef(name, _reduce_infer(name, r), r.ref, normalize=_reduce_normalize(name), n_inputs=1),
        f"{name}(keep_dims=False)(x, axis=()): the {r.what} of x over ``axis`` (an int or a tuple of ints, "
        "negative allowed; () means every axis). keep_dims keeps reduced axes with size 1.",
        call=_reduce_call, init=_reduce_init)
    for name, r in REDUCTIONS.items()
}


# ---- ArgMax / ArgMin ----------------------------------------------------------------------------------


def _arg_normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        unknown = set(attrs) - {"axis", "output_type"}
        if unknown:
            raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected axis, output_type)", list(ins))
        if ins[0].rank == 0:
            raise ShapeError(op, "input must have rank >= 1", list(ins))
        axis = norm_axis(op, attrs.get("axis", -1), ins[0].rank, ins)
        try:
            out = dtype_of(attrs.get("output_type", int32)).name
        except TypeError as e:
            raise ShapeError(op, str(e), list(ins)) from None
        if out not in ("int32", "int64"):
            raise ShapeError(op, f"output_type must be int32 or int64, got {out}", list(ins))
        return {"axis": axis, "output_type": out}

    return normalize


def _arg_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        same_dtype(op, ins, ALL_NUMERIC)
        shape, axis = ins[0].shape, attrs["axis"]
        if shape[axis] == 0:
            raise ShapeError(op, f"axis {axis} has size 0: {op} of nothing is undefined", list(ins))
        if attrs["output_type"] == "int32" and shape[axis] > 2**31 - 1:
            raise ShapeError(op, f"axis {axis} is too long for output_type int32", list(ins))
        return [TensorType(shape[:axis] + shape[axis + 1:], attrs["output_type"])]

    return infer


def _arg_ref(fn: Callable) -> Callable:
    def ref(attrs: dict, x: np.ndarray) -> np.ndarray:
        return fn(x, axis=attrs["axis"]).astype(attrs["output_type"])

    return ref


def _arg_init(self, axis: int = -1, output_type=int32) -> None:
    Primitive.__init__(self, axis=axis, output_type=output_type)


for _name, _is_max, _what, _fn in (("ArgMax", True, "largest", np.argmax), ("ArgMin", False, "smallest", np.argmin)):
    PRIMITIVES[_name] = declare(
        OpDef(_name, _arg_infer(_name), _arg_ref(_fn), normalize=_arg_normalize(_name),
              n_inputs=1),
        f"{_name}(axis=-1, output_type=int32)(x): index of the {_what} element along ``axis`` (the first "
        "one on ties; the first NaN if any, like NumPy). output_type is int32 or int64.", init=_arg_init)
# MindSpore spells the primitives ops.Argmax / ops.Argmin.
PRIMITIVES["Argmax"] = PRIMITIVES["ArgMax"]
PRIMITIVES["Argmin"] = PRIMITIVES["ArgMin"]


# ---- gradient rules -----------------------------------------------------------------------------------

from . import gradlib as G  # noqa: E402
from .registry import grad_rule, no_grad  # noqa: E402

no_grad("ArgMax", "ArgMin")  # integer outputs


def _keepdims(attrs: dict, x, g):
    """A reduction's output (or cotangent) ``g`` with its reduced axes restored as size 1, so it broadcasts
    against the input ``x``."""
    shape = [1 if d in attrs["axis"] else n for d, n in enumerate(x.shape)]
    return G.reshape(g, shape)


@grad_rule("ReduceSum")
def _sum_grad(attrs, ins, outs, douts):
    return [G.broadcast_to(_keepdims(attrs, ins[0], douts[0]), ins[0].shape)]


@grad_rule("ReduceMean")
def _mean_grad(attrs, ins, outs, douts):
    x = ins[0]
    count = x._type.size // max(outs[0]._type.size, 1)
    return [G.broadcast_to(G.div(_keepdims(attrs, x, douts[0]), float(max(count, 1))), x.shape)]


@grad_rule("ReduceMax", "ReduceMin")
def _minmax_grad(attrs, ins, outs, douts):
    # MindSpore's _min_or_max_grad: the cotangent is shared equally by every element equal to the extremum.
    x = ins[0]
    hit = G.mask(apply("Equal", {}, [x, _keepdims(attrs, x, outs[0])]), x)
    share = G.div(_keepdims(attrs, x, douts[0]), G.reduce_sum(hit, attrs["axis"], keep_dims=True))
    return [G.mul(hit, share)]


@grad_rule("ReduceProd")
def _prod_grad(attrs, ins, outs, douts):
    # d prod / d x_i is the product of the group's other elements. prod / x_i is that only when no element
    # is 0, so the zeros are counted: none gives p / x_i with p the group's product; exactly one gives the
    # product of the nonzero elements at the zero and 0 elsewhere; two or more give 0 everywhere (every
    # "other" product still holds a zero). PyTorch's and JAX's rule; MindSpore reaches the same through
    # exclusive cumulative products.
    x = ins[0]
    axis = attrs["axis"]
    is_zero = apply("Equal", {}, [x, G.const(0, x)])
    nonzero = G.select(is_zero, G.add(G.zeros_like(x), G.const(1, x)), x)  # zeros replaced by 1
    p_nonzero = apply("ReduceProd", {"axis": tuple(axis), "keep_dims": True}, [nonzero])
    zeros = G.reduce_sum(G.mask(is_zero, x), axis, keep_dims=True)
    none_zero = G.div(p_nonzero, nonzero)  # the product of the others where the group has no zero
    one_zero = G.mul(G.mask(is_zero, x), p_nonzero)  # at the single zero: the product of the nonzero ones
    others = G.select(apply("Equal", {}, [zeros, G.const(0, x)]), G.broadcast_to(none_zero, x.shape),
                      G.mul(G.mask(apply("Equal", {}, [zeros, G.const(1, x)]), x), one_zero))
    return [G.mul(_keepdims(attrs, x, douts[0]), others)]
