"""ONNX linear-algebra operators: ``Det`` (the MatrixDeterminant primitive, a LAPACK kernel)."""

from __future__ import annotations

from .core import Ctx, Value, converter, prim


@converter("Det", (11, 22))
def _det(ctx: Ctx, x: Value) -> Value:
    return prim("MatrixDeterminant", {}, x)
