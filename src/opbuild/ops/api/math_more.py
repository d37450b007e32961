"""Scans, scatters and composed reductions of the functional API (``ops.cumsum``, ``ops.cumprod``,
``ops.logsumexp``, ``ops.vector_norm``, ``ops.norm``, ``ops.tensor_scatter_*``, ``ops.scatter_nd``,
``ops.tensor_scatter_elements``, ``ops.scatter``) with MindSpore 2.10's names, argument names and defaults."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..compose import TENSORS
from ..compose import einsum as E
from ..compose import reductions as N
from ..primitive import apply
from ..sorting import Sort
from .linalg_more import matrix_norm
from .math import wide

Axis = int | Sequence[int] | None


def _cast(x: Tensor, dtype: DType | str | None) -> Tensor:
    if dtype is None:
        return x
    name = dtype_of(dtype).name
    return x if x.dtype.name == name else apply("Cast", {"dtype": name}, [x])


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float or x.dtype.is_complex else apply("Cast", {"dtype": "float32"}, [x])


def _axes(axis: Axis, rank: int) -> list[int]:
    """Canonical (sorted, non-negative) axes; None or () means every axis."""
    if axis is None or (not isinstance(axis, int) and len(axis) == 0):
        return list(range(rank))
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        if not isinstance(a, int) or not -max(rank, 1) <= a < max(rank, 1):
            raise ValueError(f"axis {a!r} is out of range for a tensor of rank {rank}")
    return sorted({a % max(rank, 1) for a in axes})


# ---- scans ----------------------------------------------------------------------------------------------

def cumsum(x, axis: int, dtype: DType | str | None = None) -> Tensor:
    """``ops.cumsum(x, axis, dtype=None)``: the running sum along ``axis`` (x cast to ``dtype`` first)."""
    return apply("CumSum", {"axis": axis, "exclusive": False, "reverse": False}, [_cast(as_tensor(x), dtype)])


def cumprod(input, dim: int, dtype: DType | str | None = None) -> Tensor:
    """``ops.cumprod(input, dim, dtype=None)``: the running product along ``dim`` (``input`` cast to ``dtype``
    first; without one, bool and integer input multiplies as int64, as MindSpore's does)."""
    return apply("CumProd", {"axis": dim, "exclusive": False, "reverse": False}, [wide(as_tensor(input), dtype)])


def cummax(input, axis: int):  # noqa: A002
    """``ops.cummax(input, axis)``: (running maximum, its int64 index) along ``axis``; an element equal to the
    running maximum takes over its index, and a NaN stays once met."""
    return apply("Cummax", {"axis": axis}, [as_tensor(input)])


def cummin(input, axis: int):  # noqa: A002
    """``ops.cummin(input, axis)``: (running minimum, its int32 index) along ``axis`` (ties and NaN as cummax)."""
    return apply("Cummin", {"axis": axis}, [as_tensor(input)])


# ---- composed reductions --------------------------------------------------------------------------------

def logsumexp(input, axis: Axis, keep_dims: bool = False) -> Tensor:
    """``ops.logsumexp(input, axis, keep_dims=False)``: ``log(sum(exp(input)))`` over ``axis``, computed
    with the maximum subtracted first (no overflow for large inputs)."""
    x = _float(as_tensor(input))
    return N.logsumexp(TENSORS, x, _axes(axis, x.ndim), bool(keep_dims), x.dtype.name)


def vector_norm(x, ord=2, axis: Axis = None, keepdims: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """``ops.vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None)``: the ``ord``-norm of the
    elements over ``axis`` (every axis when None): ``sum(|x|^ord)^(1/ord)``; ``inf``/``-inf`` are the max/min
    of ``|x|``, ``0`` counts the non-zero elements."""
    t = _cast(as_tensor(x), dtype)
    if not t.dtype.is_float:
        raise TypeError(f"vector_norm: x must be a float tensor, got {t.dtype} (pass dtype=ms.float32)")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord must be a number, got {ord!r}")
    return N.lp_reduce(TENSORS, t, float(ord), _axes(axis, t.ndim), bool(keepdims), t.dtype.name)


def norm(A, ord=None, dim: Axis = None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """``ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)``: vector norms (``dim`` an int, or
    None with ``ord`` None: the 2-norm of every element) and matrix norms (``dim`` two axes, or None for a
    2-D ``A``, with ``ord`` 'fro', 'nuc', 1, -1, 2, -2, inf or -inf: :func:`matrix_norm`)."""
    t = _cast(as_tensor(A), dtype)
    if not (t.dtype.is_float or t.dtype.is_complex):
        # MindSpore 2.10 norms integer/bool input by composition: roots are float32, the +-inf norms keep the
        # input's dtype, the count (0) and the +-1 matrix norms are int64 (recorded); computed here in float32.
        out = norm(_cast(t, "float32"), ord, dim, keepdim)
        if ord in (float("inf"), float("-inf")) and t.dtype.name != "bool":
            return _cast(out, t.dtype)
        return _cast(out, "int64") if ord in (0, 1, -1) and not isinstance(ord, bool) else out
    if ord is None or ord == "fro":
        if ord == "fro" and dim is not None and (isinstance(dim, int) or len(dim) != 2):
            raise ValueError("norm: ord='fro' needs dim to name two axes (or None)")
        return vector_norm(t, 2, dim, keepdim)
    if isinstance(ord, str) or (dim is not None and not isinstance(dim, int) and len(dim) == 2) or \
            (dim is None and t.ndim == 2):
        if dim is None and t.ndim != 2:
            raise ValueError(f"norm: with dim=None and ord={ord!r}, A must be 2-D (or 1-D for a vector ord), got "
                             f"{t.ndim}-D; pass dim")
        axes = (-2, -1) if dim is None else dim
        if isinstance(axes, int) or len(axes) != 2:
            raise ValueError(f"norm: the matrix norm ord={ord!r} needs dim to name two axes, got {dim!r}")
        return matrix_norm(t, ord, tuple(axes), keepdim)
    return vector_norm(t, ord, dim, keepdim)


def einsum(equation: str, *operands) -> Tensor:
    """``ops.einsum(equation, *operands)``: Einstein summation (``...`` broadcasting, repeated letters take
    diagonals, an implicit output lists the letters used once, alphabetically), as Transpose, ReduceSum and
    BatchMatMul nodes (ops/compose/einsum.py)."""
    ts = [as_tensor(t) for t in operands]
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    return E.einsum(TENSORS, equation, ts, [t.shape for t in ts], ts[0].dtype.name if ts else "float32")


# ---- sorting --------------------------------------------------------------------------------------------

def topk(input, k: int, dim: int | None = None, largest: bool = True, sorted: bool = True):  # noqa: A002
    """``ops.topk(input, k, dim=None, largest=True, sorted=True)``: the ``k`` largest (``largest=False``:
    smallest) elements along ``dim`` (None: the last axis) and their int32 indices; equal elements give the
    smaller index first. The result is always sorted (``sorted=False`` allows any order)."""
    for name, v in (("largest", largest), ("sorted", sorted)):
        if not isinstance(v, bool):
            raise TypeError(f"topk: {name} must be bool, got {v!r}")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"topk: k must be an int, got {k!r}")
    return apply("TopK", {"k": k, "axis": -1 if dim is None else dim, "largest": largest, "sorted": sorted,
                          "index_dtype": "int32"}, [as_tensor(input)])


def sort(input_x, axis: int = -1, descending: bool = False):
    """``ops.sort(input_x, axis=-1, descending=False)``: (sorted values, int32 indices), a stable sort with
    NaN ordered after every number."""
    return Sort(axis, descending)(as_tensor(input_x))


def argsort(input, axis: int = -1, descending: bool = False) -> Tensor:  # noqa: A002
    """``ops.argsort(input, axis=-1, descending=False)``: the int32 indices that sort ``input`` along ``axis``."""
    return sort(input, axis, descending)[1]


# ---- scatters -------------------------------------------------------------------------------------------

def _scatter(op: str):
    def fn(input_x, indices, updates) -> Tensor:
        return apply(op, {"bounds": "raise"}, [as_tensor(input_x), as_tensor(indices), as_tensor(updates)])

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = (f"``ops.{_SNAKE[op]}(input_x, indices, updates)``: the {op} primitive (index rows of "
                  f"``indices`` name slices of ``input_x``).")
    return fn


_SNAKE = {"TensorScatterUpdate": "tensor_scatter_update", "TensorScatterAdd": "tensor_scatter_add",
          "TensorScatterSub": "tensor_scatter_sub", "TensorScatterMul": "tensor_scatter_mul",
          "TensorScatterDiv": "tensor_scatter_div", "TensorScatterMax": "tensor_scatter_max",
          "TensorScatterMin": "tensor_scatter_min"}
tensor_scatter_update = _scatter("TensorScatterUpdate")
tensor_scatter_add = _scatter("TensorScatterAdd")
tensor_scatter_sub = _scatter("TensorScatterSub")
tensor_scatter_mul = _scatter("TensorScatterMul")
tensor_scatter_div = _scatter("TensorScatterDiv")
tensor_scatter_max = _scatter("TensorScatterMax")
tensor_scatter_min = _scatter("TensorScatterMin")


def scatter_nd(indices, updates, shape: Sequence[int]) -> Tensor:
    """``ops.scatter_nd(indices, updates, shape)``: a zero tensor of ``shape`` with ``updates`` added at the
    index rows of ``indices`` (repeated rows add up; an index outside ``[0, n)`` raises, as MindSpore's)."""
    u = as_tensor(updates)
    if u.dtype.name == "bool":  # MindSpore 2.10 takes bool updates (repeated rows: their or); added as int32
        return apply("Cast", {"dtype": "bool"}, [scatter_nd(indices, apply("Cast", {"dtype": "int32"}, [u]), shape)])
    zeros = Tensor(np.zeros(tuple(int(d) for d in shape), u.dtype.np_dtype))
    return apply("TensorScatterAdd", {"bounds": "raise"}, [zeros, as_tensor(indices), u])


def tensor_scatter_elements(input_x, indices, updates, axis: int = 0, reduction: str = "none") -> Tensor:
    """``ops.tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none")``."""
    return apply("TensorScatterElements", {"axis": axis, "reduction": reduction},
                 [as_tensor(input_x), as_tensor(indices), as_tensor(updates)])


def scatter(input, axis: int, index, src) -> Tensor:
    """``ops.scatter(input, axis, index, src)``: ``tensor_scatter_elements`` with reduction none."""
    return tensor_scatter_elements(input, index, src, axis)


__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logsumexp", "vector_norm", "norm", "einsum", "topk", "sort",
           "argsort", *_SNAKE.values(), "scatter_nd", "tensor_scatter_elements", "scatter"]
