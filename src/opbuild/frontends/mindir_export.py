"""MINDIR writer: a traced opbuild graph as a MINDIR file that MindSpore 2.10 loads (``mindspore.load`` +
``nn.GraphCell``), what ``opbuild.export(..., file_format="MINDIR")`` writes.

The network is traced for the inputs' signature in inference mode, as for ONNX. Every node of the traced
graph becomes a MindSpore primitive node (:data:`_CONVERTERS`): the primitives MindSpore writes with
attributes (Conv2D, MaxPool) get the attributes MindSpore's own export writes, the primitive functions get
their constructor arguments as trailing constant inputs (enumerations as MindSpore's numbers), and tuple
results (BatchNorm, LayerNorm) are read through TupleGetItem. Parameters are the graph's parameters under
their network names; other captured tensors are constants. Each node carries its result's shape and dtype
(the ``shape`` attribute MindSpore reads as the node's abstract).

Primitives without a converter are all listed in one :class:`UnsupportedMindirExportError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..cache.fsio import atomic_write
from ..core import trace
from ..core.errors import OpbuildError
from ..core.ir import Graph, Node
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from .mindir_ops import TYPE_IDS
from .mindir_proto import (
    ATTR_NUMBER,
    PRIMITIVE,
    PRIMITIVE_FUNCTION,
    TENSOR_NUMBER,
    AttributeProto,
    ModelProto,
    TensorProto,
)


class UnsupportedMindirExportError(OpbuildError, ValueError):
    """The traced graph uses primitives the MINDIR writer has no translation for; ``ops`` lists them."""

    def __init__(self, problems: dict[str, str]):
        self.ops = sorted(problems)
        lines = [f"cannot export to MINDIR: {len(problems)} part(s) of the traced network have no MINDIR "
                 f"translation: {', '.join(self.ops)}"] + [f"  - {op}: {why}" for op, why in sorted(problems.items())]
        lines.append(f"opbuild's MINDIR writer translates: {', '.join(sorted(_CONVERTERS))}; "
                     "file_format='ONNX' covers more primitives")
        super().__init__("\n".join(lines))


class _Reject(Exception):
    """A converter cannot translate its node's attributes (the message says why)."""


_FORMAT = {"NCHW": 0, "NHWC": 1}
_TYPE_ID = {("bool" if name == "bool_" else name): number for number, name in TYPE_IDS.items()}
_PAD_MODE = {"pad": 0, "same": 1, "valid": 2}


def _attr(value: Any, name: str = "") -> Any:
    """A Python value as an AttributeProto the way MindSpore writes one (ints of a tuple in ``ints``)."""
    a = AttributeProto(name=name)
    if isinstance(value, bool):
        a.type, a.i = ATTR_NUMBER["BOOL"], int(value)
    elif isinstance(value, (int, np.integer)):
        a.type, a.i = ATTR_NUMBER["INT64"], int(value)
    elif isinstance(value, (float, np.floating)):
        a.type, a.f = ATTR_NUMBER["FLOAT"], float(value)
    elif isinstance(value, str):
        a.type, a.s = ATTR_NUMBER["STRING"], value.encode()
    elif isinstance(value, (tuple, list)):
        a.type = ATTR_NUMBER["TUPLE" if isinstance(value, tuple) else "LIST"]
        for v in value:
            item = _attr(v)
            if item.type in (ATTR_NUMBER["INT64"], ATTR_NUMBER["BOOL"]):
                item.ints.append(item.i)
                item.ClearField("i")
            elif item.type == ATTR_NUMBER["FLOAT"]:
                item.floats.append(item.f)
                item.ClearField("f")
            elif item.type == ATTR_NUMBER["STRING"]:
                item.strings.append(item.s)
                item.ClearField("s")
            a.values.append(item)
    elif isinstance(value, np.ndarray):
        a.type = ATTR_NUMBER["TENSORS"]
        a.tensors.append(_tensor(value, "value0"))
    else:
        raise _Reject(f"a constant of type {type(value).__name__} has no MINDIR form")
    return a


def _tensor(arr: np.ndarray, name: str = "") -> Any:
    dtype = np.dtype(arr.dtype).name
    if dtype not in TENSOR_NUMBER:
        raise _Reject(f"tensors of dtype {dtype} have no MINDIR form")
    t = TensorProto(name=name, data_type=TENSOR_NUMBER[dtype], dims=list(arr.shape))
    t.raw_data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    return t


def _abstract(types: Sequence[Any]) -> Any:
    """The ``shape`` attribute of a node: a tensor's shape and dtype, or a tuple of them."""
    def one(t: Any) -> Any:
        a = AttributeProto(type=ATTR_NUMBER["TENSORS"])
        a.tensors.append(TensorProto(dims=list(t.shape), data_type=TENSOR_NUMBER[t.dtype]))
        return a
    if len(types) == 1:
        a = one(types[0])
        a.name = "shape"
        return a
    a = AttributeProto(name="shape", type=ATTR_NUMBER["TUPLE"])
    a.values.extend(one(t) for t in types)
    a.seq_info.is_dyn_len = False
    return a


class _Writer:
    """Builds the ModelProto: names, constants, primitives and nodes of the one graph."""

    def __init__(self, name: str):
        self.model = ModelProto(ir_version="1.1", producer_name="MindSpore", model_version="2.10.0",
                                little_endian=True, mind_ir_version=3)
        self.graph = self.model.graph
        self.graph.name = name
        self.count = 0
        self.names: dict[int, str] = {}

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{self.graph.name}:{stem}_{self.count}"

    def const(self, value: Any) -> str:
        out = f"ValueNode_{self.count + 1}"
        self.count += 1
        node = self.graph.node.add(op_type="Constant", name=out)
        node.output.append(out)
        node.attribute.append(_attr(value, "value"))
        return out

    def call(self, prim: str, kind: int, inputs: list[str], types: Sequence[Any],
             attrs: dict[str, Any] | None = None) -> str:
        ref = f"{prim}:{len(self.model.primitives) + 1}"
        p = self.model.primitives.add(name=ref, op_type=prim, instance_name="", prim_type=kind)
        for k, v in (attrs or {}).items():
            p.attribute.append(_attr(v, k))
        out = self.fresh("CNode")
        node = self.graph.node.add(op_type=f"REF::{ref}", name=out)
        node.input.extend(inputs)
        node.output.append(out)
        node.attribute.append(_abstract(types))
        return out

    def fn(self, prim: str, inputs: list[str], node: Node, *consts: Any) -> str:
        """A primitive function: the tensor inputs, then its constructor arguments as constants."""
        return self.call(prim, PRIMITIVE_FUNCTION, [*inputs, *(self.const(c) for c in consts)],
                         [o.type for o in node.outputs])

    def item(self, tup: str, index: int, t: Any) -> str:
        return self.call("TupleGetItem", PRIMITIVE, [tup, self.const(index)], [t])


Converter = Callable[[_Writer, Node, dict, list[str]], list[str]]
_CONVERTERS: dict[str, Converter] = {}


def _conv(*ops: str) -> Callable[[Converter], Converter]:
    def register(fn: Converter) -> Converter:
        for op in ops:
            _CONVERTERS[op] = fn
        return fn
    return register


@_conv("ReLU", "Tanh", "Sigmoid", "Exp", "Log", "Sqrt", "Rsqrt", "Neg", "Abs", "Erf", "Add", "Sub", "Mul",
       "RealDiv", "Div", "Maximum", "Minimum", "Pow", "Greater", "Less", "Equal", "Select", "Square", "Floor",
       "Sin", "Cos", "ReLU6", "Softplus")
def _plain(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    if attrs:
        raise _Reject(f"attributes {sorted(attrs)} are not translated")
    return [w.fn(node.op, ins, node)]


@_conv("Reshape")
def _reshape(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("Reshape", ins[:1], node, tuple(int(d) for d in node.outputs[0].type.shape))]


@_conv("Transpose")
def _transpose(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("Transpose", ins[:1], node, tuple(int(d) for d in attrs["perm"]))]


@_conv("MatMul", "BatchMatMul")
def _matmul(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn(node.op, ins, node, bool(attrs.get("transpose_a")), bool(attrs.get("transpose_b")))]


@_conv("BiasAdd")
def _bias_add(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("BiasAdd", ins, node, _FORMAT[attrs.get("data_format", "NCHW")])]


@_conv("Softmax", "LogSoftmax")
def _softmax(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    axis = attrs.get("axis", -1)
    return [w.fn(node.op, ins, node, tuple(axis) if isinstance(axis, (list, tuple)) else (int(axis),))]


@_conv("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin")
def _reduce(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    axis = attrs.get("axis", ())
    axis = tuple(int(a) for a in axis) if isinstance(axis, (list, tuple)) else (int(axis),)
    extra = (False,) if node.op == "ReduceSum" else ()  # ReduceSum's skip_mode
    return [w.fn(node.op, ins[:1], node, axis, bool(attrs.get("keep_dims", False)), *extra)]


def _nchw(attrs: dict) -> None:
    if attrs.get("data_format", "NCHW") != "NCHW":
        raise _Reject("only NCHW is translated")


@_conv("Conv2D")
def _conv2d(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    _nchw(attrs)
    k, s, d = (tuple(int(v) for v in attrs[n]) for n in ("kernel_size", "stride", "dilation"))
    pad = tuple(int(v) for v in attrs.get("pad", (0, 0, 0, 0)))
    mode = attrs.get("pad_mode", "pad")
    if mode == "pad" and not any(pad):
        mode = "valid"
    group = int(attrs.get("group", 1))
    prim = {"kernel_size": k, "mode": 1, "out_channel": int(attrs["out_channel"]), "pad": pad, "pad_mode": mode,
            "format": "NCHW", "pad_list": pad, "groups": group, "group": group, "stride": (1, 1, *s[-2:]),
            "dilation": (1, 1, *d[-2:]), "input_names": ["x", "w"], "output_names": ["output"]}
    out = w.call("Conv2D", PRIMITIVE, ins[:2], [node.outputs[0].type], prim)
    return [out]


def _same_pads(size: Sequence[int], k: Sequence[int], s: Sequence[int]) -> list[int]:
    """The (top, bottom, left, right) padding of MindSpore's pad_mode 'same' for spatial ``size``."""
    pads = []
    for n, kk, ss in zip(size, k, s):
        total = max((-(-n // ss) - 1) * ss + kk - n, 0)
        pads += [total // 2, total - total // 2]
    return pads


def _pool_window(node: Node, attrs: dict) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """Kernel, strides and MindSpore's pad mode ("VALID" or "SAME": the padding MindSpore's pools have)."""
    _nchw(attrs)
    k, s = tuple(int(v) for v in attrs["kernel_size"])[-2:], tuple(int(v) for v in attrs["strides"])[-2:]
    pad = [int(v) for v in attrs.get("pad", (0, 0, 0, 0))]
    if attrs.get("ceil_mode"):
        raise _Reject("ceil_mode is not translated")
    if not any(pad):
        return k, s, "VALID"
    if pad == _same_pads(node.inputs[0].type.shape[-2:], k, s):
        return k, s, "SAME"
    raise _Reject(f"padding {pad} is neither MindSpore's 'valid' nor 'same'")


@_conv("MaxPool")
def _max_pool(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    k, s, mode = _pool_window(node, attrs)
    prim = {"pad_mode": mode, "kernel_size": (1, 1, *k[-2:]), "format": "NCHW", "strides": (1, 1, *s[-2:]),
            "input_names": ["x"], "output_names": ["output"]}
    return [w.call("MaxPool", PRIMITIVE, ins[:1], [node.outputs[0].type], prim)]


@_conv("AvgPool")
def _avg_pool(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    k, s, mode = _pool_window(node, attrs)
    if mode == "SAME" and not attrs.get("count_include_pad", True):
        raise _Reject("count_include_pad=False with padding is not translated")
    return [w.fn("AvgPool", ins[:1], node, k, s, _PAD_MODE[mode.lower()], _FORMAT["NCHW"])]


@_conv("BatchNorm")
def _batch_norm(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    _nchw(attrs)
    if len(ins) != 5:
        raise _Reject(f"{len(ins)} inputs (inference BatchNorm has 5)")
    x, c = node.outputs[0].type, node.inputs[1].type
    tup = w.call("BatchNorm", PRIMITIVE_FUNCTION,
                 [*ins, *(w.const(v) for v in (False, float(attrs.get("epsilon", 1e-5)), 0.1, 0))],
                 [x, c, c, c, c])
    return [w.item(tup, 0, x)]


@_conv("LayerNorm")
def _layer_norm(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    types = [o.type for o in node.outputs]
    consts = (int(attrs["begin_norm_axis"]), int(attrs["begin_params_axis"]), float(attrs["epsilon"]))
    tup = w.call("LayerNorm", PRIMITIVE_FUNCTION, [*ins, *(w.const(v) for v in consts)], types)
    return [w.item(tup, i, t) for i, t in enumerate(types)]


@_conv("StridedSlice")
def _strided_slice(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    start, step, count = (tuple(int(v) for v in attrs[k]) for k in ("start", "step", "count"))
    end = tuple(b + (c - 1) * s + (1 if s > 0 else -1) for b, c, s in zip(start, count, step))
    if any(s <= 0 for s in step):
        raise _Reject("negative steps are not translated")
    sliced = w.call("StridedSlice", PRIMITIVE_FUNCTION,
                    [ins[0], *(w.const(v) for v in (start, end, step, 0, 0, 0, 0, 0))],
                    [type(node.outputs[0].type)(count, node.outputs[0].type.dtype)])
    shape = tuple(int(d) for d in node.outputs[0].type.shape)
    if shape == count:
        return [sliced]
    return [w.call("Reshape", PRIMITIVE_FUNCTION, [sliced, w.const(shape)], [node.outputs[0].type])]


def _ints(v: Any) -> tuple[int, ...]:
    return tuple(int(a) for a in v) if isinstance(v, (list, tuple)) else (int(v),)


@_conv("Pad")
def _pad(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    if set(attrs) - {"paddings"}:
        raise _Reject(f"attributes {sorted(set(attrs) - {'paddings'})} are not translated (zero padding only)")
    paddings = tuple(tuple(int(v) for v in p) for p in attrs["paddings"])
    prim = {"paddings": paddings, "input_names": ["x"], "output_names": ["y"]}
    return [w.call("Pad", PRIMITIVE, ins[:1], [node.outputs[0].type], prim)]


@_conv("Split")
def _split(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    types = [o.type for o in node.outputs]
    consts = (int(attrs.get("axis", 0)), int(attrs.get("output_num", len(types))))
    tup = w.call("Split", PRIMITIVE_FUNCTION, [ins[0], *(w.const(v) for v in consts)], types)
    return [w.item(tup, i, t) for i, t in enumerate(types)]


@_conv("Squeeze")
def _squeeze(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("Squeeze", ins[:1], node, _ints(attrs.get("axis", ())))]


@_conv("ExpandDims")
def _expand_dims(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("ExpandDims", ins[:1], node, int(attrs["axis"]))]


@_conv("Tile")
def _tile(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("Tile", ins[:1], node, _ints(attrs["multiples"]))]


@_conv("ZerosLike", "OnesLike")
def _like(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn(node.op, ins[:1], node)]


@_conv("Gather")
def _gather(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    if attrs.get("batch_dims", 0):
        raise _Reject("batch_dims is not translated")
    return [w.fn("Gather", ins[:2], node, int(attrs.get("axis", 0)), 0)]


@_conv("Concat")
def _concat(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    tup = w.call("MakeTuple", PRIMITIVE, ins, [v.type for v in node.inputs])
    return [w.fn("Concat", [tup], node, int(attrs.get("axis", 0)))]


@_conv("Cast")
def _cast(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    return [w.fn("Cast", ins[:1], node, _TYPE_ID[node.outputs[0].type.dtype])]


@_conv("ArgMax", "ArgMin")
def _argmax(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    prim = "Argmax" if node.op == "ArgMax" else "Argmin"
    return [w.fn(prim, ins[:1], node, int(attrs.get("axis", -1)), _TYPE_ID[node.outputs[0].type.dtype])]


@_conv("ClipByValue")
def _clip(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    t = [node.outputs[0].type]
    low = w.call("Maximum", PRIMITIVE_FUNCTION, ins[:2], t)
    return [w.call("Minimum", PRIMITIVE_FUNCTION, [low, ins[2]], t)]


@_conv("GeLU")
def _gelu(w: _Writer, node: Node, attrs: dict, ins: list[str]) -> list[str]:
    # opbuild's GeLU is the exact (erf) form; MindSpore's GeLU primitive is the tanh approximation, so the exact
    # form is written as MindSpore's own export writes nn.GELU(approximate=False): x * (erf(x/sqrt2) + 1) * 0.5.
    t = node.outputs[0].type
    dt = np.dtype(t.dtype)
    scalar = lambda v: w.const(np.asarray(v, dt))  # noqa: E731
    fn = lambda prim, a, b: w.call(prim, PRIMITIVE_FUNCTION, [a, b], [t])  # noqa: E731
    erf = w.call("Erf", PRIMITIVE_FUNCTION, [fn("Mul", ins[0], scalar(0.7071067811865476))], [t])
    return [fn("Mul", fn("Mul", ins[0], fn("Add", erf, scalar(1.0))), scalar(0.5))]


def graph_to_mindir(graph: Graph, name: str) -> Any:
    """Translate a traced ``graph`` into a MINDIR ModelProto (see the module docstring)."""
    w = _Writer(f"opbuild_{name}")
    g = w.graph
    for i, v in enumerate(graph.inputs):
        w.names[id(v)] = f"{g.name}:x{i}"
        vi = g.input.add(name=w.names[id(v)])
        vi.tensor.append(TensorProto(dims=list(v.type.shape), data_type=TENSOR_NUMBER[v.type.dtype]))
    problems: dict[str, str] = {}
    taken: set[str] = set()
    for v, obj in graph.captures:
        arr = np.ascontiguousarray(obj.asnumpy())
        if isinstance(obj, Parameter) and obj.name:
            key, k = obj.name, 1
            while f"{g.name}:{key}" in taken:  # two Parameters of one name: the file needs distinct ones
                key, k = f"{obj.name}_{k}", k + 1
            w.names[id(v)] = f"{g.name}:{key}"
            taken.add(w.names[id(v)])
            t = _tensor(arr, w.names[id(v)])
            t.ref_key = key
            g.parameter.append(t)
        else:
            w.names[id(v)] = w.const(arr)
    for node in graph.nodes:
        convert = _CONVERTERS.get(node.op)
        if convert is None:
            problems.setdefault(node.op, "no MINDIR translation for this primitive")
            continue
        if any(id(v) not in w.names for v in node.inputs):
            continue  # reads an untranslated node's result: that node is reported already
        attrs = node.spec.attrs if node.spec is not None else node.attrs
        try:
            outs = convert(w, node, dict(attrs or {}), [w.names[id(v)] for v in node.inputs])
        except _Reject as e:
            problems.setdefault(node.op, str(e))
            continue
        except KeyError as e:
            problems.setdefault(node.op, f"attribute {e} missing")
            continue
        w.names.update({id(o): n for o, n in zip(node.outputs, outs)})
    if problems:
        raise UnsupportedMindirExportError(problems)
    outs = [w.names[id(v)] for v in graph.outputs]
    vi = g.output.add()
    if len(outs) == 1:
        vi.name = outs[0]
        t = graph.outputs[0].type
        vi.tensor.append(TensorProto(dims=list(t.shape), data_type=TENSOR_NUMBER[t.dtype]))
    else:  # several outputs: one tuple, as MindSpore writes a construct returning a tuple
        vi.name = w.call("MakeTuple", PRIMITIVE, outs, [v.type for v in graph.outputs])
    return w.model


def trace_graph(net: Any, inputs: Sequence[Any]) -> Graph:
    """Trace ``net`` for the inputs' signature in inference mode (the training flag restored afterwards)."""
    args = [a if isinstance(a, Tensor) else Tensor(np.asarray(a)) for a in inputs]
    was_training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        graph, _ = trace.trace(net.construct if hasattr(net, "construct") else net, args)
    except trace.ValueNeeded as e:
        raise UnsupportedMindirExportError({"control flow": (
            f"the network's Python code needs a tensor's value while tracing ({str(e).split(':')[0]}): a branch "
            "or loop over tensor values, which opbuild's MINDIR writer does not write (it writes one traced "
            "graph); compute the condition with ops.select/where, or export with ONNX")}) from None
    finally:
        if hasattr(net, "set_train"):
            net.set_train(was_training)
    return graph


def export_mindir(net: Any, inputs: Sequence[Any], path: str | os.PathLike) -> Path:
    """Trace ``net`` on ``inputs``, translate the graph and write the MINDIR file ``path`` atomically."""
    model = graph_to_mindir(trace_graph(net, inputs), type(net).__name__)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, model.SerializeToString())
    return path


__all__ = ["UnsupportedMindirExportError", "export_mindir", "graph_to_mindir", "trace_graph"]
