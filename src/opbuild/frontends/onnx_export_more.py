"""ONNX export of the math, scan, scatter, sort and sampling primitives (registered into the exporter's table,
frontends/onnx_export_ops.py; frontends/onnx_export.py imports this module). Written at the exporter's opset 17: ops
ONNX only has later (CumProd-26, the bitwise ops-18, ScatterND max/min-18) are refused clearly."""

from __future__ import annotations

import numpy as np

from ..core.ir import Node
from .onnx_export_ops import CONVERTERS, Ctx, _Reject, _rename, _scalar, converts

for _op, _onnx_op in {"Sign": "Sign", "Tan": "Tan", "Asin": "Asin", "ACos": "Acos", "Atan": "Atan",
                      "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh",
                      "IsInf": "IsInf"}.items():
    CONVERTERS[_op] = _rename(_onnx_op)


@converts("Expm1")
def _expm1(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Sub", [ctx.add("Exp", ins), _scalar(ctx, 1, node.inputs[0])], outs)


@converts("Log1p")
def _log1p(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Log", [ctx.add("Add", [ins[0], _scalar(ctx, 1, node.inputs[0])])], outs)


@converts("CumSum")
def _cumsum(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("CumSum", [ins[0], ctx.const(attrs["axis"])], outs, exclusive=int(attrs["exclusive"]),
            reverse=int(attrs["reverse"]))


@converts("TopK")
def _topk(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    values = outs[0] or ctx.fresh("topk_values")
    wide = outs[1] if attrs["index_dtype"] == "int64" and outs[1] else ctx.fresh("topk_indices")
    ctx.add("TopK", [ins[0], ctx.const([attrs["k"]])], [values, wide], axis=attrs["axis"],
            largest=int(attrs["largest"]), sorted=int(attrs["sorted"]))
    if outs[1] and wide != outs[1]:
        ctx.add("Cast", [wide], [outs[1]], to=6)  # INT32: MindSpore's index dtype


_ND = {"TensorScatterUpdate": "none", "TensorScatterAdd": "add", "TensorScatterMul": "mul"}


@converts(*_ND, "TensorScatterSub", "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin")
def _scatter_nd(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    updates, reduction = ins[2], _ND.get(node.op)
    if node.op == "TensorScatterSub":  # x - u as x + (-u)
        updates, reduction = ctx.add("Neg", [updates]), "add"
    elif node.op == "TensorScatterDiv" and np.dtype(node.inputs[2].type.dtype).kind == "f":
        # x / u as x * (1 / u): equal up to one rounding of the reciprocal
        updates, reduction = ctx.add("Reciprocal", [updates]), "mul"
    if reduction is None:
        raise _Reject(f"{node.op} has no ONNX ScatterND reduction at opset 17 (max/min and integer division "
                      "come with opset 18)")
    # ONNX reads indices as int64 and has no negative-index or skip-out-of-range rule of its own.
    idx = ctx.add("Cast", [ins[1]], to=7)
    ctx.add("ScatterND", [ins[0], idx, updates], outs, reduction=reduction)


@converts("TensorScatterElements")
def _scatter_elements(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if attrs["reduction"] not in ("none", "add", "mul"):
        raise _Reject(f"reduction {attrs['reduction']!r} has no ONNX ScatterElements equivalent at opset 17")
    idx = ctx.add("Cast", [ins[1]], to=7)
    ctx.add("ScatterElements", [ins[0], idx, ins[2]], outs, axis=attrs["axis"], reduction=attrs["reduction"])


@converts("GridSample")
def _grid_sample(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if len(node.inputs[0].type.shape) != 4:
        raise _Reject("GridSample-16 samples 4-D inputs only")
    if attrs["mode"] == "bicubic" and attrs["padding_mode"] == "border" and not attrs["clamp_cubic"]:
        raise _Reject("bicubic sampling with border padding clamps taps only (torch's rule); ONNX clamps the "
                      "coordinate first")
    ctx.add("GridSample", ins, outs, mode=attrs["mode"], padding_mode=attrs["padding_mode"],
            align_corners=int(attrs["align_corners"]))
