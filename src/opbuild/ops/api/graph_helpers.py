"""The Python-value helpers ``mindspore.ops`` (and ``ops.functional``) exports for graph code: arithmetic and
comparisons of scalars (``scalar_add`` ... ``scalar_usub``), of booleans and strings, the tuple, list and dict
operations (``tuple_getitem``, ``list_setitem``, ``dict_getitem``, ``make_tuple``, ``make_range``, ...) and shape
arithmetic (``shape_mul``, ``reduced_shape``). MindSpore implements them as primitives that its graph compiler
folds; in opbuild graph code is traced Python, so they are plain functions on Python values, usable in PyNative
and inside a GRAPH_MODE ``construct`` alike. The ``*_setitem`` functions return a new sequence or dict, as
MindSpore's do; the arguments are left unchanged.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
           "scalar_eq", "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min",
           "scalar_log", "scalar_uadd", "scalar_usub", "bool_and", "bool_or", "bool_eq", "bool_not",
           "string_concat", "string_eq", "tuple_getitem", "tuple_len", "tuple_setitem", "tuple_reversed",
           "tuple_equal", "tuple_div", "list_getitem", "list_len", "list_setitem", "list_equal", "dict_getitem",
           "dict_setitem", "make_tuple", "make_list", "make_dict", "make_slice", "make_range", "in_dict",
           "not_in_dict", "is_", "is_not", "shape_mul", "reduced_shape", "partial"]


def _scalars(name: str, *values: Any) -> None:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{name}: expects Python int or float scalars, got {type(v).__name__} {v!r}")


def _binary(name: str, fn: Callable[[Any, Any], Any], doc: str) -> Callable[[Any, Any], Any]:
    def op(x: int | float, y: int | float) -> Any:
        _scalars(name, x, y)
        return fn(x, y)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``ops.{name}(x, y)``: {doc} of two Python scalars."
    return op


scalar_add = _binary("scalar_add", operator.add, "``x + y``")
scalar_sub = _binary("scalar_sub", operator.sub, "``x - y``")
scalar_mul = _binary("scalar_mul", operator.mul, "``x * y``")
scalar_div = _binary("scalar_div", operator.truediv, "``x / y`` (true division)")
scalar_floordiv = _binary("scalar_floordiv", operator.floordiv, "``x // y``")
scalar_mod = _binary("scalar_mod", operator.mod, "``x % y``")
scalar_pow = _binary("scalar_pow", operator.pow, "``x ** y``")
scalar_eq = _binary("scalar_eq", operator.eq, "``x == y``")
scalar_ne = _binary("scalar_ne", operator.ne, "``x != y``")
scalar_lt = _binary("scalar_lt", operator.lt, "``x < y``")
scalar_le = _binary("scalar_le", operator.le, "``x <= y``")
scalar_gt = _binary("scalar_gt", operator.gt, "``x > y``")
scalar_ge = _binary("scalar_ge", operator.ge, "``x >= y``")
scalar_max = _binary("scalar_max", max, "the larger")
scalar_min = _binary("scalar_min", min, "the smaller")


def scalar_log(x: int | float) -> float:
    """``ops.scalar_log(x)``: the natural logarithm of a positive Python scalar."""
    _scalars("scalar_log", x)
    if x <= 0:
        raise ValueError(f"scalar_log: x must be positive, got {x}")
    return math.log(x)


def scalar_uadd(x: int | float) -> int | float:
    """``ops.scalar_uadd(x)``: ``+x``."""
    _scalars("scalar_uadd", x)
    return +x


def scalar_usub(x: int | float) -> int | float:
    """``ops.scalar_usub(x)``: ``-x``."""
    _scalars("scalar_usub", x)
    return -x


def _bools(name: str, *values: Any) -> None:
    if not all(isinstance(v, bool) for v in values):
        raise TypeError(f"{name}: expects Python bools, got {[type(v).__name__ for v in values]}")


def bool_and(x: bool, y: bool) -> bool:
    """``ops.bool_and(x, y)``: ``x and y`` of two Python bools."""
    _bools("bool_and", x, y)
    return x and y


def bool_or(x: bool, y: bool) -> bool:
    """``ops.bool_or(x, y)``: ``x or y`` of two Python bools."""
    _bools("bool_or", x, y)
    return x or y


def bool_eq(x: bool, y: bool) -> bool:
    """``ops.bool_eq(x, y)``: ``x == y`` of two Python bools."""
    _bools("bool_eq", x, y)
    return x == y


def bool_not(x: bool) -> bool:
    """``ops.bool_not(x)``: ``not x`` of a Python bool."""
    _bools("bool_not", x)
    return not x


def string_concat(x: str, y: str) -> str:
    """``ops.string_concat(x, y)``: ``x + y`` of two strs."""
    if not (isinstance(x, str) and isinstance(y, str)):
        raise TypeError(f"string_concat: expects two strs, got {type(x).__name__} and {type(y).__name__}")
    return x + y


def string_eq(x: str, y: str) -> bool:
    """``ops.string_eq(x, y)``: ``x == y`` of two strs."""
    if not (isinstance(x, str) and isinstance(y, str)):
        raise TypeError(f"string_eq: expects two strs, got {type(x).__name__} and {type(y).__name__}")
    return x == y


def _seq(name: str, seq: Any, kind: type) -> None:
    if not isinstance(seq, kind):
        raise TypeError(f"{name}: expects a {kind.__name__}, got {type(seq).__name__}")


def _index(name: str, seq: Sequence[Any], i: Any) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"{name}: the index must be an int, got {type(i).__name__}")
    if not -len(seq) <= i < len(seq):
        raise IndexError(f"{name}: index {i} out of range for a sequence of length {len(seq)}")
    return i


def tuple_getitem(data: tuple, index: int) -> Any:
    """``ops.tuple_getitem(data, index)``: ``data[index]``."""
    _seq("tuple_getitem", data, tuple)
    return data[_index("tuple_getitem", data, index)]


def tuple_len(data: tuple) -> int:
    """``ops.tuple_len(data)``: ``len(data)``."""
    _seq("tuple_len", data, tuple)
    return len(data)


def tuple_setitem(data: tuple, index: int, value: Any) -> tuple:
    """``ops.tuple_setitem(data, index, value)``: a new tuple with ``value`` at ``index``."""
    _seq("tuple_setitem", data, tuple)
    out = list(data)
    out[_index("tuple_setitem", data, index)] = value
    return tuple(out)


def tuple_reversed(data: tuple) -> tuple:
    """``ops.tuple_reversed(data)``: ``data`` in reverse order."""
    _seq("tuple_reversed", data, tuple)
    return data[::-1]


def tuple_equal(x: tuple, y: tuple) -> bool:
    """``ops.tuple_equal(x, y)``: ``x == y``."""
    _seq("tuple_equal", x, tuple)
    _seq("tuple_equal", y, tuple)
    return x == y


def tuple_div(x: tuple, y: tuple) -> tuple:
    """``ops.tuple_div(x, y)``: the elementwise quotients of two int tuples of one length (shape arithmetic:
    each division must be exact)."""
    _seq("tuple_div", x, tuple)
    _seq("tuple_div", y, tuple)
    if len(x) != len(y):
        raise ValueError(f"tuple_div: the tuples have lengths {len(x)} and {len(y)}; they must be equal")
    for a, b in zip(x, y):
        _scalars("tuple_div", a, b)
        if b == 0 or a % b:
            raise ValueError(f"tuple_div: {a} is not divisible by {b} (tuple_div divides shapes exactly)")
    return tuple(int(a // b) for a, b in zip(x, y))


def list_getitem(data: list, index: int) -> Any:
    """``ops.list_getitem(data, index)``: ``data[index]``."""
    _seq("list_getitem", data, list)
    return data[_index("list_getitem", data, index)]


def list_len(data: list) -> int:
    """``ops.list_len(data)``: ``len(data)``."""
    _seq("list_len", data, list)
    return len(data)


def list_setitem(data: list, index: int, value: Any) -> list:
    """``ops.list_setitem(data, index, value)``: a new list with ``value`` at ``index``."""
    _seq("list_setitem", data, list)
    out = list(data)
    out[_index("list_setitem", data, index)] = value
    return out


def list_equal(x: list, y: list) -> bool:
    """``ops.list_equal(x, y)``: ``x == y``."""
    _seq("list_equal", x, list)
    _seq("list_equal", y, list)
    return x == y


def dict_getitem(data: dict, key: Any) -> Any:
    """``ops.dict_getitem(data, key)``: ``data[key]`` (KeyError naming the keys if absent)."""
    _seq("dict_getitem", data, dict)
    if key not in data:
        raise KeyError(f"dict_getitem: key {key!r} is not in the dict (its keys: {list(data)})")
    return data[key]


def dict_setitem(data: dict, key: Any, value: Any) -> dict:
    """``ops.dict_setitem(data, key, value)``: a new dict with ``key`` set to ``value``."""
    _seq("dict_setitem", data, dict)
    return {**data, key: value}


def make_tuple(*elements: Any) -> tuple:
    """``ops.make_tuple(*elements)``: the tuple of the arguments."""
    return elements


def make_list(*elements: Any) -> list:
    """``ops.make_list(*elements)``: the list of the arguments."""
    return list(elements)


def make_dict(keys: Sequence[Any], values: Sequence[Any]) -> dict:
    """``ops.make_dict(keys, values)``: the dict pairing ``keys`` with ``values`` (of one length)."""
    if not isinstance(keys, (tuple, list)) or not isinstance(values, (tuple, list)):
        raise TypeError(f"make_dict: keys and values must be tuples or lists, got {type(keys).__name__} and "
                        f"{type(values).__name__}")
    if len(keys) != len(values):
        raise ValueError(f"make_dict: {len(keys)} keys but {len(values)} values")
    return dict(zip(keys, values))


def make_slice(start: int | None, stop: int | None, step: int | None = None) -> slice:
    """``ops.make_slice(start, stop, step)``: ``slice(start, stop, step)``."""
    return slice(start, stop, step)


def make_range(*args: int) -> tuple[int, ...]:
    """``ops.make_range(stop)`` / ``(start, stop[, step])``: ``tuple(range(...))`` of ints."""
    if not 1 <= len(args) <= 3 or any(isinstance(a, bool) or not isinstance(a, int) for a in args):
        raise TypeError(f"make_range: expects 1 to 3 int arguments (as range), got {args!r}")
    if len(args) == 3 and args[2] == 0:
        raise ValueError("make_range: step must not be 0")
    return tuple(range(*args))


def in_dict(key: Any, data: dict) -> bool:
    """``ops.in_dict(key, data)``: ``key in data``."""
    _seq("in_dict", data, dict)
    return key in data


def not_in_dict(key: Any, data: dict) -> bool:
    """``ops.not_in_dict(key, data)``: ``key not in data``."""
    _seq("not_in_dict", data, dict)
    return key not in data


def is_(x: Any, y: Any) -> bool:
    """``ops.is_(x, y)``: ``x is y``."""
    return x is y


def is_not(x: Any, y: Any) -> bool:
    """``ops.is_not(x, y)``: ``x is not y``."""
    return x is not y


def shape_mul(shape: tuple) -> int:
    """``ops.shape_mul(shape)``: the product of a shape's dimensions (1 for ``()``)."""
    _seq("shape_mul", shape, tuple)
    _scalars("shape_mul", *shape)
    return math.prod(shape)


def reduced_shape(shape: tuple, axis: int | tuple | list) -> tuple:
    """``ops.reduced_shape(shape, axis)``: ``shape`` with the dimensions of ``axis`` set to 1 (a reduction's
    shape with ``keep_dims``; ``()`` reduces every axis)."""
    _seq("reduced_shape", shape, tuple)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes:
        return (1,) * len(shape)
    rank = len(shape)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -rank <= a < rank:
            raise ValueError(f"reduced_shape: axis {a!r} is out of range for a shape of rank {rank}")
    picked = {a % rank for a in axes}
    return tuple(1 if i in picked else d for i, d in enumerate(shape))


def partial(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """``ops.partial(func, *args, **kwargs)``: ``func`` with its first arguments, and the keyword arguments
    given, bound (``functools.partial``; MindSpore's graph mode takes keywords too)."""
    if not callable(func):
        raise TypeError(f"partial: func must be callable, got {type(func).__name__}")
    return functools.partial(func, *args, **kwargs)
