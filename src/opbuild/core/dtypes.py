"""The tensor element types opbuild supports, with their NumPy and C spellings.

Every dtype has a *storage* C type (the element type of the kernel's buffers) and a *compute* C type (what a
kernel does arithmetic in). They differ only for the half types: float16 and bfloat16 are stored in 16 bits
(``ob_f16`` is gcc's ``_Float16`` where the compiler has it, else ``uint16_t`` bits; ``ob_bf16`` is always
``uint16_t`` bits, see targets/cpu/codegen.py) and computed in float32, rounding once on store. bfloat16
arrays are ``ml_dtypes.bfloat16`` NumPy arrays (the type ONNX and JAX use); importing ml_dtypes registers the
name with NumPy, so ``np.dtype("bfloat16")`` works everywhere after this module is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class DType:
    """An element type: ``name`` is the canonical spelling used in descriptors (NumPy's name).

    ``c_type`` is the storage type of a buffer element, ``compute_c`` the type arithmetic happens in
    (``float`` for the half types, ``c_type`` otherwise). ``storage_only`` marks the sub-byte and 8-bit float
    formats (float8_*, float4_e2m1fn, int4, uint4, int2, uint2): one byte per element holding the format's code
    (floats) or its value (ints), accepted only by Cast and the ONNX quantisation converters; their
    ``is_float``/``is_int`` are False so no arithmetic op's dtype list admits them."""

    name: str
    np_dtype: np.dtype
    c_type: str
    is_float: bool
    is_int: bool
    compute_c: str = ""
    is_unsigned: bool = False
    storage_only: bool = False
    is_complex: bool = False

    def __post_init__(self) -> None:
        if not self.compute_c:
            object.__setattr__(self, "compute_c", self.c_type)

    @property
    def is_half(self) -> bool:
        """Stored in 16 bits, computed in float32 (float16, bfloat16)."""
        return self.is_float and self.c_type != self.compute_c

    @property
    def bits(self) -> int:
        """Width of a value in bits (4 for int4, 8 for the float8 formats, the storage width otherwise)."""
        if self.storage_only:
            return int(self.name[-1]) if self.is_unsigned or self.name.startswith("int") else (
                4 if self.name.startswith("float4") else 8)
        return self.np_dtype.itemsize * 8

    def __repr__(self) -> str:
        # MindSpore's spelling (``mindspore.float32``): programs print dtypes and compare the text.
        return f"mindspore.{self.name}"

    def __str__(self) -> str:
        # MindSpore's spelling: Float32, BFloat16, UInt8, Bool.
        special = {"bool": "Bool", "bfloat16": "BFloat16"}
        if self.name in special:
            return special[self.name]
        if self.name.startswith("uint"):
            return "UInt" + self.name[4:]
        return self.name.capitalize()


float16 = DType("float16", np.dtype(np.float16), "ob_f16", True, False, "float")
bfloat16 = DType("bfloat16", np.dtype(ml_dtypes.bfloat16), "ob_bf16", True, False, "float")
float32 = DType("float32", np.dtype(np.float32), "float", True, False)
float64 = DType("float64", np.dtype(np.float64), "double", True, False)
int8 = DType("int8", np.dtype(np.int8), "int8_t", False, True)
int16 = DType("int16", np.dtype(np.int16), "int16_t", False, True)
int32 = DType("int32", np.dtype(np.int32), "int32_t", False, True)
int64 = DType("int64", np.dtype(np.int64), "int64_t", False, True)
uint8 = DType("uint8", np.dtype(np.uint8), "uint8_t", False, True, is_unsigned=True)
uint16 = DType("uint16", np.dtype(np.uint16), "uint16_t", False, True, is_unsigned=True)
uint32 = DType("uint32", np.dtype(np.uint32), "uint32_t", False, True, is_unsigned=True)
uint64 = DType("uint64", np.dtype(np.uint64), "uint64_t", False, True, is_unsigned=True)
bool_ = DType("bool", np.dtype(np.bool_), "bool", False, False)
complex64 = DType("complex64", np.dtype(np.complex64), "float _Complex", False, False, is_complex=True)
complex128 = DType("complex128", np.dtype(np.complex128), "double _Complex", False, False, is_complex=True)

# Storage-only formats (ONNX's FLOAT8*, FLOAT4E2M1, INT4/UINT4, INT2/UINT2), as ml_dtypes arrays of one byte
# per element: a float's code, or an integer's two's complement bits, in the low bits (ml_dtypes' layout).
# Conversions to and from them are Cast kernels (ops/lowp.py) following ml_dtypes bit for bit.
float8_e4m3fn = DType("float8_e4m3fn", np.dtype(ml_dtypes.float8_e4m3fn), "uint8_t", False, False, storage_only=True)
float8_e4m3fnuz = DType("float8_e4m3fnuz", np.dtype(ml_dtypes.float8_e4m3fnuz), "uint8_t", False, False,
                        storage_only=True)
float8_e5m2 = DType("float8_e5m2", np.dtype(ml_dtypes.float8_e5m2), "uint8_t", False, False, storage_only=True)
float8_e5m2fnuz = DType("float8_e5m2fnuz", np.dtype(ml_dtypes.float8_e5m2fnuz), "uint8_t", False, False,
                        storage_only=True)
float4_e2m1fn = DType("float4_e2m1fn", np.dtype(ml_dtypes.float4_e2m1fn), "uint8_t", False, False, storage_only=True)
int4 = DType("int4", np.dtype(ml_dtypes.int4), "uint8_t", False, False, storage_only=True)
uint4 = DType("uint4", np.dtype(ml_dtypes.uint4), "uint8_t", False, False, is_unsigned=True, storage_only=True)
int2 = DType("int2", np.dtype(ml_dtypes.int2), "uint8_t", False, False, storage_only=True)
uint2 = DType("uint2", np.dtype(ml_dtypes.uint2), "uint8_t", False, False, is_unsigned=True, storage_only=True)

LOWP_FLOATS = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float4_e2m1fn")
LOWP_INTS = ("int4", "uint4", "int2", "uint2")
LOWP = LOWP_FLOATS + LOWP_INTS

ALL: tuple[DType, ...] = (float16, bfloat16, float32, float64, int8, int16, int32, int64,
                          uint8, uint16, uint32, uint64, bool_, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2,
                          float8_e5m2fnuz, float4_e2m1fn, int4, uint4, int2, uint2, complex64, complex128)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
# The original wide types. Ops whose kernels have not been written for the narrow types (GEMM, conv, the
# optimizers, ...) keep accepting only these, so a float16 MatMul is a clear "dtype not supported" error
# rather than integer arithmetic on float16 bits.
FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
# Every dtype, grouped: ops written for them (the elementwise table, reductions, Softmax, LayerNorm, Cast,
# data movement) accept these.
HALFS = ("float16", "bfloat16")
ALL_FLOATS = HALFS + FLOATS
SIGNED_INTS = ("int8", "int16", "int32", "int64")
UNSIGNED_INTS = ("uint8", "uint16", "uint32", "uint64")
ALL_INTS = SIGNED_INTS + UNSIGNED_INTS
ALL_NUMERIC = ALL_FLOATS + ALL_INTS
ANY = ALL_NUMERIC + ("bool",)  # every dtype but the storage-only LOWP ones and the complex ones
# The complex types: only the ops that list them accept them (ops/registry.py refuses them elsewhere).
COMPLEX = ("complex64", "complex128")
# What an op written for real numbers and for complex ones (Add, Mul, Neg, ...) accepts.
NUMERIC_C = ALL_NUMERIC + COMPLEX
# Data movement (reshape, transpose, concat, slicing): any dtype, complex included.
ANY_C = ANY + COMPLEX


def real_of(dt: str) -> str:
    """The real dtype of a complex one's parts (complex64 -> float32); a real dtype is its own."""
    return {"complex64": "float32", "complex128": "float64"}.get(dt, dt)


def complex_of(dt: str) -> str:
    """The complex dtype whose parts are ``dt`` (float64 -> complex128, any other real -> complex64, as
    MindSpore's FFTs and ops.Complex give); a complex dtype is its own."""
    if dt in COMPLEX:
        return dt
    return "complex128" if dt == "float64" else "complex64"


class UnsupportedDType:
    """A MindSpore dtype opbuild names but has no kernels for (hifloat8, qint4x2): the name exists,
    compares and prints as MindSpore's, and every use that would create data of it raises a TypeError naming
    what is missing, instead of silently computing in another type."""

    def __init__(self, name: str, why: str):
        self.name = name
        self.why = why

    def __repr__(self) -> str:
        # MindSpore's spelling (``mindspore.float32``): programs print dtypes and compare the text.
        return f"mindspore.{self.name}"

    def __str__(self) -> str:
        return self.name.capitalize()

    def error(self) -> TypeError:
        """The error every attempt to hold data of this dtype raises."""
        return TypeError(f"dtype {self} is not supported by opbuild: {self.why}")


# MindSpore's names without kernels here are UnsupportedDType objects (common/dtype.py: hifloat8, qint4x2).
UNSUPPORTED: dict[str, UnsupportedDType] = {}

# MindSpore 2.x's implicit promotion between tensor dtypes (the tensor-tensor rule of its binary operators):
# the wider of two floats, a float over any integer or bool (the float's own width, so int64 * float16 is
# float16), the wider of two integers (uint8 with int8 widens to int16, as NumPy), and bool under everything.
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def promote_types(a: DType, b: DType) -> DType:
    """The dtype MindSpore computes ``a <op> b`` in for two tensors of dtypes ``a`` and ``b``."""
    if a == b:
        return a
    if a.is_complex or b.is_complex:
        # complex128 over everything; complex64 over every real type but float64 (which widens it to complex128)
        wide = {a.name, b.name} & {"complex128", "float64"}
        return complex128 if wide else complex64
    if a.is_float and b.is_float:
        ra, rb = _FLOAT_RANK[a.name], _FLOAT_RANK[b.name]
        if ra == rb:  # float16 with bfloat16: neither holds the other
            return float32
        return a if ra > rb else b
    if a.is_float or b.is_float:
        return a if a.is_float else b
    if a.name == "bool" or b.name == "bool":
        return b if a.name == "bool" else a
    if a.is_int and b.is_int:
        return dtype_of(np.promote_types(a.np_dtype, b.np_dtype).name) if {a.name, b.name} != {"int64", "uint64"} \
            else int64
    raise TypeError(f"no implicit promotion between {a} and {b}; cast one operand with ops.cast")


def scalar_result_dtype(t: DType, scalar: object) -> DType:
    """The dtype of ``tensor <op> python_scalar`` in MindSpore: the tensor's, except that a float scalar with an
    integer or bool tensor gives float32, and an int scalar with a bool tensor gives int64."""
    if isinstance(scalar, bool) or t.is_complex:
        return t
    if isinstance(scalar, complex):
        raise TypeError(f"a complex Python scalar with a {t} tensor: MindSpore refuses it too; make the tensor "
                        "complex first (ops.cast(x, mindspore.complex64))")
    if isinstance(scalar, float) and not t.is_float:
        return float32
    if isinstance(scalar, int) and t.name == "bool":
        return int64
    return t


# NumPy computes ``dtype.name`` in Python on every read (about a microsecond, docs/benchmarks.md "Per-call
# overhead"), and a graph call reads its inputs' names several times: these tables remember them per dtype
# object. Only dtypes seen here are entered, a few dozen at most; the bound guards against a stream of
# structured dtypes.
_NP_NAMES: dict[np.dtype, str] = {}
_BY_NP: dict[np.dtype, DType] = {}
_REMEMBER = 256
#: The same table for the hot paths (``Tensor.dtype``): ``KNOWN_NP.get(np_dtype)`` is the DType of a NumPy dtype
#: :func:`dtype_of` has met, else None (then call :func:`dtype_of`).
KNOWN_NP = _BY_NP


def np_name(dt: np.dtype) -> str:
    """``dt.name`` of a NumPy dtype, remembered per dtype (see ``_NP_NAMES``)."""
    name = _NP_NAMES.get(dt)
    if name is None:
        name = dt.name
        if len(_NP_NAMES) < _REMEMBER:
            _NP_NAMES[dt] = name
    return name


def dtype_of(x) -> DType:
    """Return the opbuild DType for a DType, a dtype name, a NumPy dtype or a NumPy scalar type.

    Raises TypeError naming the supported types when ``x`` has no opbuild equivalent.
    """
    if isinstance(x, DType):
        return x
    if isinstance(x, np.dtype):
        found = _BY_NP.get(x)
        if found is not None:
            return found
        found = BY_NAME.get(np_name(x))
        if found is not None and len(_BY_NP) < _REMEMBER:
            _BY_NP[x] = found
    if isinstance(x, UnsupportedDType):
        raise x.error()
    if isinstance(x, str) and x in BY_NAME:
        return BY_NAME[x]
    try:
        name = np.dtype(x).name
    except TypeError:
        name = None
    if name in BY_NAME:
        return BY_NAME[name]
    if name in UNSUPPORTED:
        raise UNSUPPORTED[name].error()
    raise TypeError(f"unsupported dtype {x!r}; opbuild supports {', '.join(BY_NAME)}")
