"""What MindSpore 2.10's unary functions do with integer and bool tensors where the primitive's kernel has no
integer type: ``sqrt``/``reciprocal`` compute in float32, ``isnan``/``isfinite`` answer for every element,
``trunc``/``round`` return integers as they are, ``abs``/``relu`` return bool tensors as they are (recorded
in tests/core/int_input_cases.py)."""

from __future__ import annotations

from collections.abc import Callable

from ...core.tensor import Tensor
from ..primitive import apply

# How an integer or bool input is met: "float" casts it to float32 first; "same" returns it unchanged;
# "int_same" returns an integer (not bool) input unchanged; "bool_same" returns a bool input unchanged.
MODES = ("float", "same", "int_same", "bool_same")


def int_unary(op: str, x: Tensor, mode: str | None) -> Tensor:
    """Apply the one-input primitive ``op`` to ``x``, meeting an integer/bool ``x`` as ``mode`` says."""
    dt = x.dtype
    if mode is None or dt.is_float or dt.is_complex:
        return apply(op, {}, [x])
    is_bool = dt.name == "bool"
    if mode == "float":
        return apply(op, {}, [apply("Cast", {"dtype": "float32"}, [x])])
    if mode == "same" or (mode == "int_same" and not is_bool) or (mode == "bool_same" and is_bool):
        return x
    return apply(op, {}, [x])


# The GEMM kernels' narrowest integer type is int32: MindSpore 2.10 multiplies int8/uint8/int16 matrices in their
# own dtype, which int32 products cast back give exactly (wrapping the same way).
NARROW_INTS = ("int8", "uint8", "int16")


def through_int32(a: Tensor, b: Tensor, product: Callable[[Tensor, Tensor], Tensor]) -> Tensor:
    """``product(a, b)``; narrow integer operands of one dtype multiplied as int32 and cast back."""
    name = a.dtype.name
    if name in NARROW_INTS and b.dtype.name == name:
        wide = [apply("Cast", {"dtype": "int32"}, [t]) for t in (a, b)]
        return apply("Cast", {"dtype": name}, [product(*wide)])
    return product(a, b)


def gemm(op: str, attrs: dict, a: Tensor, b: Tensor) -> Tensor:
    """``op`` (MatMul/BatchMatMul) of ``a`` and ``b``; narrow integer operands of one dtype through int32."""
    return through_int32(a, b, lambda x, y: apply(op, attrs, [x, y]))
