"""ONNX scans and scatters: CumSum, ScatterND, ScatterElements, TopK, NonZero."""

from __future__ import annotations

from collections.abc import Callable

from .core import Ctx, Value, converter, prim, shape


def _scan(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value, axis: Value) -> Value:
        a = ctx.axis(int(ctx.static(axis, "axis").reshape(-1)[0]), max(len(shape(x)), 1))
        return prim(op, {"axis": a, "exclusive": bool(ctx.attr("exclusive", 0)),
                         "reverse": bool(ctx.attr("reverse", 0))}, x)

    return fn


converter("CumSum", (11, 14), attrs=("exclusive", "reverse"), static=(1,))(_scan("CumSum"))
converter("CumProd", (26,), attrs=("exclusive", "reverse"), static=(1,))(_scan("CumProd"))
