"""ONNX Einsum through the composition of ops/einsum_compose.py."""

from __future__ import annotations

from ...ops import einsum_compose as E
from .core import Ctx, StaticValueError, Value, converter, dtype, prim, shape


@converter("Einsum", (12, 28), attrs=("equation",))
def _einsum(ctx: Ctx, *xs: Value) -> Value:
    try:
        return E.einsum(ctx.attr("equation", ""), xs, [shape(x) for x in xs], dtype(xs[0]), prim)
    except E.EinsumError as e:
        raise StaticValueError(f"Einsum (ONNX node {ctx.name!r}): {e}") from None
