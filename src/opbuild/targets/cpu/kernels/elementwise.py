"""CPU kernels of the elementwise family (ops/elementwise.py): one flat or broadcasting loop per op around the
C expression of its table row, and the expressions fused kernels (fused.py, fused_reduce.py) evaluate.

``<tgmath.h>`` makes ``exp(x)`` pick expf for float32, so one expression serves both float dtypes. Narrow
types (docs/dtypes.md): float16 and bfloat16 operands are loaded into float, the float32 expression is
evaluated and the result rounds once on store. Integer expressions are evaluated with C's promotions and
stored with a conversion to the element type, and the compile flags include -fwrapv, so every integer width
wraps as NumPy's does. Unsigned division, modulo and power have their own expressions (a signed ``b == -1``
test means ``b == MAX`` there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ....core.dtypes import BY_NAME, LOWP, real_of
from ....core.ir import KernelSpec, TensorType
from ....ops import elementwise as E
from ....ops.elementwise import Binary, Unary
from ..blocked import broadcast_map, flat_map
from ..codegen import broadcast_loop, compute_ctype, load, nan_max, nan_min, store
from . import lowp
from .registry import register

# Unsigned operands: truncation is floor, nothing is negative, x / 0 and x % 0 give 0 (as NumPy); the power
# keeps the exponent unsigned (a uint64 exponent above 2**63 must not turn negative).
_UINT_EXPRS: dict[str, str] = {
    "FloorDiv": "(b == 0 ? (TYPE)0 : (TYPE)(a / b))",
    "Mod": "(b == 0 ? (TYPE)0 : (TYPE)(a % b))",
    "FloorMod": "(b == 0 ? (TYPE)0 : (TYPE)(a % b))",
    "Pow": ("({ uint64_t r_ = 1, x_ = (uint64_t)a, e_ = (uint64_t)b; "
            "while (e_ > 0) { if (e_ & 1) r_ *= x_; x_ *= x_; e_ >>= 1; } (TYPE)r_; })"),
    "Abs": "x",
}


def _row_name(row: Unary | Binary) -> str:
    return next((n for table in (E.UNARY, E.BINARY, E.GRAD_BINARY) for n, r in table.items() if r is row), "")


def _unary_expr(u: Unary, dt: str) -> str:
    """The C expression of unary row ``u`` in ``x`` (of :func:`compute_ctype`) for input dtype ``dt``."""
    d = BY_NAME[dt]
    expr = u.expr
    if d.is_unsigned and _row_name(u) in _UINT_EXPRS:
        expr = _UINT_EXPRS[_row_name(u)]
    elif u.int_expr and d.is_int:
        expr = u.int_expr
    elif d.is_complex:
        expr = u.c_expr or u.expr
    elif u.f32_expr and d.compute_c == "float":  # float32, and the half types (computed in float)
        expr = u.f32_expr
    return expr.replace("TYPE", compute_ctype(dt))


def _binary_expr(b: Binary, dt: str) -> str:
    """The C expression of binary row ``b`` in ``a`` and ``b`` (of :func:`compute_ctype`) for dtype ``dt``."""
    d = BY_NAME[dt]
    if d.is_unsigned and _row_name(b) in _UINT_EXPRS:
        e = _UINT_EXPRS[_row_name(b)]
    else:
        e = b.int_expr if (b.int_expr and d.is_int) else b.expr
    return e.replace("TYPE", compute_ctype(dt))


def _cast_expr(in_dt: str, out_dt: str) -> str:
    """C expression: ``x`` (the loaded input, of ``compute_ctype(in_dt)``) converted to ``out_dt``'s compute
    type. Float -> integer is defined for every input (C leaves NaN and out-of-range undefined): NaN gives 0,
    values beyond the type's range (infinities included) saturate to its minimum or maximum, and the rest
    truncate toward zero as NumPy does (docs/dtypes.md). The bounds are powers of two, exact in every float
    type, so the comparisons are exact."""
    src, dst = BY_NAME[in_dt], BY_NAME[out_dt]
    if out_dt == "bool":
        return "(x != 0)"
    if src.is_complex and not dst.is_complex:
        # The real part, then the real type's rule (NumPy's astype drops the imaginary part the same way);
        # the inner ``x`` shadows the complex one.
        part = real_of(in_dt)
        ct = BY_NAME[part].c_type
        return f"({{ const {ct} x_re_ = creal(x); ({{ const {ct} x = x_re_; {_cast_expr(part, out_dt)}; }}); }})"
    if dst.is_int and src.is_float:
        t = dst.c_type
        lo = "0" if dst.is_unsigned else f"-0x1p{dst.bits - 1}"
        hi = f"0x1p{dst.bits if dst.is_unsigned else dst.bits - 1}"
        prefix = "UINT" if dst.is_unsigned else "INT"
        lo_val = "0" if dst.is_unsigned else f"{prefix}{dst.bits}_MIN"
        return (f"(x != x ? ({t})0 : x < {lo} ? ({t}){lo_val} : x >= {hi} ? ({t}){prefix}{dst.bits}_MAX "
                f": ({t})x)")
    if dst.is_half and src.c_type == "double":
        return "x"  # store() rounds double -> half once
    return f"({dst.compute_c})x"


def member_expr(op: str, ins: Sequence[TensorType], out: TensorType) -> tuple[tuple[str, ...], str]:
    """``(operand names, C expression)`` computing one element of elementwise op ``op`` from its operands
    (loaded into C variables of those names, in input order, as their compute types) for input types ``ins``
    and output type ``out``; the result is of ``out``'s compute type (for Cast from float64 to a half type:
    double, see :func:`cast_src_ctype`).
    The expression is the one the op's own kernel evaluates, so a fused kernel (ops/fused.py) computes
    exactly what the unfused ops compute. KeyError for an op that is not elementwise (:data:`FUSIBLE`)."""
    dt = ins[0].dtype
    if op in E.UNARY:
        return ("x",), _unary_expr(E.UNARY[op], dt)
    if op in E.BINARY or op in E.GRAD_BINARY:
        return ("a", "b"), _binary_expr(E.BINARY.get(op) or E.GRAD_BINARY[op], dt)
    if op == "Select":
        return ("c", "a", "b"), "c ? a : b"
    if op == "ClipByValue":
        return ("x", "lo", "hi"), _CLIP.replace("TYPE", compute_ctype(dt))
    if op == "Cast":
        return ("x",), _cast_expr(dt, out.dtype)
    raise KeyError(f"{op} is not an elementwise op")


def cast_src_ctype(in_dt: str, out_dt: str) -> str:
    """The C type of :func:`_cast_expr`'s result, as :func:`store` needs it."""
    return "double" if BY_NAME[out_dt].is_half and BY_NAME[in_dt].c_type == "double" else compute_ctype(out_dt)


def _nary_emit(expr_for: Callable[[KernelSpec], str], names: Sequence[str]) -> Callable[[KernelSpec], str]:
    """Emitter of a broadcasting map: inputs are loaded into ``names`` and ``expr_for(k)`` is stored."""

    def emit(k: KernelSpec) -> str:
        out = k.outputs[0]
        ct = compute_ctype(k.inputs[-1].dtype)

        def compute(elems: Sequence[str]) -> tuple[str, str, str]:
            loads = " ".join(f"const {compute_ctype(t.dtype)} {n} = {e};"
                             for n, t, e in zip(names, k.inputs, elems, strict=True))
            return loads, expr_for(k), ct

        dts = [t.dtype for t in k.inputs]
        if all(t.shape == out.shape for t in k.inputs):  # no broadcasting: one flat loop
            return flat_map(out.size, dts, out.dtype, compute)
        blocked = broadcast_map(out.shape, [t.shape for t in k.inputs], dts, out.dtype, compute)
        if blocked:  # float16: rows in blocks (targets/cpu/blocked.py)
            return blocked
        loads, expr, _ = compute([load(t.dtype, f"in{i}[p{i}]") for i, t in enumerate(k.inputs)])
        stmt = f"{loads} out0[o] = {store(out.dtype, expr, ct)};"
        return broadcast_loop(out.shape, [t.shape for t in k.inputs], stmt, parallel=True)

    return emit


def _plain_cast(src: str, dst: str) -> str:
    return store(dst, _cast_expr(src, dst), cast_src_ctype(src, dst))


def _cast_emit(k: KernelSpec) -> str:
    src, dst = k.inputs[0].dtype, k.outputs[0].dtype
    if src in LOWP or dst in LOWP:
        return lowp.cast_emit(k, _plain_cast)
    return flat_map(k.inputs[0].size, [src], dst,
                    lambda e: (f"const {compute_ctype(src)} x = {e[0]};", _cast_expr(src, dst),
                               cast_src_ctype(src, dst)))


# min(max(x, lo), hi) with NaN-propagating max/min, exactly the reference: lo > hi gives hi (as np.clip does)
# and a NaN in any operand gives NaN. Written with codegen's nan_max/nan_min: gcc 12 vectorises that form,
# but not ((m < hi || m != m) ? m : hi) after a max, which made every Clip (ReLU6) a scalar loop.
_CLIP = f"({{ const TYPE m_ = {nan_max('lo', 'x')}; {nan_min('m_', 'hi')}; }})"


def _unary_emit(u: Unary) -> Callable[[KernelSpec], str]:
    """Emitter of unary row ``u``: one flat loop."""

    def emit(k: KernelSpec) -> str:
        dt, out_dt = k.inputs[0].dtype, k.outputs[0].dtype
        ct = compute_ctype(dt)
        return flat_map(k.inputs[0].size, [dt], out_dt,
                        lambda e: (f"const {ct} x = {e[0]};", _unary_expr(u, dt), ct))

    return emit


def _binary_emit(b: Binary) -> Callable[[KernelSpec], str]:
    """Emitter of binary row ``b``: a broadcasting map of ``a`` and ``b``."""
    return _nary_emit(lambda k: _binary_expr(b, k.inputs[0].dtype), ("a", "b"))


for _name, _u in E.UNARY.items():
    register(_name, _unary_emit(_u))
for _name, _b in {**E.BINARY, **E.GRAD_BINARY}.items():
    register(_name, _binary_emit(_b))
register("Select", _nary_emit(lambda k: "c ? a : b", ("c", "a", "b")))
register("ClipByValue",
         _nary_emit(lambda k: _CLIP.replace("TYPE", compute_ctype(k.inputs[0].dtype)), ("x", "lo", "hi")))
register("Cast", _cast_emit)
