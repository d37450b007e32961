"""The ONNX exporter's converters, one per opbuild primitive (``CONVERTERS``), and what they share: the
conversion context (:class:`Ctx`), the ``converts`` decorator and the errors. onnx_export_more.py adds the
newer families' converters; onnx_export.py translates a traced graph with them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..core.errors import OpbuildError
from ..core.ir import Node, Value

#: The ONNX opset written: 17 has LayerNormalization, and ReduceSum (only) takes its axes as an input.
#: The ONNX opset written: 17 has LayerNormalization, and ReduceSum (only) takes its axes as an input.
OPSET = 17

_ONNX_DTYPES = {"float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "int32": TensorProto.INT32,
                "int64": TensorProto.INT64, "bool": TensorProto.BOOL, "float16": TensorProto.FLOAT16,
                "uint8": TensorProto.UINT8, "int8": TensorProto.INT8}


class UnsupportedExportError(OpbuildError, ValueError):
    """The traced graph uses primitives (or attributes of them) the ONNX exporter cannot write. ``problems``
    maps each primitive name to the reasons, all of them found in one pass over the graph."""

    def __init__(self, problems: dict[str, list[str]]) -> None:
        self.problems = problems
        lines = [f"  {op}: {'; '.join(sorted(set(reasons)))}" for op, reasons in sorted(problems.items())]
        super().__init__(f"cannot export to ONNX: {len(problems)} primitive(s) are not supported by the "
                         f"exporter:\n" + "\n".join(lines))


class _Reject(Exception):
    """Raised by a converter whose node's attributes have no ONNX equivalent; the message is the reason."""


def _onnx_dtype(dtype: str) -> int:
    try:
        return _ONNX_DTYPES[dtype]
    except KeyError:
        raise _Reject(f"dtype {dtype} has no ONNX equivalent here") from None


class Ctx:
    """What converters write into: ONNX nodes, constant initializers and fresh value names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._names: set[str] = set()
        self._count = 0

    def fresh(self, hint: str) -> str:
        """A value name not used before (``hint`` plus a counter)."""
        self._count += 1
        name = f"{hint}_{self._count}"
        self._names.add(name)
        return name

    def claim(self, name: str) -> str:
        """``name`` if it is still free, else a fresh variant of it (two captures may share a name)."""
        if name and name not in self._names:
            self._names.add(name)
            return name
        return self.fresh(name or "const")

    def const(self, array: Any, dtype: Any = np.int64, hint: str = "const") -> str:
        """An initializer holding ``array`` (shapes, axes, scalars); returns its name."""
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=dtype), name))
        return name

    def add(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str] | None = None, **attrs: Any) -> str:
        """Append one ONNX node; returns its (first) output name, fresh when ``outputs`` is not given."""
        outs = list(outputs) if outputs is not None else [self.fresh(op_type.lower())]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=self.fresh(f"{op_type}_node"),
                                           **attrs))
        return outs[0]


#: converter(ctx, node, attrs, input names, output names): emits nodes writing every used output.
ConverterFn = Callable[[Ctx, Node, dict, list[str], list[str]], None]
CONVERTERS: dict[str, ConverterFn] = {}


def converts(*ops: str) -> Callable[[ConverterFn], ConverterFn]:
    """Register the decorated function as the converter of ``ops``."""

    def register(fn: ConverterFn) -> ConverterFn:
        for op in ops:
            CONVERTERS[op] = fn
        return fn

    return register


# ---- elementwise --------------------------------------------------------------------------------------------

_SAME_NAME = {"Abs": "Abs", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Neg": "Neg", "Tanh": "Tanh",
              "Sigmoid": "Sigmoid", "ReLU": "Relu", "Erf": "Erf", "Floor": "Floor", "Ceil": "Ceil",
              "Reciprocal": "Reciprocal", "Sin": "Sin", "Cos": "Cos", "Round": "Round", "IsNan": "IsNaN",
              "LogicalNot": "Not", "Softplus": "Softplus", "MatrixDeterminant": "Det"}
_BINARY = {"Add": "Add", "Sub": "Sub", "Mul": "Mul", "RealDiv": "Div", "Maximum": "Max", "Minimum": "Min",
           "Pow": "Pow", "Equal": "Equal", "Greater": "Greater", "Less": "Less", "GreaterEqual": "GreaterOrEqual",
           "LessEqual": "LessOrEqual", "LogicalAnd": "And", "LogicalOr": "Or", "Select": "Where"}


def _rename(onnx_op: str) -> ConverterFn:
    def convert(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
        ctx.add(onnx_op, ins, outs)

    return convert


for _op, _onnx_op in {**_SAME_NAME, **_BINARY}.items():
    CONVERTERS[_op] = _rename(_onnx_op)


@converts("Rsqrt")
def _rsqrt(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Reciprocal", [ctx.add("Sqrt", ins)], outs)


@converts("Square")
def _square(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Mul", [ins[0], ins[0]], outs)


@converts("NotEqual")
def _not_equal(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Not", [ctx.add("Equal", ins)], outs)


def _scalar(ctx: Ctx, value: float, like: Value) -> str:
    return ctx.const(value, np.dtype(like.type.dtype), hint="scalar")


@converts("ReLU6")
def _relu6(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    x = node.inputs[0]
    ctx.add("Clip", [ins[0], _scalar(ctx, 0, x), _scalar(ctx, 6, x)], outs)


@converts("GeLU")
def _gelu(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # opbuild's GeLU is the exact (erf) one: x * 0.5 * (1 + erf(x / sqrt(2))); opset 17 has no Gelu node.
    x = node.inputs[0]
    erf = ctx.add("Erf", [ctx.add("Mul", [ins[0], _scalar(ctx, 1 / np.sqrt(2), x)])])
    half = ctx.add("Mul", [ins[0], _scalar(ctx, 0.5, x)])
    ctx.add("Mul", [half, ctx.add("Add", [erf, _scalar(ctx, 1, x)])], outs)


@converts("ClipByValue")
def _clip(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # The bounds may be tensors that broadcast, which ONNX Clip does not allow: min(max(x, lo), hi).
    ctx.add("Min", [ctx.add("Max", [ins[0], ins[1]]), ins[2]], outs)


@converts("Cast")
def _cast(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Cast", ins, outs, to=_onnx_dtype(node.outputs[0].type.dtype))


@converts("Dropout")
def _dropout(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Inference: the identity (a mask output, if any, is all ones).
    ctx.add("Identity", ins[:1], outs[:1])
    if len(outs) > 1 and outs[1]:
        ctx.add("ConstantOfShape", [ctx.add("Shape", ins[:1])], [outs[1]],
                value=numpy_helper.from_array(np.ones(1, np.dtype(node.outputs[1].type.dtype))))


# ---- matmul, bias, normalization -----------------------------------------------------------------------------

def _swap_last(ctx: Ctx, name: str, rank: int) -> str:
    perm = list(range(rank))
    perm[-2:] = perm[-1], perm[-2]
    return ctx.add("Transpose", [name], perm=perm)


@converts("MatMul", "BatchMatMul")
def _matmul(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    a, b = ins
    if attrs.get("transpose_a"):
        a = _swap_last(ctx, a, node.inputs[0].type.rank)
    if attrs.get("transpose_b"):
        b = _swap_last(ctx, b, node.inputs[1].type.rank)
    ctx.add("MatMul", [a, b], outs)


@converts("BiasAdd")
def _bias_add(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    rank = node.inputs[0].type.rank
    if attrs.get("data_format", "NCHW") not in ("NCHW", "NCDHW") and rank > 2:
        raise _Reject(f"data_format {attrs['data_format']!r}")
    bias = ins[1]
    if rank > 2:  # (C,) -> (C, 1, ..., 1): broadcast over the spatial axes of (N, C, ...)
        bias = ctx.add("Unsqueeze", [bias, ctx.const(list(range(1, rank - 1)))])
    ctx.add("Add", [ins[0], bias], outs)


@converts("BatchNorm")
def _batch_norm(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if attrs.get("is_training"):
        raise _Reject("training mode (export runs the network in inference mode)")
    ctx.add("BatchNormalization", ins[:5], outs[:1], epsilon=float(attrs.get("epsilon", 1e-5)))


@converts("LayerNorm")
def _layer_norm(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    rank = node.inputs[0].type.rank
    axis = attrs["begin_norm_axis"] % rank
    if attrs["begin_params_axis"] % rank != axis:
        raise _Reject("begin_params_axis different from begin_norm_axis")
    if any(outs[1:]):
        raise _Reject("its mean/variance outputs are used")
    ctx.add("LayerNormalization", ins, outs[:1], axis=axis, epsilon=float(attrs["epsilon"]))


@converts("Softmax", "LogSoftmax")
def _softmax(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    axis = attrs.get("axis", -1)
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise _Reject(f"axis {tuple(axis)} (ONNX normalizes over one axis)")
        axis = axis[0]
    ctx.add(node.op, ins, outs, axis=int(axis))


# ---- convolution and pooling ---------------------------------------------------------------------------------

def _onnx_pads(pad: Sequence[int]) -> list[int]:
    top, bottom, left, right = pad
    return [top, left, bottom, right]  # ONNX: every axis's begin, then every axis's end


@converts("Conv2D")
def _conv2d(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    if attrs.get("data_format", "NCHW") != "NCHW":
        raise _Reject(f"data_format {attrs['data_format']!r}")
    ctx.add("Conv", ins, outs, kernel_shape=list(attrs["kernel_size"]), strides=list(attrs["stride"]),
            dilations=list(attrs["dilation"]), pads=_onnx_pads(attrs["pad"]), group=int(attrs["group"]))


@converts("Conv2DBackpropInput")
def _conv_transpose(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # The cotangent of a convolution is the transposed convolution with the same weight (O, C/g, kh, kw):
    # ONNX ConvTranspose reads its weight as (C_in=O, C_out/g, kh, kw), the same array.
    if attrs.get("group", 1) != 1:
        raise _Reject("group != 1")
    # Explicit pads plus output_padding rather than output_shape: with output_shape ONNX recomputes the pads.
    pads = _onnx_pads(attrs["pad"])
    extra = [out - (s * (n - 1) + (k - 1) * d + 1 - pads[i] - pads[i + 2])
             for i, (out, n, s, k, d) in enumerate(zip(attrs["input_size"][2:], node.inputs[0].type.shape[2:],
                                                       attrs["stride"], attrs["kernel_size"], attrs["dilation"],
                                                       strict=True))]
    ctx.add("ConvTranspose", ins, outs, kernel_shape=list(attrs["kernel_size"]), strides=list(attrs["stride"]),
            dilations=list(attrs["dilation"]), pads=pads, output_padding=extra)


@converts("MaxPool", "AvgPool")
def _pool(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    kw = {"kernel_shape": list(attrs["kernel_size"]), "strides": list(attrs["strides"]),
          "pads": _onnx_pads(attrs["pad"]), "ceil_mode": int(bool(attrs.get("ceil_mode")))}
    if node.op == "AvgPool":
        ctx.add("AveragePool", ins, outs, count_include_pad=int(bool(attrs.get("count_include_pad"))), **kw)
    else:
        ctx.add("MaxPool", ins, outs, **kw)


@converts("GlobalAvgPool")
def _global_avg_pool(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("GlobalAveragePool", ins, outs)


# ---- reductions ------------------------------------------------------------------------------------------------

@converts("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd")
def _reduce(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    axes = [int(a) for a in attrs.get("axis", ())]
    if not axes:  # nothing to reduce: opbuild returns the input, ONNX would reduce over every axis
        ctx.add("Identity", ins, outs)
        return
    keep = int(bool(attrs.get("keep_dims")))
    if node.op == "ReduceSum":  # since opset 13 the axes are an input
        ctx.add("ReduceSum", [ins[0], ctx.const(axes)], outs, keepdims=keep)
    else:
        ctx.add(node.op, ins, outs, axes=axes, keepdims=keep)


@converts("ArgMax", "ArgMin")
def _arg(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    idx = ctx.add(node.op, ins, axis=int(attrs["axis"]), keepdims=0)
    ctx.add("Cast", [idx], outs, to=_onnx_dtype(node.outputs[0].type.dtype))


# ---- layout and slicing ----------------------------------------------------------------------------------------

@converts("Reshape", "Flatten", "Squeeze", "ExpandDims")
def _reshape(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Every view op has a static output shape: one Reshape to it is exact (and simpler than four converters).
    ctx.add("Reshape", [ins[0], ctx.const(list(node.outputs[0].type.shape), hint="shape")], outs)


@converts("Transpose")
def _transpose(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Transpose", ins, outs, perm=[int(p) for p in attrs["perm"]])


@converts("Concat")
def _concat(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Concat", ins, outs, axis=int(attrs["axis"]))


@converts("Split")
def _split(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    axis, num = int(attrs["axis"]), int(attrs["output_num"])
    size = node.inputs[0].type.shape[axis] // num
    ctx.add("Split", [ins[0], ctx.const([size] * num)], [o or ctx.fresh("unused") for o in outs], axis=axis)


@converts("Slice")
def _slice(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    begin, size = list(attrs["begin"]), list(attrs["size"])
    ends = [b + s for b, s in zip(begin, size, strict=True)]
    ctx.add("Slice", [ins[0], ctx.const(begin), ctx.const(ends)], outs)


@converts("StridedSlice")
def _strided_slice(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # Normalized: per input axis a start, step and count, then a reshape for new and shrunk axes.
    start, step, count = attrs["start"], attrs["step"], attrs["count"]
    ends = [s + st * (c - 1) + (1 if st > 0 else -1) for s, st, c in zip(start, step, count, strict=True)]
    ends = [e if e >= 0 else -(2 ** 62) for e in ends]  # a negative step running to the front: past index 0
    sliced = ctx.add("Slice", [ins[0], ctx.const(start), ctx.const(ends), ctx.const(list(range(len(start)))),
                               ctx.const(step)])
    ctx.add("Reshape", [sliced, ctx.const(list(node.outputs[0].type.shape), hint="shape")], outs)


@converts("Gather")
def _gather(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Gather", ins, outs, axis=int(attrs["axis"]))


@converts("GatherD")
def _gather_d(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("GatherElements", ins, outs, axis=int(attrs["dim"]))


@converts("GatherNd")
def _gather_nd(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    # ONNX GatherND takes int64 indices only.
    idx = ins[1] if node.inputs[1].type.dtype == "int64" else ctx.add("Cast", [ins[1]], to=_onnx_dtype("int64"))
    ctx.add("GatherND", [ins[0], idx], outs)


@converts("Tile")
def _tile(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    reps, shape = list(attrs["multiples"]), list(node.inputs[0].type.shape)
    x = ins[0]
    if len(reps) > len(shape):  # MindSpore prepends size-1 axes; ONNX's Tile wants one repeat per axis
        x = ctx.add("Reshape", [x, ctx.const([1] * (len(reps) - len(shape)) + shape)])
    ctx.add("Tile", [x, ctx.const(reps)], outs)


@converts("BroadcastTo")
def _broadcast_to(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    ctx.add("Expand", [ins[0], ctx.const(list(node.outputs[0].type.shape), hint="shape")], outs)


@converts("Pad")
def _pad(ctx: Ctx, node: Node, attrs: dict, ins: list[str], outs: list[str]) -> None:
    pairs = [list(p) for p in attrs["paddings"]]
    ctx.add("Pad", [ins[0], ctx.const([p[0] for p in pairs] + [p[1] for p in pairs])], outs, mode="constant")


# ---- the graph -------------------------------------------------------------------------------------------------
