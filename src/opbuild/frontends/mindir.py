"""Reading MindSpore's MINDIR files (``mindspore.load``): the file's graphs as :class:`MindirGraph`.

A MINDIR file is one ``ModelProto`` (mindir_proto.py): a main graph and the functions it calls (branches of
control flow), whose nodes are MindSpore primitives (``REF::<primitive>`` with the primitive's attributes in
the model's primitive table), constants (``Constant`` nodes), calls of functions or closures, and the
bookkeeping of side effects (Load/UpdateState/Depend with monads). The main graph's parameters carry their data
(``raw_data``) under their names in the network (``ref_key``: ``conv1.weight``).

:func:`read` parses and checks a file and returns a :class:`MindirGraph`, raising :class:`MindirError` for a
file that is not a MINDIR file, is truncated or is encrypted, and :class:`UnsupportedMindirError` naming every
primitive opbuild does not map (mindir_ops.py), before anything runs. :class:`MindirGraph` evaluates the graph
on values (``run``): :class:`opbuild.nn.GraphCell` calls it from its ``construct``, so a call traces the graph
through opbuild's primitives in GRAPH_MODE (kernels built once and cached) or runs them one by one in PyNative.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError

from ..core.errors import OpbuildError
from ..core.tensor import Tensor
from . import mindir_ops
from .mindir_proto import ATTR_TYPES, PRIMITIVE_FUNCTION, TENSOR_TYPES, ModelProto

MONAD = mindir_ops.MONAD


class MindirError(OpbuildError, ValueError):
    """The file cannot be read as a MINDIR model (not MINDIR, truncated, encrypted, damaged)."""


class UnsupportedMindirError(OpbuildError, ValueError):
    """The model uses primitives (or constants) opbuild does not map; ``ops`` lists them all."""

    def __init__(self, source: str, problems: dict[str, str]):
        self.ops = sorted(problems)
        lines = [f"cannot load MINDIR {source}: {len(problems)} primitive(s) that opbuild does not map: "
                 f"{', '.join(self.ops)}"]
        lines += [f"  - {op}: {why}" for op, why in sorted(problems.items())]
        lines.append(f"opbuild maps these MindSpore primitives: {', '.join(mindir_ops.supported())}")
        super().__init__("\n".join(lines))


@dataclass
class _Node:
    out: str
    kind: str  # "const", "prim", "inplace" (a primitive updating its first input), "call" (of a graph or value)
    target: Any  # the constant value, the mapped primitive, the graph's name or the called node's name
    inputs: list[str]


@dataclass
class _Graph:
    name: str
    inputs: list[str]
    output: str
    nodes: list[_Node]


def tensor_array(t: Any, what: str) -> np.ndarray:
    """A TensorProto's data as a NumPy array (raw little-endian bytes, or the typed repeated fields)."""
    dtype = TENSOR_TYPES.get(t.data_type)
    if dtype is None:
        raise MindirError(f"{what}: tensor element type #{t.data_type} is not supported")
    if t.compression_type:
        raise MindirError(f"{what}: compressed tensors (compression type #{t.compression_type}) are not supported")
    if t.HasField("external_data") and t.external_data.location:
        raise MindirError(f"{what}: data stored outside the file ({t.external_data.location!r}) is not "
                          "supported; export the network in one file")
    shape = tuple(int(d) for d in t.dims)
    np_dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if t.raw_data:
        data = np.frombuffer(t.raw_data, dtype=np_dtype.newbyteorder("<"))
    else:
        field = {"float32": t.float_data, "float64": t.double_data, "int64": t.int64_data,
                 "uint64": t.uint64_data}.get(dtype, t.int32_data)
        data = np.asarray(list(field), dtype=np_dtype)
    if data.size != int(np.prod(shape, dtype=np.int64)):
        raise MindirError(f"{what}: {data.size} elements stored for shape {list(shape)} (a truncated or damaged "
                          "file)")
    return data.astype(np_dtype, copy=True).reshape(shape)


def _scalar(a: Any, repeated: str, single: str) -> Any:
    values = getattr(a, repeated)
    return values[0] if len(values) else getattr(a, single)


def attr_value(a: Any, what: str) -> Any:
    """A constant or primitive attribute as a Python value: scalars, strings, tuples/lists of them, tensors
    (as opbuild Tensors), None and the monad marker. Raises MindirError for a kind opbuild does not read."""
    kind = ATTR_TYPES.get(a.type, f"#{a.type}")
    if kind in ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"):
        return int(_scalar(a, "ints", "i"))
    if kind == "BOOL":
        return bool(_scalar(a, "ints", "i"))
    if kind == "FLOAT":
        return float(_scalar(a, "floats", "f"))
    if kind == "DOUBLE":
        return float(_scalar(a, "doubles", "d"))
    if kind == "STRING":
        return _scalar(a, "strings", "s").decode()
    if kind in ("TUPLE", "LIST"):
        items = [attr_value(v, what) for v in a.values]
        return tuple(items) if kind == "TUPLE" else items
    if kind in ("TENSOR", "TENSORS"):
        t = a.t if a.HasField("t") else (a.tensors[0] if len(a.tensors) else None)
        if t is None:
            raise MindirError(f"{what}: a tensor constant without data (a truncated or damaged file)")
        return Tensor(tensor_array(t, what))
    if kind in ("UMONAD", "IOMONAD"):
        return MONAD
    if kind == "NONE":
        return None
    raise UnsupportedMindirError("", {f"constant of kind {kind}": f"{what} holds a value opbuild does not read"})


def _prim_attrs(prim: Any) -> dict[str, Any]:
    """A primitive's attributes as Python values. Kinds opbuild does not read (types, classes) are left out:
    the primitive's mapping then fails to build if it needed them, and that is reported with the primitive."""
    attrs = {}
    for a in prim.attribute:
        if a.name in ("input_names", "output_names"):
            continue
        try:
            attrs[a.name] = attr_value(a, f"attribute {a.name!r} of {prim.op_type}")
        except UnsupportedMindirError:
            continue
    return attrs


class MindirGraph:
    """A loaded MINDIR model: ``parameters`` (name -> NumPy array, in the file's order), ``input_specs``
    ((shape, dtype) per graph input) and ``run(inputs, params)`` evaluating the main graph."""

    def __init__(self, proto: Any, source: str):
        self.source = source
        self.producer = f"{proto.producer_name} {proto.model_version}".strip()
        self.prims = {p.name: p for p in proto.primitives}
        main = proto.graph
        self.parameters: dict[str, np.ndarray] = {}
        self._param_refs: dict[str, str] = {}  # a parameter's name in the graph -> its network name
        for p in main.parameter:
            key = p.ref_key or p.name.rsplit(":", 1)[-1]
            self.parameters[key] = tensor_array(p, f"parameter {key!r}")
            self._param_refs[p.name] = key
        self.input_specs = [(tuple(int(d) for d in vi.tensor[0].dims), TENSOR_TYPES.get(vi.tensor[0].data_type))
                            if len(vi.tensor) else (None, None) for vi in main.input]
        problems: dict[str, str] = {}
        self.graphs = {g.name: self._graph(g, problems) for g in [main, *proto.functions]}
        if problems:
            raise UnsupportedMindirError(source, problems)
        self.main = main.name
        self._check_names()

    def _check_names(self) -> None:
        """Every node input is defined somewhere (a file cut at a message boundary parses, but loses nodes)."""
        known = set(self._param_refs) | set(self.graphs)
        for g in self.graphs.values():
            known.update(g.inputs)
            known.update(n.out for n in g.nodes)
        for g in self.graphs.values():
            for n in g.nodes:
                missing = [i for i in n.inputs if i not in known]
                if missing or (n.kind == "call" and n.target not in known):
                    raise MindirError(f"{self.source}: node {n.out!r} reads {(missing or [n.target])[0]!r}, which "
                                      "the file does not define (a truncated or damaged file)")
            if g.output not in known:
                raise MindirError(f"{self.source}: graph {g.name!r} returns {g.output!r}, which the file does not "
                                  "define (a truncated or damaged file)")

    def _graph(self, g: Any, problems: dict[str, str]) -> _Graph:
        if not len(g.output):
            raise MindirError(f"{self.source}: graph {g.name!r} has no output (a truncated or damaged file)")
        nodes = []
        for n in g.node:
            if not len(n.output):
                raise MindirError(f"{self.source}: a node of graph {g.name!r} has no output (a damaged file)")
            out = n.output[0]
            if n.op_type == "Constant":
                value = next((a for a in n.attribute if a.name == "value"), None)
                if value is None:
                    raise MindirError(f"{self.source}: constant {out!r} has no value (a damaged file)")
                try:
                    nodes.append(_Node(out, "const", attr_value(value, f"constant {out!r}"), []))
                except UnsupportedMindirError as e:
                    problems.update({op: "a constant opbuild does not read" for op in e.ops})
                continue
            ref = n.op_type[5:] if n.op_type.startswith("REF::") else n.op_type
            if ref in self.prims:
                prim = self.prims[ref]
                attrs = _prim_attrs(prim)
                fn = mindir_ops.lookup(prim.op_type, attrs, prim.prim_type == PRIMITIVE_FUNCTION)
                if isinstance(fn, str):
                    problems[prim.op_type] = fn
                kind = "inplace" if prim.op_type in mindir_ops.INPLACE else "prim"
                nodes.append(_Node(out, kind, fn, list(n.input)))
            else:  # a call: of a function graph by name, or of the value (a closure) a node computed
                nodes.append(_Node(out, "call", ref, list(n.input)))
        return _Graph(g.name, [vi.name for vi in g.input], g.output[0].name, nodes)

    def run(self, inputs: Sequence[Any], params: dict[str, Any]) -> Any:
        """Evaluate the main graph on ``inputs`` with ``params`` (network name -> Tensor/Parameter)."""
        env: dict[str, Any] = {ref: params[key] for ref, key in self._param_refs.items()}
        return self._call(self.main, list(inputs), env)

    def _call(self, name: str, args: list[Any], outer: dict[str, Any]) -> Any:
        g = self.graphs[name]
        if len(args) != len(g.inputs):
            raise TypeError(f"MINDIR graph {name!r} takes {len(g.inputs)} input(s), got {len(args)}")
        env = dict(outer)
        env.update(zip(g.inputs, args))
        for node in g.nodes:
            if node.kind == "const":
                env[node.out] = node.target
                continue
            vals = [self._value(i, env) for i in node.inputs]
            if node.kind == "prim":
                env[node.out] = node.target(*vals)
            elif node.kind == "inplace":  # the mutated input reads the new value from here on
                env[node.out] = env[node.inputs[0]] = node.target(*vals)
            else:
                env[node.out] = self._invoke(node.target, vals, env)
        return env[g.output]

    def _value(self, name: str, env: dict[str, Any]) -> Any:
        if name in env:
            return env[name]
        if name in self.graphs:
            return _Closure(self, name, (), env)
        raise MindirError(f"{self.source}: node input {name!r} is defined nowhere (a damaged file)")

    def _invoke(self, target: str, vals: list[Any], env: dict[str, Any]) -> Any:
        if target in self.graphs:
            return self._call(target, vals, env)
        fn = env.get(target)
        if not callable(fn):
            raise MindirError(f"{self.source}: a call of {target!r}, which is neither a graph nor a function value")
        return fn(*vals)


class _Closure:
    """A function graph with some arguments bound (MINDIR's Partial, and a graph used as a value)."""

    def __init__(self, model: MindirGraph, name: str, bound: tuple, env: dict[str, Any]):
        self.model, self.name, self.bound, self.env = model, name, bound, env

    def __call__(self, *args: Any) -> Any:
        return self.model._call(self.name, [*self.bound, *args], self.env)

    def bind(self, *args: Any) -> _Closure:
        return _Closure(self.model, self.name, (*self.bound, *args), self.env)


mindir_ops.register_partial(lambda fn, *args: fn.bind(*args))

# A MINDIR file starts with field 1 (ir_version, a string) of ModelProto: tag byte 0x0a.
_MAGIC = b"\x0a"


def parse(path: str | os.PathLike, dec_key: bytes | None = None) -> Any:
    """The ModelProto of the MINDIR file ``path``, checked to be one (MindirError otherwise)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such MINDIR file: {p}")
    if dec_key is not None:
        raise MindirError(f"load: {p} was given dec_key (a file exported with enc_key): opbuild does not decrypt "
                          "MINDIR files; export the network again without enc_key")
    data = p.read_bytes()
    proto = ModelProto()
    hint = ("it may be encrypted (exported with enc_key, which opbuild does not decrypt: export it again without "
            "enc_key)")
    if not data.startswith(_MAGIC):
        raise MindirError(f"load: {p} is not a MINDIR file (a file written by mindspore.export(..., "
                          f"file_format='MINDIR')); {hint}")
    try:
        proto.ParseFromString(data)
    except DecodeError as e:
        raise MindirError(f"load: {p} cannot be parsed as a MINDIR model ({e}): the file is truncated or "
                          f"damaged, or {hint}") from None
    if not proto.HasField("graph") or not len(proto.graph.output):
        raise MindirError(f"load: {p} holds no MINDIR graph: the file is truncated or damaged, or is not a MINDIR "
                          f"file; {hint}")
    return proto


def read(path: str | os.PathLike, dec_key: bytes | None = None, dec_mode: str = "AES-GCM") -> MindirGraph:
    """Parse and check the MINDIR file ``path`` (see the module docstring for the errors); ``dec_mode`` only
    completes MindSpore's signature: any ``dec_key`` is refused."""
    return MindirGraph(parse(path, dec_key), f"'{Path(path)}'")


__all__ = ["parse", "read", "MindirGraph", "MindirError", "UnsupportedMindirError", "attr_value", "tensor_array"]
