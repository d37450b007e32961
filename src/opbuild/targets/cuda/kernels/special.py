"""GPU kernels of the special functions (ops/special.py: the Bessel, gamma-family and error-function rows,
Polygamma, Zeta), of the incomplete gamma/beta functions and NextAfter (ops/special_incomplete.py) and of the
bit shifts (ops/bitshift.py): grid-stride maps (``elementwise.map_body``, NumPy broadcasting by
``codegen.broadcast_offsets``) around the same C expressions the CPU's kernels evaluate, made C++ by
``codegen.cxx_expr``.

The expressions compute in double whatever the dtype, as on the CPU; what differs on a GPU is only the math
library under them (CUDA's ``lgamma``, ``j0``, ``erf``, ``pow``... within a few ulp of glibc's in double, far
below a float32 result's rounding; float64 results of the libm-based rows may differ in the last bits).
NVRTC has no ``<math.h>``: the constants the rows name (``INFINITY``, ``NAN``, ``M_PI``) come from
:data:`MATH_CONSTANTS`, defined once per program and left alone where a host header has them (host emulation).
float16/bfloat16 (the special rows, Polygamma, Zeta) load into float and the row's value, computed in double
and converted to float as ``TYPE`` says, rounds once more on store: the CPU's elementwise rule (half.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops import bitshift, special, special_incomplete
from ....ops.elementwise import Binary, Unary
from .. import half
from ..codegen import Unsupported, cxx_expr
from .elementwise import map_body
from .registry import register

#: The math macros C's <math.h> gives the rows, for NVRTC (which has no host headers). Each guarded: a program
#: defines them once, and a host compiler's own definitions (host emulation includes <cmath>) are kept.
MATH_CONSTANTS = "\n".join([
    "#ifndef INFINITY", "#define INFINITY __int_as_float(0x7f800000)", "#endif",
    "#ifndef NAN", "#define NAN __int_as_float(0x7fffffff)", "#endif",
    "#ifndef M_PI", "#define M_PI 3.14159265358979323846", "#endif", ""])


def _accepts(op: str, dt: str, accepted: Sequence[str]) -> None:
    if dt not in accepted:
        raise Unsupported(f"{op}: the GPU target emits it for {', '.join(accepted)} only, not {dt}")


def _expr(template: str, dt: str) -> str:
    return cxx_expr(template.replace("TYPE", half.compute_ctype(dt)))


def unary_emitter(name: str, expr_for: Callable[[KernelSpec], str]) -> Callable[[KernelSpec], str]:
    """A grid-stride map of ``x`` through ``expr_for(spec)`` (a C expression with ``TYPE``)."""

    def emit(k: KernelSpec) -> str:
        x = k.inputs[0]
        return MATH_CONSTANTS + map_body(("x",), k.inputs, k.outputs[0], _expr(expr_for(k), x.dtype))

    return emit


def binary_emitter(name: str, row: Binary) -> Callable[[KernelSpec], str]:
    """A broadcasting map of ``a``, ``b`` through ``row`` (its integer expression for integer operands)."""

    def emit(k: KernelSpec) -> str:
        dt = k.inputs[0].dtype
        _accepts(name, dt, row.dtypes)
        template = row.int_expr if (row.int_expr and BY_NAME[dt].is_int) else row.expr
        return MATH_CONSTANTS + map_body(("a", "b"), k.inputs, k.outputs[0], _expr(template, dt))

    return emit


def _unary_row(name: str, row: Unary) -> Callable[[KernelSpec], str]:
    def expr(k: KernelSpec) -> str:
        _accepts(name, k.inputs[0].dtype, row.dtypes)
        return row.expr

    return unary_emitter(name, expr)


def _polygamma_expr(k: KernelSpec) -> str:
    _accepts("Polygamma", k.inputs[0].dtype, ("float32", "float64", *half.HALF_DTYPES))
    n = k.attrs["n"]
    return special._DIGAMMA_C if n == 0 else special.polygamma_c(n)


def _betainc(k: KernelSpec) -> str:
    dt = k.inputs[0].dtype
    _accepts("Betainc", dt, special_incomplete.FLOATS)
    return MATH_CONSTANTS + map_body(("a", "b", "x"), k.inputs, k.outputs[0],
                                     _expr(special_incomplete.BETAINC_C, dt))


# The rows' C lives in the ops' modules (their OpDefs are made by ops/elementwise.py): hashed as deps.
_SPECIAL, _INCOMPLETE, _SHIFTS = (special,), (special_incomplete,), (bitshift,)
for _name, _row in special.SPECIAL.items():
    register(_name, _unary_row(_name, _row), _SPECIAL)
register("Polygamma", unary_emitter("Polygamma", _polygamma_expr), _SPECIAL)
register("Zeta", binary_emitter("Zeta", special.ZETA), _SPECIAL)
for _name, _brow in special_incomplete.ROWS.items():
    register(_name, binary_emitter(_name, _brow), _INCOMPLETE)
for _name, _brow in bitshift.ROWS.items():
    register(_name, binary_emitter(_name, _brow), _SHIFTS)
register("Betainc", _betainc, _INCOMPLETE)
half.allow(*special.SPECIAL, "Polygamma", "Zeta")

#: The ops of this module (tests, the GPU suite).
OPS: tuple[str, ...] = (*special.SPECIAL, "Polygamma", "Zeta", *special_incomplete.ROWS, "Betainc",
                        *bitshift.ROWS)

__all__ = ["MATH_CONSTANTS", "OPS", "binary_emitter", "unary_emitter"]
