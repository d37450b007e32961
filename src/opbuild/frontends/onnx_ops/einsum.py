"""ONNX Einsum through the composition of ops/compose/einsum.py."""

from __future__ import annotations

from ...ops.compose import einsum as E
from .core import Ctx, StaticValueError, Value, converter, dtype, shape
from .elementwise import GRAPH


@converter("Einsum", (12, 28), attrs=("equation",))
def _einsum(ctx: Ctx, *xs: Value) -> Value:
    try:
        return E.einsum(GRAPH, ctx.attr("equation", ""), xs, [shape(x) for x in xs], dtype(xs[0]))
    except E.EinsumError as e:
        raise StaticValueError(f"Einsum (ONNX node {ctx.name!r}): {e}") from None
