"""Validation of ONNX models at load, before anything is converted or built.

``read(path)`` decodes a file and ``check(proto, source)`` validates a model; both raise
:class:`~opbuild.core.errors.OnnxModelError` naming the file and, for each problem, the node (name and op_type) and
the tensor. opbuild's own checks run first, because ``onnx.checker`` accepts some invalid models (an unknown
opset such as 99, a graph without outputs) and names neither the file nor, always, the node; the checker then
runs for everything else (attribute types, initializer sizes, ...), its message wrapped with the file's name.

The graph checks, all over the main graph (subgraphs of control-flow nodes are the checker's):

* the model has a default-domain opset that the installed ``onnx`` knows, and the graph has outputs;
* every tensor is written once: by one node, or as a graph input or initializer (an initializer may share
  its name with a graph input: it is then that input's default);
* every tensor read (node inputs, graph outputs) is written somewhere, and before it is read: a tensor read
  before its node is either part of a cycle (reported with the cycle) or an ordering error (ONNX requires
  nodes in topological order).
"""

from __future__ import annotations

import os
from pathlib import Path

import onnx
from google.protobuf.message import DecodeError

from ..core.errors import OnnxDefect, OnnxModelError

_DEFAULT_DOMAINS = ("", "ai.onnx")
TESTED_OPSETS = (13, 22)  # the range README and docs/onnx.md promise; others load when their ops are unchanged


def read(path: Path) -> onnx.ModelProto:
    """Decode the ONNX file at ``path``; :class:`OnnxModelError` naming it when it is empty or not a model."""
    source = f"'{path}'"
    try:
        size = path.stat().st_size
        if size == 0:
            raise OnnxModelError(source, [OnnxDefect("the file is empty (0 bytes): not an ONNX model")])
        return onnx.load(os.fspath(path))
    except DecodeError as e:
        raise OnnxModelError(source, [OnnxDefect(
            f"the file ({size} bytes) cannot be decoded as an ONNX model: it is truncated or not an ONNX file "
            f"(protobuf: {e})")]) from None
    except (OSError, onnx.checker.ValidationError) as e:  # unreadable, or external data missing
        raise OnnxModelError(source, [OnnxDefect(f"cannot be read: {e}")]) from None
    except (ValueError, OverflowError) as e:  # external data whose offset or length lies outside its file
        raise OnnxModelError(source, [OnnxDefect(f"its external data cannot be read: {e}")]) from None


def supported_opsets() -> tuple[int, int]:
    """The default-domain opsets a model may import: 1 to the newest the installed ``onnx`` defines."""
    return 1, int(onnx.defs.onnx_opset_version())


def check(proto: onnx.ModelProto, source: str) -> None:
    """Validate ``proto`` (loaded from ``source``); :class:`OnnxModelError` listing every problem found."""
    defects = _model_defects(proto) or _graph_defects(proto.graph)
    if not defects:
        lite = _without_large_data(proto)
        try:
            onnx.checker.check_model(lite)
        except (onnx.checker.ValidationError, ValueError) as e:  # ValueError: a model over protobuf's 2 GB
            defects = [OnnxDefect(f"rejected by onnx.checker: {str(e).strip()}")]
    if defects:
        raise OnnxModelError(source, defects)


_LARGE = 1 << 16  # initializers of more elements are checked here, not by onnx.checker


def _without_large_data(proto: onnx.ModelProto) -> onnx.ModelProto:
    """``proto``, or a copy of it for onnx.checker whose large initializers are typed graph inputs instead. The
    checker works on a serialised copy of the whole model, weights included, which for 100 MB of weights cost
    more than the rest of the load (docs/onnx.md); it only needs their types and shapes. Their data is checked
    when the importer reads it (OnnxModel: an initializer whose data does not fit its shape names itself)."""
    g = proto.graph
    if all(_elements(t) <= _LARGE for t in g.initializer):
        return proto
    declared = {vi.name for vi in g.input}
    lite = onnx.GraphProto(name=g.name, node=g.node, input=g.input, output=g.output, value_info=g.value_info,
                           sparse_initializer=g.sparse_initializer)
    for t in g.initializer:
        if _elements(t) <= _LARGE:
            lite.initializer.append(t)
        elif t.name not in declared:
            lite.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    model = onnx.ModelProto(ir_version=proto.ir_version, opset_import=proto.opset_import, graph=lite,
                            functions=proto.functions)
    return model


def _elements(t: onnx.TensorProto) -> int:
    n = 1
    for d in t.dims:
        n *= d
    return n


def _model_defects(proto: onnx.ModelProto) -> list[OnnxDefect]:
    if not proto.ListFields():  # (ByteSize would serialise every weight to count them)
        return [OnnxDefect("the model is empty (no graph, no opset, no IR version)")]
    if not proto.HasField("graph"):
        return [OnnxDefect("the model has no graph")]
    low, high = supported_opsets()
    versions = [int(imp.version) for imp in proto.opset_import if imp.domain in _DEFAULT_DOMAINS]
    if not versions and proto.ir_version >= 3:
        return [OnnxDefect(f"the model imports no opset of the default ONNX domain; add one, opset {low} to "
                           f"{high} (opbuild is tested on {TESTED_OPSETS[0]} to {TESTED_OPSETS[1]})")]
    bad = [v for v in versions if not low <= v <= high]
    if bad:
        return [OnnxDefect(f"opset {bad[0]} of the default ONNX domain is unknown: opbuild loads opsets {low} "
                           f"to {high} (those of the installed onnx {onnx.__version__}; tested: "
                           f"{TESTED_OPSETS[0]} to {TESTED_OPSETS[1]})")]
    if len(set(versions)) > 1:
        return [OnnxDefect(f"the model imports the default ONNX domain twice, as opsets {sorted(set(versions))}")]
    return []


def _node_name(node: onnx.NodeProto, index: int) -> str:
    return node.name or f"#{index}"


def _graph_defects(g: onnx.GraphProto) -> list[OnnxDefect]:
    defects: list[OnnxDefect] = []
    if not g.output:
        defects.append(OnnxDefect("the graph has no outputs: there is nothing to compute"))
    writer: dict[str, str] = {}  # tensor -> who writes it ("graph input", "initializer" or the node)
    for vi in g.input:
        if vi.name in writer:
            defects.append(OnnxDefect(f"graph input {vi.name!r} is declared twice", tensor=vi.name))
        writer[vi.name] = "graph input"
    initializers: set[str] = set()
    for t in (*g.initializer, *g.sparse_initializer):
        name = t.name if isinstance(t, onnx.TensorProto) else t.values.name
        if name in initializers:
            defects.append(OnnxDefect(f"initializer {name!r} is declared twice", tensor=name))
        initializers.add(name)
        writer.setdefault(name, "initializer")
    produced_at: dict[str, int] = {}  # tensor -> index of the node writing it
    for i, node in enumerate(g.node):
        for out in node.output:
            if not out:
                continue  # an omitted optional output
            if out in writer:
                first = writer[out]
                defects.append(OnnxDefect(f"writes tensor {out!r}, already written by {first} (every tensor "
                                          f"must have one writer)", _node_name(node, i), node.op_type, out))
                continue
            writer[out] = f"node {_node_name(node, i)!r} ({node.op_type})"
            produced_at[out] = i
    late: list[tuple[int, str]] = []  # (node index, tensor) of reads before the write
    for i, node in enumerate(g.node):
        for name in node.input:
            if not name:
                continue  # an omitted optional input
            if name not in writer:
                defects.append(OnnxDefect(f"reads tensor {name!r}, which no node, graph input or initializer "
                                          f"defines", _node_name(node, i), node.op_type, name))
            elif produced_at.get(name, -1) >= i:
                late.append((i, name))
    for vi in g.output:
        if vi.name not in writer:
            defects.append(OnnxDefect(f"graph output {vi.name!r} is not defined by any node, graph input or "
                                      f"initializer", tensor=vi.name))
    if late:
        defects += _ordering_defects(g, produced_at, late)
    return defects


def _ordering_defects(g: onnx.GraphProto, produced_at: dict[str, int],
                      late: list[tuple[int, str]]) -> list[OnnxDefect]:
    """Reads before writes: the cycle they are part of (found by a depth-first search over the producers of
    each node's inputs), else an ordering error."""
    deps = [[produced_at[n] for n in node.input if n in produced_at] for node in g.node]
    cycle = _find_cycle(deps)
    defects = []
    if cycle:
        path = " -> ".join(f"{_node_name(g.node[i], i)!r} ({g.node[i].op_type})" for i in [*cycle, cycle[0]])
        first = g.node[cycle[0]]
        tensor = next(n for n in first.input if produced_at.get(n) == cycle[-1])
        defects.append(OnnxDefect(f"reads tensor {tensor!r} in a cycle: {path} (each reads what the previous one "
                                  f"writes; a graph must be acyclic)", _node_name(first, cycle[0]), first.op_type,
                                  tensor))
    in_cycle = set(cycle)
    for i, name in late:
        if i in in_cycle:
            continue
        node, j = g.node[i], produced_at[name]
        if cycle and _reaches(deps, j, in_cycle):
            continue  # downstream of the cycle: reported with it
        defects.append(OnnxDefect(
            f"reads tensor {name!r} before node {_node_name(g.node[j], j)!r} ({g.node[j].op_type}) writes it: "
            f"ONNX requires nodes in topological order (re-export the model with its nodes sorted)",
            _node_name(node, i), node.op_type, name))
    return defects


def _find_cycle(deps: list[list[int]]) -> list[int]:
    """One cycle of the graph whose node ``i`` reads what the nodes ``deps[i]`` write: node indices, each
    reading what the previous one writes (the first what the last writes), or [] when it is acyclic."""
    white, grey, black = 0, 1, 2
    color = [white] * len(deps)
    for root in range(len(deps)):
        if color[root] != white:
            continue
        stack: list[tuple[int, int]] = [(root, 0)]  # iterative: a long chain must not hit the recursion limit
        path = [root]
        color[root] = grey
        while stack:
            node, k = stack[-1]
            if k < len(deps[node]):
                stack[-1] = (node, k + 1)
                nxt = deps[node][k]
                if color[nxt] == grey:
                    return path[path.index(nxt):][::-1]
                if color[nxt] == white:
                    color[nxt] = grey
                    stack.append((nxt, 0))
                    path.append(nxt)
            else:
                color[node] = black
                stack.pop()
                path.pop()
    return []


def _reaches(deps: list[list[int]], start: int, targets: set[int]) -> bool:
    """Whether ``start`` depends, directly or not, on a node of ``targets``."""
    seen, todo = set(), [start]
    while todo:
        i = todo.pop()
        if i in targets:
            return True
        if i not in seen:
            seen.add(i)
            todo.extend(deps[i])
    return False
