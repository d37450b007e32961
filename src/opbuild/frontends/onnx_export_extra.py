"""ONNX export of the primitives whose ONNX equivalent is a small composition at opset 17: the rounding and
remainder family (FloorDiv, FloorMod, Mod, Trunc), Atan2, IsFinite, Sinc, the constant makers (OnesLike,
ZerosLike, Fill), UnsortedSegmentSum (ScatterND with ``add``), the softmax cross-entropies,
LogMatrixDeterminant (through Det), Invert, StopGradient and CustomGradient. Registered into the exporter's table
(frontends/onnx_export_ops.py); frontends/onnx_export.py imports this module. tests/onnx/export_cases.py checks
each against onnxruntime."""

from __future__ import annotations

import math

import numpy as np
from onnx import numpy_helper

from ..core.ir import Node
from .onnx_export_ops import Ctx, _Reject, _scalar, converts

_INT64 = 7  # TensorProto.INT64


def _is_float(node: Node, i: int = 0) -> bool:
    return np.dtype(node.inputs[i].type.dtype).kind == "f"


def _zero(ctx: Ctx, node: Node, i: int = 0) -> str:
    return _scalar(ctx, 0, node.inputs[i])


@converts("Mod")
def _mod(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # MindSpore's Mod truncates (C's fmod): ONNX Mod with fmod=1, for floats and integers alike.
    ctx.add("Mod", ins, outs, fmod=1)


@converts("FloorMod")
def _floor_mod(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if not _is_float(node):
        ctx.add("Mod", ins, outs, fmod=0)  # integers: the remainder takes the divisor's sign
        return
    # ONNX forbids fmod=0 for floats: the truncated remainder, moved by b where its sign differs from b's
    # (NumPy's rule, which MindSpore's CPU kernel follows).
    r = ctx.add("Mod", ins, fmod=1)
    zero = _zero(ctx, node)
    differs = ctx.add("Xor", [ctx.add("Less", [r, zero]), ctx.add("Less", [ins[1], zero])])
    move = ctx.add("And", [ctx.add("Not", [ctx.add("Equal", [r, zero])]), differs])
    ctx.add("Where", [move, ctx.add("Add", [r, ins[1]]), r], outs)


@converts("FloorDiv")
def _floor_div(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if _is_float(node):
        ctx.add("Floor", [ctx.add("Div", ins)], outs)
        return
    # ONNX's integer Div truncates: one less where the division is inexact and the signs differ.
    q = ctx.add("Div", ins)
    zero = _zero(ctx, node)
    inexact = ctx.add("Not", [ctx.add("Equal", [ctx.add("Mod", ins, fmod=1), zero])])
    signs = ctx.add("Xor", [ctx.add("Less", [ins[0], zero]), ctx.add("Less", [ins[1], zero])])
    ctx.add("Where", [ctx.add("And", [inexact, signs]), ctx.add("Sub", [q, _scalar(ctx, 1, node.inputs[0])]), q],
            outs)


@converts("Trunc")
def _trunc(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if not _is_float(node):
        ctx.add("Identity", ins, outs)
        return
    ctx.add("Where", [ctx.add("Less", [ins[0], _zero(ctx, node)]), ctx.add("Ceil", ins), ctx.add("Floor", ins)], outs)


@converts("Atan2")
def _atan2(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    y, x = ins
    like = node.inputs[0]
    zero = _zero(ctx, node)
    base = ctx.add("Atan", [ctx.add("Div", [y, x])])
    # x < 0: the other half plane, +pi above the axis and -pi below; x == 0: +-pi/2 by y's sign (0 at 0).
    below = ctx.add("Less", [y, zero])
    half_turn = ctx.add("Where", [below, _scalar(ctx, -math.pi, like), _scalar(ctx, math.pi, like)])
    turned = ctx.add("Where", [ctx.add("Less", [x, zero]), ctx.add("Add", [base, half_turn]), base])
    axis = ctx.add("Mul", [ctx.add("Sign", [y]), _scalar(ctx, math.pi / 2, like)])
    ctx.add("Where", [ctx.add("Equal", [x, zero]), axis, turned], outs)


@converts("IsFinite")
def _is_finite(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if not _is_float(node):
        _constant_like(ctx, ins[0], True, np.bool_, outs)
        return
    ctx.add("Not", [ctx.add("Or", [ctx.add("IsInf", ins), ctx.add("IsNaN", ins)])], outs)


@converts("Sinc")
def _sinc(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    like = node.inputs[0]
    px = ctx.add("Mul", [ins[0], _scalar(ctx, math.pi, like)])
    zero = ctx.add("Equal", [ins[0], _zero(ctx, node)])
    safe = ctx.add("Where", [zero, _scalar(ctx, 1, like), px])  # no 0/0 where the answer is 1
    ctx.add("Where", [zero, _scalar(ctx, 1, like), ctx.add("Div", [ctx.add("Sin", [safe]), safe])], outs)


def _constant_like(ctx: Ctx, x: str, value, dtype, outs: list[str]) -> None:
    ctx.add("ConstantOfShape", [ctx.add("Shape", [x])], outs,
            value=numpy_helper.from_array(np.array([value], dtype=dtype)))


@converts("OnesLike", "ZerosLike")
def _ones_zeros_like(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    _constant_like(ctx, ins[0], 1 if node.op == "OnesLike" else 0, np.dtype(node.outputs[0].type.dtype), outs)


@converts("Fill")
def _fill(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    out = node.outputs[0].type
    if isinstance(attrs["value"], list):
        raise _Reject("a complex value has no ONNX tensor type here")
    ctx.add("Constant", [], outs, value=numpy_helper.from_array(np.full(out.shape, attrs["value"],
                                                                        np.dtype(out.dtype))))


@converts("UnsortedSegmentSum")
def _segment_sum(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Sums the rows of x into num_segments slots: ScatterND(zeros, ids[..., None], x, add). ONNX rejects an id
    # outside [0, num_segments) at run time where opbuild drops that row (documented in docs/onnx.md).
    out = node.outputs[0].type
    zeros = ctx.add("ConstantOfShape", [ctx.const(list(out.shape))],
                    value=numpy_helper.from_array(np.zeros(1, np.dtype(out.dtype))))
    ids = ctx.add("Unsqueeze", [ctx.add("Cast", [ins[1]], to=_INT64), ctx.const([-1])])
    ctx.add("ScatterND", [zeros, ids, ins[0]], outs, reduction="add")


@converts("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_ce(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("SoftmaxCrossEntropyLoss", [ins[0], ctx.add("Cast", [ins[1]], to=_INT64)], outs[:1], reduction="mean")


@converts("SoftmaxCrossEntropyWithLogits")
def _dense_ce(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # (loss per row, its gradient wrt the logits): -sum(labels * log_softmax(x), -1) and softmax(x) - labels.
    logits, labels = ins
    if outs[0]:
        prod = ctx.add("Mul", [labels, ctx.add("LogSoftmax", [logits], axis=-1)])
        ctx.add("Neg", [ctx.add("ReduceSum", [prod, ctx.const([-1])], keepdims=0)], [outs[0]])
    if len(outs) > 1 and outs[1]:
        ctx.add("Sub", [ctx.add("Softmax", [logits], axis=-1), labels], [outs[1]])


@converts("LogMatrixDeterminant")
def _log_det(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # ONNX has Det but no LU: sign and log|det| from the determinant (it overflows where MindSpore's LU-based
    # kernel would not, for determinants beyond the dtype's range).
    det = ctx.add("Det", ins)
    if outs[0]:
        ctx.add("Sign", [det], [outs[0]])
    if len(outs) > 1 and outs[1]:
        ctx.add("Log", [ctx.add("Abs", [det])], [outs[1]])


@converts("Invert")
def _invert(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Bitwise not without opset 18's BitwiseNot: -x - 1 in two's complement, max - x for unsigned integers.
    dt = np.dtype(node.inputs[0].type.dtype)
    if dt.kind == "u":
        ctx.add("Sub", [_scalar(ctx, np.iinfo(dt).max, node.inputs[0]), ins[0]], outs)
    elif dt.kind == "i":
        ctx.add("Sub", [ctx.add("Neg", ins), _scalar(ctx, 1, node.inputs[0])], outs)
    else:
        raise _Reject(f"dtype {dt} (bitwise not takes integers)")


@converts("StopGradient")
def _stop_gradient(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Only gradients see it: in an inference graph it is the identity.
    ctx.add("Identity", ins, outs)


@converts("CustomGradient")
def _custom_gradient(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # The junction of a Cell's own bprop: its outputs are its last inputs; the bprop matters to gradients only.
    for src, dst in zip(ins[attrs["n_in"]:], outs, strict=True):
        if dst:
            ctx.add("Identity", [src], [dst])
