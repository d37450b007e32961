"""CPU kernels of ops/special_incomplete.py: the incomplete gamma rows and NextAfter through the elementwise
binary emitter, Betainc through the broadcasting n-ary map (its C is in the op's module)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.special_incomplete import BETAINC_C, ROWS
from ..codegen import compute_ctype
from .elementwise import _binary_emit, _nary_emit
from .registry import register


def _betainc_expr(k: KernelSpec) -> str:
    return BETAINC_C.replace("TYPE", compute_ctype(k.inputs[0].dtype))


for _name, _row in ROWS.items():
    register(_name, _binary_emit(_row))
register("Betainc", _nary_emit(_betainc_expr, ("a", "b", "x")))
