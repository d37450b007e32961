"""MindSpore's non-tensor type objects and type classes of ``mindspore.common.dtype``: ``string``,
``number``, ``list_``, ``tuple_``, ``type_none``, ``tensor_type``, ``_null``, the ``Int`` and ``TensorType``
classes, and the ``QuantDtype`` enum.

They describe values, not tensor elements: programs compare them with what ``get_py_obj_dtype`` and
``pytype_to_dtype`` return and print them. None of them is a :class:`~opbuild.core.dtypes.DType`, so a Tensor of
one is refused by the dtype checks as in MindSpore. ``Int(bits)`` is the signed integer dtype of that width
(``Int(32) is int32``) and ``isinstance(int32, Int)`` holds, as MindSpore's type classes do.
"""

from __future__ import annotations

import enum
from typing import Any

from ..core import dtypes as _dtypes
from ..core.dtypes import DType


class TypeKind:
    """A non-tensor type (String, List, Tuple, None, Number, Tensor, Null): equal only to itself."""

    def __init__(self, name: str, text: str) -> None:
        self._name, self._text = name, text

    def __repr__(self) -> str:
        return f"mindspore.{self._name}"

    def __str__(self) -> str:
        return self._text


string = TypeKind("string_", "String")
number = TypeKind("number", "Number")
list_ = TypeKind("list_", "List")
tuple_ = TypeKind("tuple_", "Tuple")
type_none = TypeKind("type_none", "None")
_null = TypeKind("Null", "Null")
type_type = TypeKind("type_type", "TypeType")  # the type of a dtype object (get_py_obj_dtype(float32))

_INT_BITS = {8: _dtypes.int8, 16: _dtypes.int16, 32: _dtypes.int32, 64: _dtypes.int64}


class _IntMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        # The signed integer dtypes are Int's instances, as MindSpore's Int8..Int64 are.
        return type.__instancecheck__(cls, obj) or (isinstance(obj, DType) and obj in _INT_BITS.values())


class Int(metaclass=_IntMeta):
    """The signed integer type class: ``Int(bits)`` is that width's dtype, ``Int()`` the generic Int."""

    def __new__(cls, bits: int | None = None):
        if bits is None:
            return super().__new__(cls)
        if isinstance(bits, bool) or not isinstance(bits, int):
            raise TypeError(f"Int: bits must be an int (8, 16, 32 or 64), got {type(bits).__name__}")
        if bits not in _INT_BITS:
            raise RuntimeError(f"For Int type only support number of 8bits, 16bits, 32bits and 64bits, "
                               f"but got {bits}bits")
        return _INT_BITS[bits]

    def __repr__(self) -> str:
        return "mindspore.int"

    def __str__(self) -> str:
        return "Int"

    def __eq__(self, other: object) -> bool:
        return type(other) is Int

    def __hash__(self) -> int:
        return hash("Int")


class TensorType:
    """The type of a tensor of ``element`` dtype (``TensorType(float32)`` prints ``Tensor[Float32]``);
    ``TensorType()`` is the generic tensor type, :data:`tensor_type`."""

    def __init__(self, element: DType | None = None) -> None:
        if element is not None and not isinstance(element, DType):
            raise TypeError(f"TensorType: element must be a mindspore dtype such as mindspore.float32, "
                            f"got {element!r}")
        self._element = element

    def element_type(self) -> DType | None:
        """The element dtype (None for the generic tensor type)."""
        return self._element

    def __repr__(self) -> str:
        return "mindspore.tensor" if self._element is None else f"mindspore.tensor[{self._element.name}]"

    def __str__(self) -> str:
        return "Tensor" if self._element is None else f"Tensor[{self._element}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorType) and other._element == self._element

    def __hash__(self) -> int:
        return hash(("TensorType", self._element))


tensor_type = TensorType()

class QuantDtype(enum.Enum):
    """The integer widths of quantisation. As in MindSpore, ``value`` is a method (``INT8.value() == 7``) and
    ``str`` is the bare name."""

    INT1, INT2, INT3, INT4, INT5, INT6, INT7, INT8 = range(8)
    INT9, INT10, INT11, INT12, INT13, INT14, INT15, INT16 = range(8, 16)
    UINT1, UINT2, UINT3, UINT4, UINT5, UINT6, UINT7, UINT8 = range(100, 108)
    UINT9, UINT10, UINT11, UINT12, UINT13, UINT14, UINT15, UINT16 = range(108, 116)

    def __str__(self) -> str:
        return self.name

    def value(self) -> int:  # type: ignore[override] - MindSpore's spelling: a method, not the enum attribute
        """The member's number (INT<b> is b - 1, UINT<b> is 99 + b)."""
        return self._value_


__all__ = ["TypeKind", "string", "number", "list_", "tuple_", "type_none", "tensor_type", "Int", "TensorType",
           "QuantDtype"]
