"""``opbuild.common.dtype`` (``import opbuild.common.dtype as mstype``): MindSpore's dtype module.

The objects are the very ones of :mod:`opbuild.core.dtypes` (``mstype.float32 is opbuild.float32``), so equality,
hashing and ``Tensor.dtype`` comparisons hold across both spellings. Only the dtypes opbuild's kernels
support are defined (float16, bfloat16, float32, float64, int8..int64, uint8..uint64, bool; see
docs/dtypes.md); MindSpore's others (complex64, ...) are absent rather than silently mapped to a different
width.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..core.dtypes import (
    ALL,
    DType,
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

# MindSpore's alternative spellings of the same types.
float_ = float32  # MindSpore 1.x-era alias used in model-zoo code (mstype.float_ is float32 there)
double = float64
half = float16
single = float32
int_ = int32
uint = uint32
bool = bool_  # noqa: A001 - MindSpore names it mstype.bool (and mstype.bool_)

number_type = tuple(d for d in ALL if d.is_float or d.is_int)
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
    return dtype_of(np.dtype(obj) if not isinstance(obj, DType) else obj)


__all__ = ["DType", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64", "bool_", "bool",
           "complex64", "complex128", "float_", "double", "half", "single", "int_", "uint",
           "number_type", "float_type", "int_type", "uint_type", "dtype_to_nptype", "pytype_to_dtype"]
