"""More of MindSpore's math functions: the elementwise math rows (``ops.sign``, ``ops.tan``, ``ops.asin``,
..., ``ops.atan2``, the bitwise ops) and compositions (``ops.arange``, ``ops.addcdiv``, ``ops.addcmul``,
``ops.addn``, ``ops.mm``, ``ops.tensor_dot``, ``ops.count_nonzero``, ``ops.repeat_interleave``,
``ops.sequence_mask``, ``ops.select``), with MindSpore 2.10's names, argument names and defaults."""

from __future__ import annotations

import builtins
import string
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..compose import TENSORS
from ..compose import einsum as E
from ..primitive import apply
from .base import binary, promote, unary
from .int_inputs import gemm, int_unary, through_int32


def _unary_fn(op: str, pyname: str):
    def fn(input) -> Tensor:  # noqa: A002 - MindSpore's argument name
        return unary(op, as_tensor(input))

    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = f"``ops.{pyname}(input)``: elementwise, the {op} primitive."
    return fn


def _binary_fn(op: str, pyname: str):
    def fn(input, other) -> Tensor:  # noqa: A002
        return binary(op, input, other)

    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = f"``ops.{pyname}(input, other)``: elementwise with broadcasting, the {op} primitive."
    return fn


sign = _unary_fn("Sign", "sign")
tan = _unary_fn("Tan", "tan")
asin = arcsin = _unary_fn("Asin", "asin")
acos = arccos = _unary_fn("ACos", "acos")
atan = arctan = _unary_fn("Atan", "atan")
sinh = _unary_fn("Sinh", "sinh")
cosh = _unary_fn("Cosh", "cosh")
asinh = arcsinh = _unary_fn("Asinh", "asinh")
acosh = arccosh = _unary_fn("Acosh", "acosh")
atanh = arctanh = _unary_fn("Atanh", "atanh")
expm1 = _unary_fn("Expm1", "expm1")
log1p = _unary_fn("Log1p", "log1p")


def trunc(input) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.trunc(input)``: round toward zero; integer and bool tensors come back as they are (MindSpore)."""
    return int_unary("Trunc", as_tensor(input), "same")


isinf = _unary_fn("IsInf", "isinf")
invert = _unary_fn("Invert", "invert")
atan2 = arctan2 = _binary_fn("Atan2", "atan2")
_LOGICAL = {"BitwiseAnd": "LogicalAnd", "BitwiseOr": "LogicalOr", "BitwiseXor": "NotEqual"}


def _bitwise_fn(op: str, pyname: str):
    def fn(input, other) -> Tensor:  # noqa: A002
        a, b = promote(input, other)
        if a.dtype.name == "bool" and b.dtype.name == "bool":  # bits of a bool are its truth value
            return apply(_LOGICAL[op], {}, [a, b])
        if a.dtype.is_float or a.dtype.is_complex:
            raise TypeError(f"{pyname}: input and other must be integer or bool tensors, got {a.dtype}")
        return apply(op, {}, [a, b])

    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = (f"``ops.{pyname}(input, other)``: elementwise bitwise {pyname[8:].upper()} of integer tensors "
                  "(int8..int64, uint8..uint64; bool tensors give the logical operation), with broadcasting and "
                  "MindSpore's implicit promotion.")
    return fn


bitwise_and = _bitwise_fn("BitwiseAnd", "bitwise_and")
bitwise_or = _bitwise_fn("BitwiseOr", "bitwise_or")
bitwise_xor = _bitwise_fn("BitwiseXor", "bitwise_xor")


def arange(start=0, end=None, step=1, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.arange(start=0, end=None, step=1, *, dtype=None)``: ``[start, end)`` by ``step`` (``end`` None:
    ``[0, start)``). Without ``dtype``: int64 when every bound is an int, else float32. A constant."""
    if end is None:
        start, end = 0, start
    bounds = [b.asnumpy().item() if isinstance(b, Tensor) else b for b in (start, end, step)]
    if step == 0:
        raise ValueError("arange: step must not be 0")
    if dtype is None:
        name = "int64" if all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in bounds) \
            else "float32"
    else:
        name = dtype_of(dtype).name
    return Tensor(np.arange(*bounds, dtype=np.float64 if name.startswith("float") else np.int64).astype(name))


def addcdiv(input, tensor1, tensor2, value=1) -> Tensor:  # noqa: A002
    """``ops.addcdiv(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 / tensor2``."""
    x = as_tensor(input)
    return binary("Add", x, binary("Mul", binary("RealDiv", tensor1, tensor2), as_tensor(value, x)))


def addcmul(input, tensor1, tensor2, value=1) -> Tensor:  # noqa: A002
    """``ops.addcmul(input, tensor1, tensor2, value=1)``: ``input + value * tensor1 * tensor2``."""
    x = as_tensor(input)
    return binary("Add", x, binary("Mul", binary("Mul", tensor1, tensor2), as_tensor(value, x)))


def addn(x: Sequence) -> Tensor:
    """``ops.addn(x)``: the sum of a tuple or list of tensors of one shape and dtype."""
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError("addn: x must be a non-empty tuple or list of tensors")
    ts = [as_tensor(t) for t in x]
    if len({(t.shape, t.dtype.name) for t in ts}) != 1:
        raise ValueError("addn: every tensor must have the same shape and dtype")
    out = ts[0]
    op = "LogicalOr" if out.dtype.name == "bool" else "Add"  # MindSpore 2.10's sum of bools: their or (recorded)
    for t in ts[1:]:
        out = apply(op, {}, [out, t])
    return out


def mm(input, mat2) -> Tensor:  # noqa: A002
    """``ops.mm(input, mat2)``: the matrix product of two 2-D tensors."""
    a, b = as_tensor(input), as_tensor(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"mm: input and mat2 must be 2-D, got ranks {a.ndim} and {b.ndim}")
    return gemm("MatMul", {"transpose_a": False, "transpose_b": False}, a, b)


def tensor_dot(x1, x2, axes) -> Tensor:
    """``ops.tensor_dot(x1, x2, axes)``: ``numpy.tensordot``: ``axes`` an int N (the last N axes of x1 with
    the first N of x2) or two sequences of axes."""
    a, b = as_tensor(x1), as_tensor(x2)
    if isinstance(axes, int):
        ax_a, ax_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        ax_a, ax_b = ([v] if isinstance(v, int) else list(v) for v in axes)
    ax_a, ax_b = [v % a.ndim for v in ax_a], [v % b.ndim for v in ax_b]
    if len(ax_a) != len(ax_b):
        raise ValueError(f"tensor_dot: axes name {len(ax_a)} axes of x1 and {len(ax_b)} of x2")
    letters = iter(string.ascii_letters)
    ta = [next(letters) for _ in range(a.ndim)]
    tb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b, strict=True):
        tb[j] = ta[i]
    out = [c for i, c in enumerate(ta) if i not in ax_a] + [c for j, c in enumerate(tb) if j not in ax_b]
    eq = f"{''.join(ta)},{''.join(tb)}->{''.join(out)}"
    return through_int32(a, b, lambda x, y: E.einsum(TENSORS, eq, [x, y], [x.shape, y.shape], x.dtype.name))


def count_nonzero(x, axis=(), keep_dims: bool = False, dtype: DType | str = "int32") -> Tensor:
    """``ops.count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32)``: the number of non-zero
    elements over ``axis`` (``()``: every axis)."""
    t = as_tensor(x)
    nz = apply("Cast", {"dtype": "int64"}, [apply("NotEqual", {}, [t, as_tensor(0, t) if t.dtype.name != "bool"
                                                                   else Tensor(np.zeros((), bool))])])
    out = apply("ReduceSum", {"axis": axis, "keep_dims": bool(keep_dims)}, [nz])
    name = "int32" if dtype is None else dtype_of(dtype).name  # Tensor.count_nonzero passes None: the default
    return out if name == "int64" else apply("Cast", {"dtype": name}, [out])


def repeat_interleave(input, repeats, axis: int | None = None) -> Tensor:  # noqa: A002
    """``ops.repeat_interleave(input, repeats, axis=None)``: each element (``axis`` None: of the flattened
    input) repeated ``repeats`` times (an int, or one count per element along ``axis``)."""
    x = as_tensor(input)
    if axis is None:
        x = apply("Reshape", {"shape": [x.size]}, [x])
        axis = 0
    axis %= builtins.max(x.ndim, 1)
    reps = repeats.asnumpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    index = np.repeat(np.arange(x.shape[axis], dtype=np.int64), reps.astype(np.int64).reshape(-1)
                      if reps.size > 1 else int(reps.reshape(-1)[0]))
    return apply("Gather", {"axis": axis}, [x, Tensor(index)])


def sequence_mask(lengths, maxlen: int | None = None) -> Tensor:
    """``ops.sequence_mask(lengths, maxlen=None)``: ``out[..., j] = j < lengths[...]`` (bool), ``maxlen``
    columns (None: the largest length, which must then be known: a constant tensor or PyNative)."""
    t = as_tensor(lengths)
    if maxlen is None:
        if t._data is None:
            raise ValueError("sequence_mask: maxlen=None needs the lengths' values; pass maxlen in graph mode")
        maxlen = int(t.asnumpy().max()) if t.size else 0
    iota = Tensor(np.arange(int(maxlen), dtype=t.dtype.np_dtype))
    return apply("Less", {}, [iota, apply("ExpandDims", {"axis": t.ndim}, [t])])


def select(condition, input, other) -> Tensor:  # noqa: A002 - MindSpore 2.10's argument names
    """``ops.select(condition, input, other)``: ``input`` where ``condition`` else ``other`` (one of them may
    be a number, or both: then the output has the condition's shape and the numbers' dtype)."""
    cond, x, y = condition, input, other
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        c = as_tensor(cond)
        a0 = as_tensor(x)
        b0 = as_tensor(y)
        if a0.dtype != b0.dtype:  # an int and a float: both float32, MindSpore's default float
            a0, b0 = (apply("Cast", {"dtype": "float32"}, [t]) for t in (a0, b0))
        a = apply("BroadcastTo", {"shape": tuple(c.shape)}, [a0])
        return apply("Select", {}, [c, a, apply("BroadcastTo", {"shape": tuple(c.shape)}, [b0])])
    a = as_tensor(x, y if isinstance(y, Tensor) else None)
    b = as_tensor(y, a)
    return apply("Select", {}, [as_tensor(cond), a, b])


__all__ = ["sign", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh", "asinh", "arcsinh",
           "acosh", "arccosh", "atanh", "arctanh", "expm1", "log1p", "trunc", "isinf", "invert", "atan2", "arctan2",
           "bitwise_and", "bitwise_or", "bitwise_xor", "arange", "addcdiv", "addcmul", "addn", "mm", "tensor_dot",
           "count_nonzero", "repeat_interleave", "sequence_mask", "select"]
