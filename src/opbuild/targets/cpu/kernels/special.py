"""CPU kernels of the special functions (ops/special.py): the elementwise unary emitter over their rows, and
Polygamma, whose order ``n`` shapes the expression."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.elementwise import Unary
from ....ops.special import _DIGAMMA_C as DIGAMMA_C
from ....ops.special import SPECIAL, ZETA, polygamma_c
from .elementwise import _binary_emit, _unary_emit
from .registry import register


def _polygamma_emit(k: KernelSpec) -> str:
    n = k.attrs["n"]
    row = Unary(DIGAMMA_C if n == 0 else polygamma_c(n), (k.inputs[0].dtype,), lambda v: v)
    return _unary_emit(row)(k)


for _name, _u in SPECIAL.items():
    register(_name, _unary_emit(_u))
register("Polygamma", _polygamma_emit)
register("Zeta", _binary_emit(ZETA))
