"""Tensor's Python operators (``+``, ``@``, ``==``, ``-t``, ...), each mapped to a primitive through the
functional API with MindSpore's implicit type promotion. A mixin of :class:`~opbuild.core.tensor.Tensor`
(Tensor keeps ``__hash__``: defining ``__eq__`` here would otherwise leave it unhashable)."""

from __future__ import annotations

from typing import Any

from .functional_slot import _ops


class TensorOperators:
    """The arithmetic, comparison and logical operators of Tensor."""

    __slots__ = ()

    def _bin(self, op: str, other, reflected: bool = False) -> Any:
        binary = _ops().operator_binary
        return binary(op, other, self) if reflected else binary(op, self, other)

    def __add__(self, o): return self._bin("Add", o)
    def __radd__(self, o): return self._bin("Add", o, True)
    def __sub__(self, o): return self._bin("Sub", o)
    def __rsub__(self, o): return self._bin("Sub", o, True)
    def __mul__(self, o): return self._bin("Mul", o)
    def __rmul__(self, o): return self._bin("Mul", o, True)
    def __truediv__(self, o):
        true_divide = _ops().true_divide
        return true_divide(self, o)

    def __rtruediv__(self, o):
        true_divide = _ops().true_divide
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
    # ``&``, ``|``, ``^``: bitwise on integer tensors, logical on bool ones (ops.bitwise_*).
    def __and__(self, o): return _ops().bitwise_and(self, o)
    def __rand__(self, o): return _ops().bitwise_and(o, self)
    def __or__(self, o): return _ops().bitwise_or(self, o)
    def __ror__(self, o): return _ops().bitwise_or(o, self)
    def __xor__(self, o): return _ops().bitwise_xor(self, o)
    def __rxor__(self, o): return _ops().bitwise_xor(o, self)

    def __neg__(self):
        unary = _ops().unary
        return unary("Neg", self)

    def __invert__(self):  # MindSpore 2.10: logical NOT for every dtype (an int tensor gives bool, recorded)
        return _ops().logical_not(self)

    def __round__(self, ndigits=None):  # Python's round(t): ops.round (MindSpore 2.10 gives a tensor back)
        return _ops().round(self) if ndigits is None else _ops().round(self, decimals=ndigits)

    def __abs__(self):
        return _ops().abs(self)
