"""ONNX exporter: a traced opbuild graph as an ONNX model (what ``opbuild.export(..., file_format="ONNX")`` writes).

The network is traced for the inputs' signature in inference mode (``set_train(False)`` for the duration of the
trace, as MindSpore's export does), and every node of the traced graph is translated by the converter of its
primitive (``CONVERTERS``: one function per primitive, emitting one or a few ONNX nodes). Parameters become
initializers named as in the network (``conv1.weight``, ``bn1.moving_mean``); other captured tensors become
initializers named ``const<i>``. Graph inputs are ``x0, x1, ...`` and outputs ``y0, y1, ...``.

Calls of recurrent layers (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``) are noted while tracing and written as ONNX
recurrent nodes in place of their unrolled steps (frontends/onnx_export_rnn.py); values the outputs do not
depend on are left out.

Every primitive the graph uses without a converter (and every converter that rejects its node's attributes) is
listed in a single :class:`UnsupportedExportError`, so one try shows everything that stands in the way.
The file is written atomically (temporary file, fsync, rename): a reader never sees half a model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..cache.fsio import atomic_write
from ..core import trace
from ..core.ir import Graph, Node, Value
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from . import (
    onnx_export_extra,  # noqa: F401 - registers the composed converters
    onnx_export_more,  # noqa: F401 - registers the newer families' converters
)
from . import onnx_export_rnn as rnn
from .onnx_export_ops import CONVERTERS, OPSET, Ctx, UnsupportedExportError, _onnx_dtype, _Reject


def _value_info(name: str, v: Value) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, _onnx_dtype(v.type.dtype), list(v.type.shape))


def _steps(graph: Graph, regions: Sequence[rnn.Region]) -> list[Node | rnn.Region]:
    """The graph's nodes in order, each self-contained recurrent region standing in for the nodes it covers."""
    kept = {r.start: r for r in regions if r.end > r.start and rnn.self_contained(r, graph.nodes, graph.outputs)}
    steps: list[Node | rnn.Region] = []
    i = 0
    while i < len(graph.nodes):
        region = kept.get(i)
        steps.append(region if region is not None else graph.nodes[i])
        i = region.end if region is not None else i + 1
    return steps


def _live_steps(graph: Graph, steps: list[Node | rnn.Region]) -> set[int]:
    """Ids of the values the graph's outputs depend on (walking the steps backwards)."""
    live = {id(v) for v in graph.outputs}
    for step in reversed(steps):
        if any(id(o) in live for o in step.outputs):
            live.update(id(v) for v in step.inputs)
    return live


def graph_to_onnx(graph: Graph, name: str = "opbuild", regions: Sequence[rnn.Region] = ()) -> onnx.ModelProto:
    """Translate a traced ``graph`` into an ONNX model; raises :class:`UnsupportedExportError` listing every
    primitive (and attribute) without an ONNX translation. ``regions``: recurrent layers' calls noted while
    tracing (frontends/onnx_export_rnn.py), written as ONNX recurrent nodes in place of their unrolled steps."""
    ctx = Ctx()
    names: dict[int, str] = {}
    steps = _steps(graph, regions)
    used = _live_steps(graph, steps)
    for i, v in enumerate(graph.inputs):
        names[id(v)] = ctx.claim(f"x{i}")
    for v, obj in graph.captures:
        if id(v) not in used:
            continue  # read only by the unrolled steps of a recurrent layer written as one ONNX node
        hint = obj.name if isinstance(obj, Parameter) and obj.name else "const"
        names[id(v)] = ctx.claim(hint) if hint != "const" else ctx.fresh("const")
        ctx.initializers.append(numpy_helper.from_array(np.ascontiguousarray(obj.asnumpy()), names[id(v)]))
    problems: dict[str, list[str]] = {}
    for step in steps:
        if not any(id(o) in used for o in step.outputs):
            continue  # dead code (an unrolled LSTM's last cell state nobody reads): ONNX has no empty outputs
        if isinstance(step, rnn.Region):  # writes every output of the layer: each needs a name
            names.update({id(o): ctx.fresh("rnn") for o in step.outputs})
            rnn.emit(ctx, step, names)
            continue
        for o in step.outputs:  # "" for an output nobody reads (a converter may refuse to compute it)
            names[id(o)] = ctx.fresh(step.op.lower()) if id(o) in used else ""
        node = step
        convert = CONVERTERS.get(node.op)
        if convert is None:
            problems.setdefault(node.op, []).append("no ONNX converter for this primitive")
            continue
        attrs = node.spec.attrs if node.spec is not None else node.attrs
        try:
            convert(ctx, node, attrs, [names[id(v)] for v in node.inputs], [names[id(o)] for o in node.outputs])
        except _Reject as e:
            problems.setdefault(node.op, []).append(str(e))
    if problems:
        raise UnsupportedExportError(problems)
    outputs = []
    for i, v in enumerate(graph.outputs):  # named y<i>: an output may also be an input or an initializer
        out = ctx.claim(f"y{i}")
        ctx.add("Identity", [names[id(v)]], [out])
        outputs.append(_value_info(out, v))
    inputs = [_value_info(names[id(v)], v) for v in graph.inputs]
    g = helper.make_graph(ctx.nodes, name, inputs, outputs, ctx.initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="opbuild")
    model.ir_version = 8  # what onnxruntime releases of the last years all read (opset 17 needs >= 8)
    return model


def trace_for_export(net: Any, inputs: Sequence[Any]) -> tuple[Graph, list[rnn.Region]]:
    """Trace ``net`` for the inputs' signature in inference mode (the training flag is restored afterwards);
    returns the graph and the calls of its recurrent layers (frontends/onnx_export_rnn.py)."""
    args = [a if isinstance(a, Tensor) else Tensor(np.asarray(a)) for a in inputs]
    was_training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        with rnn.recording(net) as regions:
            graph, _ = trace.trace(net.construct if hasattr(net, "construct") else net, args)
    finally:
        if hasattr(net, "set_train"):
            net.set_train(was_training)
    return graph, regions


def export_onnx(net: Any, inputs: Sequence[Any], path: str | os.PathLike) -> Path:
    """Trace ``net`` on ``inputs``, translate the graph and write the model to ``path`` atomically."""
    graph, regions = trace_for_export(net, inputs)
    model = graph_to_onnx(graph, name=type(net).__name__, regions=regions)
    onnx.checker.check_model(model)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, model.SerializeToString())
    return path



__all__ = ["OPSET", "CONVERTERS", "UnsupportedExportError", "graph_to_onnx", "trace_for_export", "export_onnx"]
