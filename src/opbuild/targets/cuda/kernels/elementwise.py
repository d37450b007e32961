"""GPU kernels of the elementwise family (ops/elementwise.py) and of BroadcastTo: one grid-stride loop per op
around the scalar expression of its table row, the same row the CPU's kernels evaluate.

The rows' expressions are C; as CUDA C++ they mean the same, with two adjustments made here: GNU statement
expressions become immediately called lambdas (``codegen.cxx_expr``), and the overloads of C++'s math
functions pick the float version for float32 operands (``exp(x)`` is ``expf`` there, as ``<tgmath.h>`` makes
it on the CPU). Integers are computed with C's promotions and stored with a conversion to the element type;
the unsigned rows that differ from the signed ones (division, modulo, power, Abs) have their own expressions,
as on the CPU. float16 and bfloat16 operands load into float, the float32 expression is evaluated and the
result rounds once on store (half.py), as on the CPU.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec, TensorType
from ....ops import elementwise as E
from ....ops.elementwise import Binary, Unary
from .. import half
from ..codegen import broadcast_offsets, cxx_expr, grid_loop
from .registry import register

# Unsigned operands: nothing is negative, x / 0 and x % 0 give 0 (as NumPy); the power keeps the exponent
# unsigned (a uint64 exponent above 2**63 must not turn negative).
_UINT_EXPRS: dict[str, str] = {
    "FloorDiv": "(b == 0 ? (TYPE)0 : (TYPE)(a / b))",
    "Mod": "(b == 0 ? (TYPE)0 : (TYPE)(a % b))",
    "FloorMod": "(b == 0 ? (TYPE)0 : (TYPE)(a % b))",
    "Pow": ("({ uint64_t r_ = 1, x_ = (uint64_t)a, e_ = (uint64_t)b; "
            "while (e_ > 0) { if (e_ & 1) r_ *= x_; x_ *= x_; e_ >>= 1; } (TYPE)r_; })"),
    "Abs": "x",
}
# min(max(x, lo), hi), NaN-propagating in every operand as np.clip (lo > hi gives hi).
_CLIP = "({ const TYPE m_ = (lo > x || lo != lo) ? lo : x; (m_ < hi || m_ != m_) ? m_ : hi; })"


# The complex family on real operands (the GPU target has no complex dtype: codegen.SUPPORTED_DTYPES refuses a
# complex input or output by name): the real part is the value, the imaginary part zero, the conjugate itself.
_REAL_OPERAND_EXPRS: dict[str, str] = {"Real": "x", "Imag": "(TYPE)0", "Conj": "x"}


def _row_expr(name: str, row: Unary | Binary, dt: str) -> str:
    """The CUDA C expression of row ``row`` (op ``name``) for operands of dtype ``dt``."""
    d = BY_NAME[dt]
    if name in _REAL_OPERAND_EXPRS:
        expr = _REAL_OPERAND_EXPRS[name]
    elif d.is_unsigned and name in _UINT_EXPRS:
        expr = _UINT_EXPRS[name]
    elif row.int_expr and d.is_int:
        expr = row.int_expr
    elif isinstance(row, Unary) and row.f32_expr and half.compute_ctype(dt) == "float":  # float32, half types
        expr = row.f32_expr
    else:
        expr = row.expr
    return cxx_expr(expr.replace("TYPE", half.compute_ctype(dt)))


def _cast_expr(src: str, dst: str) -> str:
    """``x`` (of ``src``'s compute type) converted to ``dst``'s compute type (double for float64 -> half, which
    the store rounds once, as the CPU): float -> integer defined for every input as on the CPU (NaN gives 0,
    out-of-range values saturate, the rest truncate toward zero); bool is ``x != 0``."""
    s, d = BY_NAME[src], BY_NAME[dst]
    if dst == "bool":
        return "(x != 0)"
    if d.is_int and s.is_float:
        t = d.c_type
        lo = "0" if d.is_unsigned else f"-0x1p{d.bits - 1}"
        hi = f"0x1p{d.bits if d.is_unsigned else d.bits - 1}"
        prefix = "UINT" if d.is_unsigned else "INT"
        lo_val = "0" if d.is_unsigned else f"{prefix}{d.bits}_MIN"
        return f"(x != x ? ({t})0 : x < {lo} ? ({t}){lo_val} : x >= {hi} ? ({t}){prefix}{d.bits}_MAX : ({t})x)"
    if d.is_half and s.c_type == "double":
        return "x"
    return f"({half.compute_ctype(dst)})x"


def src_ctype(op: str, ins: Sequence[TensorType], out: TensorType) -> str:
    """The C++ type of :func:`expr_of`'s value (what :func:`half.store` rounds from)."""
    if op == "Cast" and half.is_half(out.dtype) and ins[0].dtype == "float64":
        return "double"
    return half.compute_ctype(out.dtype)


def expr_of(op: str, ins: Sequence[TensorType], out: TensorType) -> tuple[tuple[str, ...], str]:
    """``(operand names, CUDA C expression)`` of one element of elementwise op ``op``; KeyError otherwise."""
    dt = ins[0].dtype
    if op in E.UNARY:
        return ("x",), _row_expr(op, E.UNARY[op], dt)
    if op in E.BINARY or op in E.GRAD_BINARY:
        return ("a", "b"), _row_expr(op, E.BINARY.get(op) or E.GRAD_BINARY[op], dt)
    if op == "Select":
        return ("c", "a", "b"), "(c ? a : b)"
    if op == "ClipByValue":
        return ("x", "lo", "hi"), cxx_expr(_CLIP.replace("TYPE", half.compute_ctype(dt)))
    if op == "Cast":
        return ("x",), _cast_expr(dt, out.dtype)
    raise KeyError(f"{op} is not an elementwise op")


def map_body(names: Sequence[str], inputs: Sequence[TensorType], out: TensorType, expr: str,
             src: str | None = None) -> str:
    """A grid-stride loop storing ``expr`` (in the operands ``names``, each loaded into its compute type from
    its input with NumPy broadcasting into ``out``'s shape; ``expr`` of C++ type ``src``, default ``out``'s
    compute type) into ``out0``."""
    offsets = broadcast_offsets(out.shape, [t.shape for t in inputs])
    loads = " ".join(f"const {half.compute_ctype(t.dtype)} {n} = {half.load(t.dtype, f'in{i}[{off}]')};"
                     for i, (n, t, off) in enumerate(zip(names, inputs, offsets, strict=True)))
    stored = half.store(out.dtype, expr, src or half.compute_ctype(out.dtype))
    return grid_loop(out.size, "o", f"{loads} out0[o] = {stored};")


def _emit_map(k: KernelSpec) -> str:
    names, expr = expr_of(k.op, k.inputs, k.outputs[0])
    return map_body(names, k.inputs, k.outputs[0], expr, src_ctype(k.op, k.inputs, k.outputs[0]))


def _emit_broadcast_to(k: KernelSpec) -> str:
    """Elements copied as they are stored (a half element's bits unchanged, NaN payloads included)."""
    out = k.outputs[0]
    (off,) = broadcast_offsets(out.shape, [k.inputs[0].shape])
    return grid_loop(out.size, "o", f"out0[o] = in0[{off}];")


def _all_ops() -> list[str]:
    return [*E.UNARY, *E.BINARY, *E.GRAD_BINARY, "Select", "ClipByValue", "Cast"]


for _op in _all_ops():
    register(_op, _emit_map)
register("BroadcastTo", _emit_broadcast_to)
half.allow(*_all_ops(), "BroadcastTo")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = (*_all_ops(), "BroadcastTo")

__all__ = ["OPS", "expr_of", "map_body", "src_ctype"]
