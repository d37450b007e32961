"""Array functions: products (``matmul``, ``bmm``), joining and splitting, shape changes, gathering and
creation (``ones``, ``full``, ``one_hot``), with MindSpore 2.x's names and arguments."""

from __future__ import annotations

import builtins
import math
import numbers
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..registry import norm_axis
from .gather_batch import gather_batched as _gather_batched
from .int_inputs import gemm

Shape = int | Sequence[int]


def _is_int(d) -> bool:
    return isinstance(d, numbers.Integral) and not isinstance(d, (bool, np.bool_))


def _shape(size: Shape) -> tuple[int, ...]:
    """A shape argument as a tuple of ints. Floats and bools are refused, as MindSpore refuses them: ``int()``
    would turn ``(2.5, 3)`` into ``(2, 3)`` without a word."""
    if isinstance(size, Tensor):
        if size.dtype.name.startswith(("int", "uint")):
            size = size.asnumpy().tolist()
        else:
            raise TypeError(f"shape: a Tensor shape must hold integers, got a {size.dtype.name} Tensor")
    if _is_int(size):
        return (int(size),)
    if not isinstance(size, (tuple, list)) or not all(_is_int(d) or isinstance(d, Tensor) for d in size):
        raise TypeError(f"shape must be an int or a tuple/list of ints, got {size!r}")
    return tuple(d.__index__() if isinstance(d, Tensor) else int(d) for d in size)


def matmul(input, other) -> Tensor:
    """``ops.matmul(input, other)``: NumPy's matmul: 2-D x 2-D is MatMul; higher ranks are batched with
    broadcast batch dims (BatchMatMul); a 1-D operand gets a unit axis added and removed again."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: both operands must have rank >= 1 (use ops.mul for scalars)")
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = reshape(a, (1, a.shape[0]))
    if vb:
        b = reshape(b, (b.shape[0], 1))
    op = "MatMul" if a.ndim == b.ndim == 2 else "BatchMatMul"
    out = _complex_matmul(op, a, b) if a.dtype.is_complex or b.dtype.is_complex else gemm(op, {}, a, b)
    if va or vb:
        shape = out.shape[:-2] + (() if va else out.shape[-2:-1]) + (() if vb else out.shape[-1:])
        out = reshape(out, shape)
    return out


def _complex_matmul(op: str, a: Tensor, b: Tensor) -> Tensor:
    """A complex product from four real ones on the GEMM kernels: (ar + i ai)(br + i bi) = (ar br - ai bi)
    + i (ar bi + ai br). Both operands must be of one complex dtype, as MindSpore requires."""
    if a.dtype != b.dtype:
        raise TypeError(f"matmul: both operands must have the same dtype, got {a.dtype} and {b.dtype} "
                        "(cast the real one with ops.cast(x, mindspore.complex64))")
    ar, ai, br, bi = (apply(part, {}, [t]) for t in (a, b) for part in ("Real", "Imag"))
    real = apply("Sub", {}, [apply(op, {}, [ar, br]), apply(op, {}, [ai, bi])])
    imag = apply("Add", {}, [apply(op, {}, [ar, bi]), apply(op, {}, [ai, br])])
    return apply("Complex", {}, [real, imag])


def bmm(input_x, mat2) -> Tensor:
    """``ops.bmm(input_x, mat2)``: batched matrix product of tensors of rank >= 3 (batch dims broadcast)."""
    return gemm("BatchMatMul", {}, as_tensor(input_x), as_tensor(mat2))


def cat(tensors: Sequence, axis: int = 0) -> Tensor:
    """``ops.cat(tensors, axis=0)`` (alias ``concat``): join tensors along an existing axis."""
    return apply("Concat", {"axis": axis}, [as_tensor(t) for t in tensors])


concat = cat


def stack(tensors: Sequence, axis: int = 0) -> Tensor:
    """``ops.stack(tensors, axis=0)``: join same-shape tensors along a new axis."""
    ts = [as_tensor(t) for t in tensors]
    if not ts:
        raise ValueError("stack: needs at least one tensor")
    ax = norm_axis("stack", axis, ts[0].ndim + 1)
    return cat([apply("ExpandDims", {"axis": ax}, [t]) for t in ts], ax)


def split(tensor, split_size_or_sections: int | Sequence[int], axis: int = 0) -> tuple[Tensor, ...]:
    """``ops.split(tensor, split_size_or_sections, axis=0)``: an int splits into chunks of that size (the
    last one smaller if it does not divide); a list gives each chunk's size (they must add up)."""
    x = as_tensor(tensor)
    # MindSpore checks the chunk size before the axis (mindcv's JSD loss, calling split(x, 0, 3), gets its error)
    if isinstance(split_size_or_sections, numbers.Integral) and int(split_size_or_sections) <= 0:
        raise ValueError(f"split: split_size_or_sections must be positive, got {int(split_size_or_sections)}")
    ax = norm_axis("split", axis, x.ndim)
    n = x.shape[ax]
    if isinstance(split_size_or_sections, numbers.Integral):
        size = int(split_size_or_sections)
        if n % size == 0 and n:  # equal chunks: one Split kernel
            return apply("Split", {"axis": ax, "output_num": n // size}, [x])
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise ValueError(f"split: sections {sizes} do not add up to the axis size {n}")
    outs, start = [], 0
    for s in sizes:
        begin = [0] * x.ndim
        begin[ax] = start
        outs.append(apply("Slice", {"begin": begin, "size": [*x.shape[:ax], s, *x.shape[ax + 1:]]}, [x]))
        start += s
    return tuple(outs)



def reshape(input, shape: Shape) -> Tensor:
    """``ops.reshape(input, shape)``: same elements, new shape (one -1 is inferred)."""
    return apply("Reshape", {"shape": _shape(shape)}, [as_tensor(input)])


def transpose(input, input_perm: Sequence[int]) -> Tensor:
    """``ops.transpose(input, input_perm)``: permute the axes (negative axes allowed)."""
    return apply("Transpose", {"perm": tuple(input_perm)}, [as_tensor(input)])


def permute(input, axis: Sequence[int]) -> Tensor:
    """``ops.permute(input, axis)``: :func:`transpose` under its 2.x name."""
    return transpose(input, axis)


def squeeze(input, axis: int | Sequence[int] | None = None) -> Tensor:
    """``ops.squeeze(input, axis=None)``: drop size-1 axes (all of them when ``axis`` is None)."""
    return apply("Squeeze", {"axis": () if axis is None else axis}, [as_tensor(input)])


def expand_dims(input_x, axis: int) -> Tensor:
    """``ops.expand_dims(input_x, axis)``: insert a size-1 axis at ``axis`` (negative counts from the end)."""
    x = as_tensor(input_x)
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and not -x.ndim - 1 <= axis <= x.ndim:
        # MindSpore refuses it too; taken modulo the new rank, it gave another shape without a word.
        raise ValueError(f"expand_dims: axis {axis} is out of range [{-x.ndim - 1}, {x.ndim}] for a {x.ndim}-D "
                         "input")
    return apply("ExpandDims", {"axis": axis}, [x])


def unsqueeze(input, dim: int) -> Tensor:
    """``ops.unsqueeze(input, dim)``: :func:`expand_dims` under its 2.x name."""
    return expand_dims(input, dim)


def flatten(input, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """``ops.flatten(input, order='C', *, start_dim=1, end_dim=-1)``: merge axes start_dim..end_dim."""
    if order != "C":
        raise ValueError(f"flatten: only order='C' is supported, got {order!r}")
    x = as_tensor(input)
    if x.ndim == 0:
        return reshape(x, (1,))
    s, e = norm_axis("flatten", start_dim, x.ndim), norm_axis("flatten", end_dim, x.ndim)
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
    return reshape(x, (*x.shape[:s], math.prod(x.shape[s:e + 1]), *x.shape[e + 1:]))


def gather(input_params, input_indices, axis: int, batch_dims: int = 0) -> Tensor:
    """``ops.gather(input_params, input_indices, axis, batch_dims=0)``: slices along ``axis`` picked by
    integer indices, ``[-n, 0)`` counted from the end (MindSpore's CPU); an index outside ``[-n, n)`` raises a
    KernelInputError (a RuntimeError) when the kernel meets it, as MindSpore raises. With ``batch_dims`` the
    leading axes are shared batch axes (ops/api/gather_batch.py)."""
    params, indices = as_tensor(input_params), as_tensor(input_indices)
    if batch_dims != 0:
        return _gather_batched(params, indices, axis, batch_dims)
    return apply("Gather", {"axis": axis, "bounds": "raise"}, [params, indices])


def tile(input, dims: Sequence[int]) -> Tensor:
    """``ops.tile(input, dims)``: repeat the tensor ``dims[i]`` times along each axis."""
    return apply("Tile", {"multiples": tuple(dims)}, [as_tensor(input)])


def broadcast_to(input, shape: Sequence[int]) -> Tensor:
    """``ops.broadcast_to(input, shape)``: NumPy broadcasting to ``shape`` (-1 keeps an axis)."""
    x = as_tensor(input)
    lead = len(shape) - x.ndim
    full_shape = [x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)]
    return apply("BroadcastTo", {"shape": tuple(full_shape)}, [x])


# ---- creation ------------------------------------------------------------------------------------------

def _fill(shape: tuple[int, ...], value, dtype: DType | str) -> Tensor:
    return apply("Fill", {"dtype": dtype_of(dtype).name, "shape": shape, "value": value}, [])


def full(size: Shape, fill_value, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.full(size, fill_value, *, dtype=None)``: a tensor of ``fill_value``. dtype None: int64 when
    ``size`` is a tuple of Python ints (MindSpore 2.10 takes the dtype from the size there, so
    ``ops.full((2, 3), 1.2)`` is int64 ones, truncated, and ``ops.full((2,), True)`` int64 ones, as MindSpore's),
    else bool for a bool value, int64 for an int, float32 otherwise."""
    if dtype is None:
        dtype = ("int64" if _int_tuple(size) else "bool" if isinstance(fill_value, bool) else
                 "int64" if isinstance(fill_value, numbers.Integral) else "float32")
        if dtype == "int64" and isinstance(fill_value, (float, bool)):
            fill_value = int(fill_value)
    return _fill(_shape(size), fill_value, dtype)


def _int_tuple(size) -> bool:
    return isinstance(size, (tuple, list)) and all(isinstance(d, int) and not isinstance(d, bool) for d in size)


def ones(shape: Shape, dtype: DType | str | None = None) -> Tensor:
    """``ops.ones(shape, dtype=None)``: ones of ``shape`` (dtype None: float32)."""
    return _fill(_shape(shape), 1, dtype or "float32")


def zeros(size: Shape, dtype: DType | str | None = None) -> Tensor:
    """``ops.zeros(size, dtype=None)``: zeros of ``size`` (dtype None: float32)."""
    return _fill(_shape(size), 0, dtype or "float32")


def _like(op: str, input, dtype) -> Tensor:
    x = as_tensor(input)
    if dtype is not None and dtype_of(dtype).name != x.dtype.name:
        return _fill(x.shape, 1 if op == "OnesLike" else 0, dtype)
    return apply(op, {}, [x])


def ones_like(input, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.ones_like(input, *, dtype=None)``: ones of input's shape (and dtype unless given)."""
    return _like("OnesLike", input, dtype)


def zeros_like(input, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.zeros_like(input, *, dtype=None)``: zeros of input's shape (and dtype unless given)."""
    return _like("ZerosLike", input, dtype)


def one_hot(indices, depth: int, on_value=1, off_value=0, axis: int = -1) -> Tensor:
    """``ops.one_hot(indices, depth, on_value=1, off_value=0, axis=-1)``: ``on_value`` where the new axis'
    position equals the index, else ``off_value``; indices outside [0, depth) give an all-``off_value`` row.

    The output dtype is on_value's when it is a Tensor, else MindSpore's for the Python scalar: int64 for
    ints, float32 for floats.
    """
    ids = as_tensor(indices)
    if ids.dtype.name not in ("int32", "int64"):
        raise TypeError(f"one_hot: indices must be int32 or int64, got {ids.dtype}")
    out_rank = ids.ndim + 1
    if axis != -1 and not 0 <= axis < out_rank:  # MindSpore's range: -1 (last) or a position of the output
        raise ValueError(f"one_hot: axis {axis} is out of range: -1 or 0 to {out_rank - 1} for "
                         f"{ids.ndim}-D indices")
    ax = axis % out_rank
    positions = np.arange(depth, dtype=ids.dtype.np_dtype).reshape(
        [depth if d == ax else 1 for d in range(out_rank)])
    hit = apply("Equal", {}, [apply("ExpandDims", {"axis": ax}, [ids]), Tensor(positions)])
    scalar_dtype = np.int64 if isinstance(on_value, int) and not isinstance(on_value, bool) else np.float32
    on = on_value if isinstance(on_value, Tensor) else Tensor(np.asarray(on_value, scalar_dtype))
    off = as_tensor(off_value, on)
    return apply("Select", {}, [hit, on, off])


__all__ = ["matmul", "bmm", "cat", "concat", "stack", "split", "reshape", "transpose", "permute", "squeeze",
           "expand_dims", "unsqueeze", "flatten", "gather", "tile", "broadcast_to", "full", "ones", "zeros",
           "ones_like", "zeros_like", "one_hot"]
