"""``opbuild.common.dtype`` (``import opbuild.common.dtype as mstype``): MindSpore's dtype module.

The objects are the very ones of :mod:`opbuild.core.dtypes` (``mstype.float32 is opbuild.float32``), so equality,
hashing and ``Tensor.dtype`` comparisons hold across both spellings. Only the dtypes opbuild's kernels
support are defined (float16, bfloat16, float32, float64, int8..int64, uint8..uint64, bool, complex64,
complex128; see docs/dtypes.md and docs/fft.md); MindSpore's Ascend-only formats (hifloat8, qint4x2) are named
but refuse data rather than being silently mapped to a different width.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..core import dtypes as _dtypes
from ..core.dtypes import (
    ALL,
    DType,
    UnsupportedDType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype_of,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .dtype_kinds import (
    Int,
    QuantDtype,
    TensorType,
    TypeKind,
    _null,
    list_,
    number,
    string,
    tensor_type,
    tuple_,
    type_none,
    type_type,
)

# MindSpore's alternative spellings of the same types.
float_ = float32  # MindSpore 1.x-era alias used in model-zoo code (mstype.float_ is float32 there)
double = float64
half = float16
single = float32
int_ = int32
uint = uint32
bool = bool_  # noqa: A001 - MindSpore names it mstype.bool (and mstype.bool_)
# NumPy-style spellings MindSpore 2.x defines for the same types.
byte, short, intc, long, intp = int8, int16, int32, int64, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
cfloat, cdouble = complex64, complex128
float8_e4m3fn, float8_e5m2 = _dtypes.float8_e4m3fn, _dtypes.float8_e5m2  # storage-only here (Cast, ONNX)
hifloat8 = UnsupportedDType("hifloat8", "an Ascend-only 8-bit float format; no CPU kernel computes it")
qint4x2 = UnsupportedDType("qint4x2", "an Ascend-only packed quantisation format; no CPU kernel computes it")
Type = DType  # isinstance(x, mstype.Type) holds for every dtype object

number_type = tuple(d for d in ALL if d.is_float or d.is_int or d.is_complex)  # MindSpore's includes complex
float_type = (float16, bfloat16, float32, float64)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)


def dtype_to_nptype(type_: DType) -> type:
    """The NumPy scalar type of a dtype (``mstype.dtype_to_nptype(mstype.float32) is np.float32``)."""
    return dtype_of(type_).np_dtype.type


def pytype_to_dtype(obj) -> DType:
    """The dtype of a Python or NumPy type: ``bool`` -> bool_, ``int`` -> int64, ``float`` -> float64
    (MindSpore's mapping), NumPy dtypes and opbuild dtypes as themselves."""
    if obj is builtins.bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float64
    if obj in _PY_KINDS:
        return _PY_KINDS[obj]
    return dtype_of(np.dtype(obj) if not isinstance(obj, DType) else obj)


# Python container/str/None types and their MindSpore type objects (both directions).
_PY_KINDS = {str: string, list: list_, tuple: tuple_, type(None): type_none}
_KIND_PY = {v: k for k, v in _PY_KINDS.items()}


def dtype_to_pytype(type_: DType) -> type:
    """The Python type of a dtype's values: bool, int or float (str, list, tuple, NoneType for
    :data:`string`, :data:`list_`, :data:`tuple_`, :data:`type_none`)."""
    if type_ in _KIND_PY:
        return _KIND_PY[type_]
    dt = dtype_of(type_)
    return builtins.bool if dt.name == "bool" else int if dt.is_int else float


def get_py_obj_dtype(obj) -> DType | TensorType | TypeKind:
    """The MindSpore type of a Python object: ``TensorType(dtype)`` for a Tensor or Parameter (printed
    ``Tensor[Float32]``), :data:`type_type` for a dtype object, a Python scalar's as :func:`pytype_to_dtype`,
    a type's."""
    if hasattr(obj, "dtype") and isinstance(obj.dtype, DType):
        return TensorType(obj.dtype)
    if isinstance(obj, (DType, TypeKind, TensorType, UnsupportedDType)):
        return type_type
    return pytype_to_dtype(obj if isinstance(obj, type) else type(obj))


__all__ = ["DType", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "bool_", "bool",
           "complex64", "complex128", "float_", "double", "half", "single", "int_", "uint",
           "number_type", "float_type", "int_type", "uint_type", "dtype_to_nptype", "pytype_to_dtype",
           "dtype_to_pytype", "get_py_obj_dtype", "byte", "short", "intc", "long", "intp", "ubyte", "ushort", "uintc",
           "uintp", "cfloat", "cdouble", "float8_e4m3fn", "float8_e5m2", "hifloat8", "qint4x2", "Type", "string",
           "number", "list_", "tuple_", "type_none", "tensor_type", "Int", "TensorType", "QuantDtype", "_null"]
