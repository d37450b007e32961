"""``opbuild.common``: MindSpore's ``mindspore.common`` path (``dtype`` as mstype, ``initializer``, Tensor,
Parameter, and the rest of MindSpore's ``common`` names: dtypes, ``set_seed``, ``jit``, sparse tensors, ...), so
that ``from mindspore.common import set_seed`` and ``import mindspore.common.dtype as mstype`` work with only
the package name changed."""

from __future__ import annotations

from ..api_extras import from_numpy, jit_class, ms_memory_recycle, mutable, no_inline, recompute
from ..core.device import set_recursion_limit
from ..core.init_values import set_seed
from ..core.parameter import Parameter, ParameterTuple
from ..core.symbol import Symbol
from ..core.tensor import Tensor, tensor
from ..graph.lazy_inline import lazy_inline
from ..jit import JitConfig, jit
from ..ops.api.misc_names import is_tensor
from ..rng import Generator, default_generator, get_rng_state, get_seed, initial_seed, manual_seed, seed, set_rng_state
from ..saved_hooks import register_saved_tensors_hooks, saved_tensors_hooks
from ..sparse import COOTensor, CSRTensor
from ..sparse_legacy import RowTensor, SparseTensor
from ..train.serialization import load_mindir, save_mindir
from . import dtype, initializer
from .dtype import (
    Type,
    bfloat16,
    bool_,
    byte,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype_to_nptype,
    dtype_to_pytype,
    float8_e4m3fn,
    float8_e5m2,
    float16,
    float32,
    float64,
    float_,
    get_py_obj_dtype,
    half,
    hifloat8,
    int8,
    int16,
    int32,
    int64,
    int_,
    intc,
    intp,
    long,
    pytype_to_dtype,
    qint4x2,
    short,
    single,
    ubyte,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    uintc,
    uintp,
    ushort,
)

# MindSpore's ``common`` also holds the names below (they are opbuild's top-level ones too).
__all__ = ["dtype", "initializer", "Tensor", "Parameter", "ParameterTuple", "COOTensor", "CSRTensor", "Generator",
           "JitConfig", "RowTensor", "SparseTensor", "Symbol", "Type", "bfloat16", "bool_", "byte", "cdouble",
           "cfloat", "complex128", "complex64", "default_generator", "double", "dtype_to_nptype", "dtype_to_pytype",
           "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "float_", "from_numpy",
           "get_py_obj_dtype", "get_rng_state", "get_seed", "half", "hifloat8", "initial_seed", "int16", "int32",
           "int64", "int8", "int_", "intc", "intp", "is_tensor", "jit", "jit_class", "lazy_inline", "long",
           "manual_seed", "ms_memory_recycle", "mutable", "no_inline", "pytype_to_dtype", "qint4x2", "recompute",
           "register_saved_tensors_hooks", "saved_tensors_hooks", "seed", "set_recursion_limit", "set_rng_state",
           "set_seed", "short", "single", "tensor", "ubyte", "uint", "uint16", "uint32", "uint64", "uint8", "uintc",
           "uintp", "ushort", "load_mindir", "save_mindir"]
