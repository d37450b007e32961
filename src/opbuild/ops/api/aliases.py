"""Simple names and aliases of ``mindspore.ops``: constructors (``eye``, ``fill``, ``full_like``, ``range``,
``linspace``, ``logspace``, ``scalar_to_tensor``, ``tuple_to_array``), shape queries (``numel``, ``rank``,
``shape``, ``size``), elementwise aliases (``positive``, ``subtract``, ``eq``, ``sgn``, ``signbit``,
``floor_div``, ``floor_mod``, ``truncate_div``, ``truncate_mod``, ``isreal``), dtype predicates, slicing (``slice``,
``strided_slice``) and the boolean reductions ``all``/``any``.

``range``, ``slice``, ``all`` and ``any`` shadow builtins here as in MindSpore, so this module calls the builtins
through ``builtins``. All compose registered primitives, so they trace and differentiate like their parts;
the constructors are constants.
"""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .base import binary, promote


def _t(x) -> Tensor:
    return as_tensor(x)


def eye(n: int, m: int | None = None, dtype: DType | str | None = None) -> Tensor:
    """``ops.eye(n, m=None, dtype=None)``: an ``n`` x ``m`` identity matrix (float32 by default)."""
    m = n if m is None else m
    if not builtins.all(isinstance(v, numbers.Integral) and v >= 0 for v in (n, m)):
        raise ValueError(f"eye: n and m must be non-negative ints, got n={n!r}, m={m!r}")
    dt = dtype_of(dtype if dtype is not None else "float32")
    return Tensor(np.eye(int(n), int(m)).astype(dt.np_dtype), dtype=dt)


def fill(type, shape: Sequence[int], value) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.fill(type, shape, value)``: a tensor of ``shape`` filled with ``value``, of dtype ``type``."""
    dt = dtype_of(type)
    v = value.asnumpy().item() if isinstance(value, Tensor) else value
    return Tensor(np.full(tuple(int(d) for d in shape), v).astype(dt.np_dtype), dtype=dt)


def full_like(input, fill_value, *, dtype: DType | str | None = None) -> Tensor:  # noqa: A002
    """``ops.full_like(input, fill_value, *, dtype=None)``: ``input``'s shape filled with ``fill_value``
    (``input``'s dtype unless ``dtype`` is given)."""
    x = _t(input)
    dt = dtype_of(dtype) if dtype is not None else x.dtype
    v = fill_value.asnumpy().item() if isinstance(fill_value, Tensor) else fill_value
    return Tensor(np.full(tuple(x.shape), v).astype(dt.np_dtype), dtype=dt)


def numel(input) -> int:  # noqa: A002
    """``ops.numel(input)``: the number of elements."""
    return int(np.prod(_t(input).shape, dtype=np.int64))


def size(input_x) -> int:
    """``ops.size(input_x)``: the number of elements (as :func:`numel`)."""
    return numel(input_x)


def rank(input_x) -> int:
    """``ops.rank(input_x)``: the number of dimensions."""
    return _t(input_x).ndim


def shape(input_x) -> tuple[int, ...]:
    """``ops.shape(input_x)``: the shape as a tuple of ints."""
    return tuple(_t(input_x).shape)


def positive(input) -> Tensor:  # noqa: A002
    """``ops.positive(input)``: ``input`` itself, of any dtype (MindSpore 2.10 returns a bool tensor too)."""
    return _t(input)


def absolute(input) -> Tensor:  # noqa: A002
    """``ops.absolute(input)``: ``ops.abs`` under NumPy's name (bool tensors come back as they are)."""
    x = _t(input)
    return x if x.dtype.name == "bool" else apply("Abs", {}, [x])


def dtype(input_x) -> DType:
    """``ops.dtype(input_x)``: the tensor's dtype (``mindspore.int16``, ...)."""
    return _t(input_x).dtype


def subtract(input, other, *, alpha=1) -> Tensor:  # noqa: A002
    """``ops.subtract(input, other, *, alpha=1)``: ``input - alpha * other``."""
    return binary("Sub", input, other if alpha == 1 else binary("Mul", other, alpha))


def eq(input, other) -> Tensor:  # noqa: A002
    """``ops.eq(input, other)``: elementwise equality (alias of ``equal``)."""
    return binary("Equal", input, other)


def sgn(input) -> Tensor:  # noqa: A002
    """``ops.sgn(input)``: the sign of real elements; ``x / |x|`` (0 at 0) for complex ones."""
    x = _t(input)
    if not x.dtype.is_complex:
        return apply("Sign", {}, [x])
    mag = apply("ComplexAbs", {}, [x])
    zero = apply("Equal", {}, [mag, Tensor(np.zeros((), mag.dtype.np_dtype))])
    safe = apply("Select", {}, [zero, apply("OnesLike", {}, [mag]), mag])
    # Select has no complex kernel: the zeros are made by multiplying with a 0/1 complex mask instead
    keep = apply("Cast", {"dtype": mag.dtype.name}, [apply("LogicalNot", {}, [zero])])
    unit = apply("RealDiv", {}, [x, apply("Complex", {}, [safe, apply("ZerosLike", {}, [safe])])])
    return apply("Mul", {}, [unit, apply("Complex", {}, [keep, apply("ZerosLike", {}, [keep])])])


def signbit(input) -> Tensor:  # noqa: A002
    """``ops.signbit(input)``: True where an element is negative (MindSpore 2.10 gives False for -0.0)."""
    return binary("Less", _t(input), 0)


def floor_div(x, y) -> Tensor:
    """``ops.floor_div(x, y)``: division rounded toward minus infinity (integer inputs stay integers)."""
    return binary("FloorDiv", x, y)


def depend(value, expr):
    """``ops.depend(value, expr)``: ``value``, to be computed after ``expr`` (MindSpore's ordering hint, as in
    ``loss = ops.depend(loss, optimizer(grads))``). opbuild keeps program order: ``expr``'s in-place updates run
    where the program put them, so ``value`` is returned as it is."""
    return value


def floor_mod(x, y) -> Tensor:
    """``ops.floor_mod(x, y)``: the remainder of floor division (the sign of ``y``)."""
    return binary("FloorMod", x, y)


def truncate_div(x, y) -> Tensor:
    """``ops.truncate_div(x, y)``: division rounded toward zero (integer inputs stay integers)."""
    a, b = promote(x, y)
    if a.dtype.is_float:
        return apply("Trunc", {}, [apply("RealDiv", {}, [a, b])])
    q = apply("FloorDiv", {}, [a, b])
    # floor and truncation differ by one where the remainder is non-zero and the signs differ
    r = apply("Sub", {}, [a, apply("Mul", {}, [q, b])])
    zero = Tensor(np.zeros((), a.dtype.np_dtype))
    # (a divisor of 0 gives 0, as FloorDiv does: NumPy's rule for integers, the remainder then 0 too)
    fix = apply("LogicalAnd", {}, [apply("LogicalAnd", {}, [apply("NotEqual", {}, [r, zero]),
                                                            apply("NotEqual", {}, [b, zero])]),
                                   apply("NotEqual", {}, [apply("Less", {}, [a, zero]),
                                                          apply("Less", {}, [b, zero])])])
    return apply("Add", {}, [q, apply("Cast", {"dtype": a.dtype.name}, [fix])])


def truncate_mod(x, y) -> Tensor:
    """``ops.truncate_mod(x, y)``: the remainder of :func:`truncate_div` (the sign of ``x``); for integers, 0
    where ``y`` is 0 (as ``ops.fmod`` and ``ops.remainder``: NumPy's rule)."""
    a, b = promote(x, y)
    rem = apply("Sub", {}, [a, apply("Mul", {}, [truncate_div(a, b), b])])
    if a.dtype.is_float:
        return rem
    zero = Tensor(np.zeros((), a.dtype.np_dtype))
    return apply("Select", {}, [apply("Equal", {}, [b, zero]), apply("ZerosLike", {}, [rem]), rem])


def is_complex(input) -> bool:  # noqa: A002
    """``ops.is_complex(input)``: whether the dtype is complex."""
    return _t(input).dtype.is_complex


def is_floating_point(input) -> bool:  # noqa: A002
    """``ops.is_floating_point(input)``: whether the dtype is a float type."""
    return _t(input).dtype.is_float


def is_nonzero(input) -> bool:  # noqa: A002
    """``ops.is_nonzero(input)``: whether a one-element tensor is not zero (eager: reads the value)."""
    x = _t(input)
    if int(np.prod(x.shape)) != 1:
        raise ValueError(f"is_nonzero: input must have exactly one element, got shape {tuple(x.shape)}")
    return bool(x.asnumpy().reshape(-1)[0] != 0)


def isreal(input) -> Tensor:  # noqa: A002
    """``ops.isreal(input)``: True where the imaginary part is zero (everywhere for real dtypes)."""
    x = _t(input)
    if not x.dtype.is_complex:
        return apply("Cast", {"dtype": "bool"}, [apply("OnesLike", {}, [x])])
    im = apply("Imag", {}, [x])
    return apply("Equal", {}, [im, Tensor(np.zeros((), im.dtype.np_dtype))])


def _scalar(v):
    return v.asnumpy().item() if isinstance(v, Tensor) else v


def range(start, end, step) -> Tensor:  # noqa: A001 - MindSpore's name
    """``ops.range(start, end, step)``: ``[start, end)`` by ``step``; int64 for int bounds, else float32."""
    b = [_scalar(v) for v in (start, end, step)]
    if b[2] == 0:
        raise ValueError("range: step must not be 0")
    ints = builtins.all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in b)
    return Tensor(np.arange(*b, dtype=np.int64 if ints else np.float64).astype(np.int64 if ints else np.float32))


def linspace(start, end, steps) -> Tensor:
    """``ops.linspace(start, end, steps)``: ``steps`` evenly spaced float32 values from ``start`` to ``end``."""
    n = int(_scalar(steps))
    if n < 1:
        raise ValueError(f"linspace: steps must be positive, got {n}")
    return Tensor(np.linspace(float(_scalar(start)), float(_scalar(end)), n).astype(np.float32))


def logspace(start, end, steps, base: int = 10, *, dtype: DType | str = "float32") -> Tensor:
    """``ops.logspace(start, end, steps, base=10, *, dtype=float32)``: ``base ** linspace(start, end, steps)``."""
    n = int(_scalar(steps))
    if n < 0:
        raise ValueError(f"logspace: steps must be non-negative, got {n}")
    dt = dtype_of(dtype)
    exps = np.linspace(float(_scalar(start)), float(_scalar(end)), n)
    return Tensor(np.power(float(base), exps).astype(dt.np_dtype), dtype=dt)


def scalar_to_tensor(input_x, dtype: DType | str = "float32") -> Tensor:
    """``ops.scalar_to_tensor(input_x, dtype=float32)``: a 0-D tensor of a Python number."""
    if not isinstance(input_x, (numbers.Number, np.generic)) or isinstance(input_x, complex):
        raise TypeError(f"scalar_to_tensor: input_x must be an int, float or bool, got {type(input_x).__name__}")
    dt = dtype_of(dtype)
    return Tensor(np.asarray(input_x).astype(dt.np_dtype), dtype=dt)


def tuple_to_array(input_x) -> Tensor:
    """``ops.tuple_to_array(input_x)``: a 1-D tensor of a tuple of numbers (int32 for ints, float32 for
    floats, as MindSpore 2.10 gives). A ``range`` counts as the tuple of its values, as in MindSpore's graph
    syntax."""
    if isinstance(input_x, builtins.range):  # this module's own ``range`` is ops.range
        input_x = tuple(input_x)
    if not isinstance(input_x, tuple) or not input_x:
        raise TypeError(f"tuple_to_array: input_x must be a non-empty tuple, got {input_x!r}")
    arr = np.asarray(input_x)
    return Tensor(arr.astype(np.float32 if arr.dtype.kind == "f" else np.int32))


def slice(input_x, begin: Sequence[int], size: Sequence[int]) -> Tensor:  # noqa: A001 - MindSpore's name
    """``ops.slice(input_x, begin, size)``: the box at ``begin`` of extent ``size`` (-1: to the end)."""
    return apply("Slice", {"begin": tuple(int(b) for b in begin), "size": tuple(int(s) for s in size)},
                 [_t(input_x)])


def strided_slice(input_x, begin: Sequence[int], end: Sequence[int], strides: Sequence[int], begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0) -> Tensor:
    """``ops.strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
    new_axis_mask=0, shrink_axis_mask=0)``: the StridedSlice primitive as a function."""
    attrs = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask,
             "begin": tuple(begin), "end": tuple(end), "strides": tuple(strides)}
    return apply("StridedSlice", attrs, [_t(input_x)])


def _bool_reduce(name: str, op: str, input, axis, keep_dims: bool) -> Tensor:  # noqa: A002
    x = _t(input)
    nz = x if x.dtype.name == "bool" else apply("NotEqual", {}, [x, Tensor(np.zeros((), x.dtype.np_dtype))])
    if axis is None:
        axes = tuple(np.arange(x.ndim).tolist())
    elif isinstance(axis, numbers.Integral):
        axes = (int(axis),)
    else:
        axes = tuple(int(a) for a in axis)
    as_int = apply("Cast", {"dtype": "int32"}, [nz])
    red = apply(op, {"axis": axes, "keep_dims": bool(keep_dims)}, [as_int]) if axes else as_int
    return apply("Cast", {"dtype": "bool"}, [red])


def all(input, axis=None, keep_dims: bool = False) -> Tensor:  # noqa: A001, A002 - MindSpore's names
    """``ops.all(input, axis=None, keep_dims=False)``: logical AND over ``axis`` (all axes when None)."""
    return _bool_reduce("all", "ReduceMin", input, axis, keep_dims)


def any(input, axis=None, keep_dims: bool = False) -> Tensor:  # noqa: A001, A002 - MindSpore's names
    """``ops.any(input, axis=None, keep_dims=False)``: logical OR over ``axis`` (all axes when None)."""
    return _bool_reduce("any", "ReduceMax", input, axis, keep_dims)


__all__ = ["eye", "fill", "full_like", "numel", "size", "rank", "shape", "positive", "subtract", "eq", "sgn",
           "signbit", "floor_div", "depend", "floor_mod", "truncate_div", "truncate_mod", "is_complex",
           "is_floating_point", "is_nonzero", "isreal", "range", "linspace", "logspace", "scalar_to_tensor",
           "tuple_to_array", "slice", "strided_slice", "all", "any", "absolute", "dtype"]
