"""ONNX scans, scatters and sorting: CumSum, CumProd, ScatterND, ScatterElements (and the older Scatter), TopK."""

from __future__ import annotations

from collections.abc import Callable

from .core import Ctx, Value, const, converter, dtype, one_of, prim, shape, wrap_negative


def _scan(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value, axis: Value) -> Value:
        a = ctx.axis(int(ctx.static(axis, "axis").reshape(-1)[0]), max(len(shape(x)), 1))
        return prim(op, {"axis": a, "exclusive": bool(ctx.attr("exclusive", 0)),
                         "reverse": bool(ctx.attr("reverse", 0))}, x)

    return fn


converter("CumSum", (11, 14), attrs=("exclusive", "reverse"), static=(1,))(_scan("CumSum"))
converter("CumProd", (26,), attrs=("exclusive", "reverse"), static=(1,))(_scan("CumProd"))


_ND = {"none": "TensorScatterUpdate", "add": "TensorScatterAdd", "mul": "TensorScatterMul",
       "max": "TensorScatterMax", "min": "TensorScatterMin"}


@converter("ScatterND", (11, 13, 16, 18), attrs=("reduction",), check=one_of("reduction", tuple(_ND), "none"))
def _scatter_nd(ctx: Ctx, data: Value, indices: Value, updates: Value) -> Value:
    # [-n, 0) counted from the end first, then any index outside [0, n) raises (the spec's range, as
    # onnxruntime's check).
    k = shape(indices)[-1]
    wrapped = wrap_negative(indices, const(shape(data)[:k], dtype(indices)))
    return prim(_ND[ctx.attr("reduction", "none")], {"bounds": "raise"}, data, wrapped, updates)


def _scatter_elements(ctx: Ctx, data: Value, indices: Value, updates: Value) -> Value:
    axis = ctx.axis(ctx.attr("axis", 0), len(shape(data)))
    # The spec's range [-n, n), any other index an error (as onnxruntime's): bounds="raise".
    return prim("TensorScatterElements", {"axis": axis, "reduction": ctx.attr("reduction", "none"),
                                          "bounds": "raise"}, data, indices, updates)


converter("ScatterElements", (11, 13, 16, 18), attrs=("axis", "reduction"),
          check=one_of("reduction", ("none", "add", "mul", "max", "min"), "none"))(_scatter_elements)
converter("Scatter", (9, 11), attrs=("axis",))(_scatter_elements)


@converter("TopK", (10, 11, 24), attrs=("axis", "largest", "sorted"), outputs=2, static=(1,))
def _top_k(ctx: Ctx, x: Value, k: Value) -> Value:
    axis = ctx.axis(ctx.attr("axis", -1), len(shape(x)))
    kk = int(ctx.static(k, "K").reshape(-1)[0])
    return prim("TopK", {"k": kk, "axis": axis, "largest": bool(ctx.attr("largest", 1)),
                         "sorted": bool(ctx.attr("sorted", 1)), "index_dtype": "int64"}, x)
