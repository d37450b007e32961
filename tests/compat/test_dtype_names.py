"""Every dtype name of MindSpore 2.10's ``mindspore.dtype`` (its ``__all__``, read from a MindSpore 2.10
install) exists in ``opbuild.dtype`` and at opbuild's top level, except the typing classes listed in
:data:`NOT_PROVIDED`; the ones opbuild has no kernels for raise a TypeError naming what is missing when used."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms

MINDSPORE_DTYPE_ALL = [
    "Type", "QuantDtype", "bool_", "int8", "byte", "int16", "short", "int32", "intc", "int64", "long", "intp",
    "uint8", "ubyte", "uint16", "ushort", "uint32", "uintc", "uint64", "uintp", "float16", "half", "float32",
    "single", "float64", "double", "complex64", "cfloat", "complex128", "cdouble", "qint4x2", "bfloat16",
    "float8_e4m3fn", "float8_e5m2", "hifloat8", "int_", "uint", "float_", "list_", "tuple_", "string", "number",
    "tensor_type", "type_none", "_null", "TensorType", "Int", "dtype_to_nptype", "dtype_to_pytype",
    "pytype_to_dtype", "get_py_obj_dtype",
]
# MindSpore's graph-compiler typing objects (types of lists, strings, None, the abstract Int/Number): no
# opbuild tensor has them, and opbuild's tracing needs no type annotations.
NOT_PROVIDED = {"QuantDtype", "list_", "tuple_", "string", "number", "tensor_type", "type_none", "_null",
                "TensorType", "Int"}


@pytest.mark.parametrize("name", [n for n in MINDSPORE_DTYPE_ALL if n not in NOT_PROVIDED])
def test_dtype_name_exists_in_the_namespace_and_at_top_level(name):
    assert getattr(ms.dtype, name) is getattr(ms, name)


@pytest.mark.parametrize("alias,dtype", [("byte", "int8"), ("short", "int16"), ("intc", "int32"), ("long", "int64"),
                                         ("ubyte", "uint8"), ("uintp", "uint64"), ("half", "float16"),
                                         ("single", "float32"), ("double", "float64"), ("cfloat", "complex64")])
def test_numpy_spellings_are_the_same_objects(alias, dtype):
    assert getattr(ms, alias) is getattr(ms, dtype)


@pytest.mark.parametrize("name", ["hifloat8", "qint4x2"])
def test_dtypes_without_kernels_say_so_when_used(name):
    with pytest.raises(TypeError, match="is not supported by opbuild: "):
        ms.tensor(np.zeros(2, np.float32), getattr(ms, name))


def test_type_helpers():
    assert ms.dtype_to_pytype(ms.int32) is int and ms.dtype_to_pytype(ms.bool_) is bool
    assert ms.get_py_obj_dtype(ms.tensor([1.0])) == ms.TensorType(ms.float32)  # MindSpore 2.10: Tensor[Float32]
    assert ms.get_py_obj_dtype(True) is ms.bool_
    assert isinstance(ms.float16, ms.Type)
