"""ONNX importer: an ONNX model as an opbuild Cell that runs in graph mode through the incremental build.

``load(path_or_model)`` parses the model once, checks every node against the converter table
(:mod:`opbuild.frontends.onnx_ops`) and raises :class:`UnsupportedOnnxError` listing *every* problem of the
model at once (unknown operators, schema versions, attributes, dtypes), naming the op, the node and the opset.

Versions: each converter lists the ONNX schema versions (``since_version``) it implements, covering every
operator's definition in opsets 13 to 22 (and 11 to 12 but for Softmax and LogSoftmax). A node is accepted
when the model's opset resolves its operator to one of them, so newer models whose operators only gained
dtypes opbuild lacks (Reshape-25, Cast-28) load too; an operator whose semantics differ in the model's opset
(Softmax-11 coerces to 2-D) is reported as unsupported.

The returned :class:`OnnxModel` is a Cell: its ``construct`` replays the ONNX nodes through opbuild
primitives, so a call traces the graph for the input shapes it is given (symbolic dims are bound then),
folds everything computable from constants and static shapes, builds the kernels (reusing cached ones) and
runs them. Graph inputs are the Cell's inputs; initializers are Parameters named as in the model
(``model.parameters_and_names()``). Integer and bool initializers (shapes, axes, indices) are read as constants
when the graph is traced; replacing one with ``set_data`` re-traces the model at its next call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..core import trace
from ..core.dtypes import ALL_FLOATS, np_name
from ..core.errors import OnnxDefect, OnnxModelError, OpbuildError, ShapeError
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from . import onnx_check
from .onnx_ops import CONVERTERS, Converter, Ctx, StaticValueError, is_const, onnx_dtype
from .onnx_ops.elementwise import supported_onnx_types

_DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass(frozen=True)
class Problem:
    """One reason a model cannot be loaded: the op, the node, the opset and what is wrong."""

    op: str
    node: str
    opset: int
    reason: str

    def __str__(self) -> str:
        return f"{self.op} (node {self.node!r}, opset {self.opset}): {self.reason}"


class UnsupportedOnnxError(OpbuildError, ValueError):
    """The model uses operators, attributes or dtypes the importer does not support. ``problems`` lists them
    all (one :class:`Problem` per node and reason); ``ops`` the distinct operator names involved."""

    def __init__(self, source: str, problems: Sequence[Problem]):
        self.source = source
        self.problems = list(problems)
        self.ops = sorted({p.op for p in self.problems})
        # One line per (op, reason), naming its nodes: a model using an unknown op 100 times is 1 line.
        groups: dict[tuple[str, int, str], list[str]] = {}
        for p in self.problems:
            groups.setdefault((p.op, p.opset, p.reason), []).append(p.node)
        lines = [f"cannot load ONNX model {source}: {len(groups)} problem(s) in "
                 f"{len({p.node for p in self.problems})} node(s) (operators: {', '.join(self.ops)})"]
        for (op, opset, reason), nodes in groups.items():
            shown = ", ".join(repr(n) for n in nodes[:5]) + (f" and {len(nodes) - 5} more" if len(nodes) > 5 else "")
            lines.append(f"  - {op} (node{'s' if len(nodes) > 1 else ''} {shown}, opset {opset}): {reason}")
        lines.append(f"opbuild's ONNX importer supports: {', '.join(sorted(CONVERTERS))}")
        super().__init__("\n".join(lines))


@dataclass
class _Node:
    """A parsed ONNX node with its converter."""

    ctx: Ctx
    inputs: list[str]
    convert: Converter


@dataclass(frozen=True)
class InputSpec:
    """A graph input: ``name``, ``shape`` (ints, or the dim's name / None for a symbolic dim) and ``dtype``."""

    name: str
    shape: tuple[int | str | None, ...] | None
    dtype: str


# ---- loading --------------------------------------------------------------------------------------------

def load(model: str | os.PathLike | onnx.ModelProto) -> OnnxModel:
    """Load an ONNX model (a path or a ``ModelProto``) as a callable :class:`OnnxModel` Cell.

    Raises :class:`~opbuild.core.errors.OnnxModelError` for a file or model that is not a valid ONNX model (empty,
    truncated, a cycle, an undefined or twice-written tensor, an unknown opset, anything ``onnx.checker``
    rejects: :mod:`.onnx_check`), and :class:`UnsupportedOnnxError` listing every unsupported operator,
    attribute or dtype of a valid one, both before anything is built.
    """
    if isinstance(model, onnx.ModelProto):
        proto, source = model, f"'{model.graph.name or 'ModelProto'}'"
    else:
        path = Path(model)
        if not path.is_file():
            raise FileNotFoundError(f"no such ONNX model: {path}")
        proto, source = onnx_check.read(path), f"'{path}'"
    return OnnxModel(proto, source)


def _opset(proto: onnx.ModelProto) -> int:
    for imp in proto.opset_import:
        if imp.domain in _DEFAULT_DOMAINS:
            return int(imp.version)
    return 1 if proto.ir_version < 3 else 0


def _attrs(node: onnx.NodeProto) -> dict[str, Any]:
    """Node attributes as Python values (tensors as NumPy arrays, strings decoded)."""
    out: dict[str, Any] = {}
    for a in node.attribute:
        value = onnx.helper.get_attribute_value(a)
        if isinstance(value, onnx.TensorProto):
            value = numpy_helper.to_array(value)
        elif isinstance(value, bytes):
            value = value.decode()
        elif isinstance(value, list):
            value = [v.decode() if isinstance(v, bytes) else v for v in value]
        out[a.name] = value
    return out


_INFER_INLINE = 4096  # initializers up to this many elements stay data for shape inference (shapes, axes)


def _elem_types(proto: onnx.ModelProto) -> dict[str, int]:
    """Element type of every value the model declares or ONNX's shape inference can derive.

    Inference runs on a copy without the large initializers' data (they become typed graph inputs): it only
    needs their types and shapes, and serialising hundreds of MB of weights for it took seconds."""
    g = proto.graph
    lite = onnx.GraphProto(name=g.name, node=g.node, input=g.input, output=g.output, value_info=g.value_info)
    declared = {vi.name for vi in g.input}
    for t in g.initializer:
        if int(np.prod(t.dims, dtype=np.int64)) <= _INFER_INLINE:
            lite.initializer.append(t)
        elif t.name not in declared:
            lite.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    model = onnx.ModelProto(ir_version=proto.ir_version, opset_import=proto.opset_import, graph=lite,
                            functions=proto.functions)
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # inference is a best effort: custom domains or bad models are reported elsewhere
        inferred = proto
    g = inferred.graph
    types = {}
    for vi in (*g.input, *g.value_info, *g.output):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
            types[vi.name] = vi.type.tensor_type.elem_type
    for init in g.initializer:
        types[init.name] = init.data_type
    return types


def _type_name(elem_type: int) -> str:
    return onnx.TensorProto.DataType.Name(elem_type)


def _schema_version(op: str, opset: int) -> int | None:
    try:
        return int(onnx.defs.get_schema(op, opset).since_version)
    except Exception:  # no such operator in this opset
        return None


def _check_node(node: onnx.NodeProto, ctx: Ctx, types: dict[str, int]) -> list[str]:
    """Every reason ``node`` cannot be converted (empty if it can)."""
    conv = CONVERTERS.get(node.op_type) if node.domain in _DEFAULT_DOMAINS else None
    if conv is None:
        where = f" of domain {node.domain!r}" if node.domain not in _DEFAULT_DOMAINS else ""
        return [f"operator{where} not supported"]
    problems = []
    if ctx.version not in conv.versions:
        known = ", ".join(f"{ctx.op_type}-{v}" for v in conv.versions)
        problems.append(f"schema version {ctx.op_type}-{ctx.version} is not supported (supported: {known})")
    unknown = sorted(set(ctx.attrs) - conv.attrs)
    if unknown:
        problems.append(f"attribute(s) {', '.join(unknown)} not supported")
    extra = [i for i, name in enumerate(node.output) if name and i >= conv.outputs]
    if extra:
        problems.append(f"output(s) #{', #'.join(map(str, extra))} not supported (only the first {conv.outputs})")
    if conv.check is not None and not unknown:
        problems += conv.check(ctx)
    for name in [*node.input, *node.output]:
        if name and name in types and onnx_dtype(types[name]) is None:
            problems.append(f"tensor {name!r} has dtype {_type_name(types[name])}, which opbuild does not support "
                            f"(supported: {supported_onnx_types()})")
    return problems


# ---- the model Cell -------------------------------------------------------------------------------------

class OnnxModel(Cell):
    """An ONNX model as a Cell: call it with one array (or Tensor) per graph input, positionally, in the
    order of ``input_names``; it returns a Tensor, or a tuple of Tensors for several outputs. ``run`` takes
    and returns NumPy arrays (a dict of inputs by name is accepted too). It runs as a compiled graph in either
    mode (``Cell._always_graph``)."""

    _always_graph = True

    def __init__(self, proto: onnx.ModelProto, source: str = "model"):
        super().__init__()
        set_ = object.__setattr__  # internal state: never confused with initializer names (see _params)
        onnx_check.check(proto, source)  # a valid model first: the conversion below assumes one
        g = proto.graph
        opset = _opset(proto)
        types = _elem_types(proto)
        problems: list[Problem] = []
        initializers = {t.name: t for t in g.initializer}
        inputs = [vi for vi in g.input if vi.name not in initializers]
        for vi in [*inputs, *g.initializer]:
            elem = vi.type.tensor_type.elem_type if isinstance(vi, onnx.ValueInfoProto) else vi.data_type
            if isinstance(vi, onnx.ValueInfoProto) and not vi.type.HasField("tensor_type"):
                problems.append(Problem("graph input", vi.name, opset, "only tensor inputs are supported"))
            elif onnx_dtype(elem) is None:
                kind = "graph input" if isinstance(vi, onnx.ValueInfoProto) else "initializer"
                problems.append(Problem(kind, vi.name, opset, f"dtype {_type_name(elem)}, which opbuild does not "
                                                              f"support (supported: {supported_onnx_types()})"))
        nodes = []
        for i, node in enumerate(g.node):
            name = node.name or f"{node.op_type}_{i}"
            ctx = Ctx(node.op_type, name, _attrs(node), opset, _schema_version(node.op_type, opset) or 0,
                      list(node.output), self._read_param)
            problems += [Problem(node.op_type, name, opset, r) for r in _check_node(node, ctx, types)]
            if not problems:
                nodes.append(_Node(ctx, list(node.input), CONVERTERS[node.op_type]))
        if problems:
            raise UnsupportedOnnxError(source, problems)

        # Initializers become Parameters, registered under their ONNX names (which may hold dots or clash
        # with Cell attributes, hence straight into the parameter table rather than through setattr).
        for name, t in initializers.items():
            try:
                arr = numpy_helper.to_array(t)
            except (ValueError, TypeError) as e:  # data that does not fit the declared shape and type
                raise OnnxModelError(source, [OnnxDefect(f"initializer {name!r} cannot be read: {e}",
                                                         tensor=name)]) from None
            self._params[name] = Parameter(arr, name=name, requires_grad=arr.dtype.name in ALL_FLOATS)
        set_(self, "source", source)
        set_(self, "opset", opset)
        set_(self, "inputs", [InputSpec(vi.name, _dims(vi), onnx_dtype(vi.type.tensor_type.elem_type))
                              for vi in inputs])
        set_(self, "output_names", [vi.name for vi in g.output])
        set_(self, "_nodes", nodes)
        set_(self, "_value_inputs", _value_inputs(g, [s.name for s in self.inputs]))
        set_(self, "_static", [n for n, p in self._params.items() if p.dtype.is_int or p.dtype.name == "bool"])
        set_(self, "_static_reads", [])  # (parameter, its data array) read as constants by the last trace
        set_(self, "_static_version", 0)

    # ---- description ----------------------------------------------------------------------------------
    @property
    def input_names(self) -> list[str]:
        """Names of the graph inputs, in call order."""
        return [s.name for s in self.inputs]

    @property
    def node_count(self) -> int:
        """How many nodes the imported graph has."""
        return len(self._nodes)

    def __repr__(self) -> str:
        ins = ", ".join(f"{s.name}: {s.dtype}{list(s.shape) if s.shape is not None else '[?]'}" for s in self.inputs)
        return (f"OnnxModel({self.source}, opset {self.opset}, {len(self._nodes)} nodes, inputs ({ins}), "
                f"outputs ({', '.join(self.output_names)}))")

    # ---- execution ------------------------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        self._check_inputs(args)
        if self._value_inputs:
            args = tuple(_StaticArg.of(a, s.name) if s.name in self._value_inputs else a
                         for s, a in zip(self.inputs, args, strict=True))
        return super().__call__(*args)

    def _dynamic_batch(self, args: tuple) -> tuple[bool, ...] | None:
        """Inputs whose first dim is symbolic (a ``dim_param``, or unnamed) have a dynamic batch dimension:
        every batch size runs on the kernels built once where the graph is row-wise (nn/batch_chunks.py)."""
        flags = tuple(isinstance(a, Tensor) and bool(s.shape) and not isinstance(s.shape[0], int)
                      for s, a in zip(self.inputs, args))
        return flags if any(flags) else None

    def run(self, inputs: Sequence[Any] | Mapping[str, Any]) -> list[np.ndarray]:
        """Run the model on NumPy arrays (a sequence in input order, or a dict by input name); returns the
        outputs as NumPy arrays, in the order of ``output_names``."""
        if isinstance(inputs, Mapping):
            missing = [n for n in self.input_names if n not in inputs]
            extra = sorted(set(inputs) - set(self.input_names))
            if missing or extra:
                raise ValueError(f"{self.source}: inputs are {self.input_names}; missing {missing}, unknown {extra}")
            inputs = [inputs[n] for n in self.input_names]
        outs = self(*[x if isinstance(x, Tensor) else np.asarray(x) for x in inputs])
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [o.asnumpy() for o in outs]

    def _check_inputs(self, args: Sequence[Any]) -> None:
        if len(args) != len(self.inputs):
            raise ValueError(f"{self.source} takes {len(self.inputs)} input(s) ({', '.join(self.input_names)}), "
                             f"got {len(args)}")
        for spec, a in zip(self.inputs, args, strict=True):
            if isinstance(a, Tensor):
                got_shape, got_dtype = a.shape, a._type.dtype
            elif isinstance(a, np.ndarray):
                got_shape, got_dtype = a.shape, np_name(a.dtype)
            else:
                raise TypeError(f"{self.source}: input {spec.name!r} must be a NumPy array or a Tensor, "
                                f"got {type(a).__name__}")
            ok = got_dtype == spec.dtype and (spec.shape is None or (
                len(got_shape) == len(spec.shape)
                and all(not isinstance(d, int) or d == g for d, g in zip(spec.shape, got_shape, strict=True))))
            if not ok:
                want = "any" if spec.shape is None else [d if isinstance(d, int) else (d or "?") for d in spec.shape]
                raise ShapeError(f"ONNX input {spec.name!r}", f"expected {spec.dtype} of shape {want}, got "
                                                              f"{got_dtype} of shape {list(got_shape)}")

    def _state_signature(self) -> tuple:
        # Parameters read as constants by the trace were folded into it: replacing one (set_data) re-traces.
        if any(p._data is not data for p, data in self._static_reads):
            object.__setattr__(self, "_static_version", self._static_version + 1)
        return (super()._state_signature(), self._static_version)

    def _read_param(self, p: Tensor) -> None:
        if trace.current() is not None and all(p is not q for q, _ in self._static_reads):
            self._static_reads.append((p, p.asnumpy()))

    def construct(self, *inputs: Any) -> Any:
        """Replay the ONNX graph on ``inputs`` through opbuild primitives."""
        object.__setattr__(self, "_static_reads", [])
        env: dict[str, Any] = {n: x.array if isinstance(x, _StaticArg) else x
                               for n, x in zip(self.input_names, inputs, strict=True)}
        for name, p in self._params.items():
            env[name] = p
        for name in self._static:
            self._read_param(self._params[name])
            env[name] = self._params[name].asnumpy()
        for node in self._nodes:
            ctx = node.ctx
            args = [env[n] if n else None for n in node.inputs]
            while args and args[-1] is None:  # trailing omitted optional inputs
                args.pop()
            try:
                out = node.convert.fn(ctx, *args)
            except ShapeError as e:  # name the ONNX node; the message already shows the inputs
                err = ShapeError(f"{ctx.op_type} (ONNX node {ctx.name!r})", str(e))
                err.inputs = e.inputs
                raise err from e
            except (ValueError, TypeError, OverflowError, MemoryError) as e:
                if type(e) not in (ValueError, TypeError, OverflowError, MemoryError):
                    raise  # opbuild's own errors already say what was wrong
                # NumPy's words on a folded constant ('negative dimensions are not allowed') name no node.
                raise type(e)(f"{ctx.op_type} (ONNX node {ctx.name!r}): {e}") from e
            outs = out if isinstance(out, tuple) else (out,)
            for name, value in zip(ctx.outputs, outs):
                if name:
                    env[name] = value
        results = [Tensor(env[n]) if is_const(env[n]) else env[n] for n in self.output_names]
        return results[0] if len(results) == 1 else tuple(results)


class _StaticArg:
    """The value of a graph input the model needs when it is traced (a shape, axes): passed to the Cell as a
    hashable constant, so each distinct value gets its own traced graph."""

    __slots__ = ("array", "_key")

    def __init__(self, array: np.ndarray):
        self.array = array
        self._key = (array.dtype.str, array.shape, array.tobytes())

    @classmethod
    def of(cls, value: Any, name: str) -> _StaticArg:
        if isinstance(value, Tensor):
            if value._data is None:
                raise StaticValueError(f"ONNX input {name!r} sets shapes or axes inside the model, so its value "
                                       f"must be known when the model is traced; got a traced Tensor")
            value = value.asnumpy()
        return cls(np.array(value))

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _StaticArg) and self._key == other._key


def _value_inputs(g: onnx.GraphProto, input_names: Sequence[str]) -> set[str]:
    """Graph inputs whose *values* are needed at trace time: those that reach a static input of a converter
    (a shape, axes, slice bounds) through nodes other than Shape/Size, which only need static shapes."""
    producer = {out: n for n in g.node for out in n.output if out}
    stack = [n.input[i] for n in g.node for i in CONVERTERS[n.op_type].static if i < len(n.input) and n.input[i]]
    seen: set[str] = set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        node = producer.get(name)
        if node is not None and node.op_type not in ("Shape", "Size"):
            stack.extend(i for i in node.input if i)
    return seen & set(input_names)


def _dims(vi: onnx.ValueInfoProto) -> tuple[int | str | None, ...] | None:
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim)


__all__ = ["load", "OnnxModel", "UnsupportedOnnxError", "OnnxModelError", "StaticValueError", "Problem",
           "InputSpec"]
