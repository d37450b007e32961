"""``opbuild.common``: MindSpore's ``mindspore.common`` path (``dtype`` as mstype, ``initializer``, Tensor,
Parameter, and the rest of MindSpore's ``common`` names: dtypes, ``set_seed``, ``jit``, sparse tensors, ...), so
that ``from mindspore.common import set_seed`` and ``import mindspore.common.dtype as mstype`` work with only
the package name changed."""

from __future__ import annotations

from ..core.parameter import Parameter, ParameterTuple
from ..core.tensor import Tensor
from . import dtype, initializer

# MindSpore's ``common`` names that opbuild defines at its top level: the package imports this module early,
# before those exist, so they are looked up on first use.
_TOP_LEVEL = (
    "COOTensor", "CSRTensor", "Generator", "JitConfig", "RowTensor", "SparseTensor", "Symbol", "Type",
    "bfloat16", "bool_", "byte", "cdouble", "cfloat", "complex128", "complex64", "default_generator", "double",
    "dtype_to_nptype", "dtype_to_pytype", "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
    "float_", "from_numpy", "get_py_obj_dtype", "get_rng_state", "get_seed", "half", "hifloat8", "initial_seed",
    "int16", "int32", "int64", "int8", "int_", "intc", "intp", "is_tensor", "jit", "jit_class", "lazy_inline",
    "long", "manual_seed", "ms_memory_recycle", "mutable", "no_inline", "pytype_to_dtype", "qint4x2",
    "recompute", "register_saved_tensors_hooks", "saved_tensors_hooks", "seed", "set_recursion_limit",
    "set_rng_state", "set_seed", "short", "single", "tensor", "ubyte", "uint", "uint16", "uint32", "uint64",
    "uint8", "uintc", "uintp", "ushort")

__all__ = ["dtype", "initializer", "Tensor", "Parameter", "ParameterTuple", *_TOP_LEVEL]


def __getattr__(name: str) -> object:
    if name in _TOP_LEVEL:
        import opbuild

        return getattr(opbuild, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
