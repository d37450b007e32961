"""Tensor: concrete array data, or (inside a graph trace) a symbolic value of the traced graph."""

from __future__ import annotations

import numpy as np

from .dtypes import DType, dtype_of
from .ir import TensorType, Value


class Tensor:
    """An n-dimensional array of a supported dtype (see :mod:`opbuild.dtypes`).

    ``Tensor(data, dtype=None)`` accepts anything NumPy can turn into an array. Python floats default to
    float32 (as in MindSpore); NumPy arrays keep their dtype. Python operators map to primitives, so they work
    both eagerly and inside a traced ``construct``.
    """

    __slots__ = ("_data", "_value", "__weakref__")
    __array_priority__ = 100  # make ndarray <op> Tensor defer to Tensor's reflected operators

    def __init__(self, input_data=None, dtype=None):
        if isinstance(input_data, Tensor):
            input_data = input_data.asnumpy()
        if input_data is None:
            raise ValueError("Tensor needs input_data (an array, list or scalar)")
        arr = np.asarray(input_data)
        if dtype is not None:
            arr = arr.astype(dtype_of(dtype).np_dtype, copy=False)
        elif not isinstance(input_data, (np.ndarray, np.generic)) and arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        dtype_of(arr.dtype)  # raises TypeError for unsupported dtypes
        # np.ascontiguousarray turns a 0-d array into shape (1,): keep scalars (full reductions) 0-d.
        self._data: np.ndarray | None = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
        self._value: Value | None = None

    @classmethod
    def _symbolic(cls, value: Value) -> Tensor:
        t = cls.__new__(cls)
        t._data = None
        t._value = value
        return t

    # ---- metadata -------------------------------------------------------------------------------
    @property
    def _type(self) -> TensorType:
        if self._value is not None:
            return self._value.type
        return TensorType(tuple(self._data.shape), self._data.dtype.name)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.type.shape if self._value is not None else tuple(self._data.shape)

    @property
    def dtype(self) -> DType:
        return dtype_of(self._type.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self._type.size

    def asnumpy(self) -> np.ndarray:
        """The data as a NumPy array (shares memory). Not available for traced (symbolic) tensors."""
        if self._data is None:
            raise RuntimeError(
                "asnumpy() was called on a tensor being traced in GRAPH_MODE; its values exist only when the "
                "graph runs. Return it from construct, or use PYNATIVE_MODE to inspect intermediate values.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        arr = self.asnumpy()
        return arr.astype(dtype) if dtype is not None else arr

    def __repr__(self) -> str:
        if self._data is None:
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, traced)"
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={self._data!s})"

    def __str__(self) -> str:
        return str(self._data) if self._data is not None else repr(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        return bool(self.asnumpy())

    def __float__(self) -> float:
        return float(self.asnumpy())

    def __int__(self) -> int:
        return int(self.asnumpy())

    __hash__ = object.__hash__

    # ---- operators (mapped to primitives) --------------------------------------------------------
    def _bin(self, op: str, other, reflected: bool = False) -> Tensor:
        from .ops.functional import binary

        return binary(op, other, self) if reflected else binary(op, self, other)

    def __add__(self, o): return self._bin("Add", o)
    def __radd__(self, o): return self._bin("Add", o, True)
    def __sub__(self, o): return self._bin("Sub", o)
    def __rsub__(self, o): return self._bin("Sub", o, True)
    def __mul__(self, o): return self._bin("Mul", o)
    def __rmul__(self, o): return self._bin("Mul", o, True)
    def __truediv__(self, o):
        from .ops.functional import true_divide

        return true_divide(self, o)

    def __rtruediv__(self, o):
        from .ops.functional import true_divide

        return true_divide(o, self)

    def __floordiv__(self, o): return self._bin("FloorDiv", o)
    def __rfloordiv__(self, o): return self._bin("FloorDiv", o, True)
    def __mod__(self, o): return self._bin("FloorMod", o)
    def __rmod__(self, o): return self._bin("FloorMod", o, True)
    def __pow__(self, o): return self._bin("Pow", o)
    def __rpow__(self, o): return self._bin("Pow", o, True)
    def __matmul__(self, o): return self._bin("BatchMatMul", o)
    def __rmatmul__(self, o): return self._bin("BatchMatMul", o, True)
    def __eq__(self, o): return self._bin("Equal", o)  # type: ignore[override]
    def __ne__(self, o): return self._bin("NotEqual", o)  # type: ignore[override]
    def __lt__(self, o): return self._bin("Less", o)
    def __le__(self, o): return self._bin("LessEqual", o)
    def __gt__(self, o): return self._bin("Greater", o)
    def __ge__(self, o): return self._bin("GreaterEqual", o)
    def __and__(self, o): return self._bin("LogicalAnd", o)
    def __rand__(self, o): return self._bin("LogicalAnd", o, True)
    def __or__(self, o): return self._bin("LogicalOr", o)
    def __ror__(self, o): return self._bin("LogicalOr", o, True)

    def __neg__(self):
        from .ops.functional import unary

        return unary("Neg", self)

    def __invert__(self):
        from .ops.functional import unary

        return unary("LogicalNot", self)

    def __abs__(self):
        from .ops.functional import unary

        return unary("Abs", self)


def as_tensor(x, like: Tensor | None = None) -> Tensor:
    """Coerce ``x`` to a Tensor; a Python scalar takes the dtype of ``like`` (weak typing, as in JAX)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        dt = like._type.dtype
        if isinstance(x, float) and dt not in ("float32", "float64") and not float(x).is_integer():
            # A fractional scalar does not fit an integer tensor: the op reports the dtype mismatch.
            return Tensor(x)
        return Tensor(np.asarray(x, dtype=dt))
    return Tensor(x)
