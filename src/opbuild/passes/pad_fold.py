"""Pad folding: a zero ``Pad`` of the height and width of a ``Conv2D``'s input becomes the convolution's own
padding.

Models exported from TensorFlow-style definitions (MobileNet, EfficientNet: "same" padding split unevenly, as
an explicit pad before a padding-free convolution) carry a ``Pad`` node per strided or depthwise layer. Each
costs a kernel call and a full copy of its input into a new buffer, which the convolution's kernels then copy
again into their own zero-bordered planes; a convolution's padding is those zeros already. When every reader
of a ``Pad``'s output is a ``Conv2D`` that reads it as its image (input 0), the ``Pad`` pads only the last two
axes of an NCHW input, and the convolution's data format is NCHW, each reader takes the ``Pad``'s input and
adds its widths to its ``pad`` (top, bottom, left, right); the ``Pad`` is then unread, and dead-code
elimination (which runs next) drops it. The sums are the same products in the same order: the result is the
unfolded graph's, bit for bit.

The convolution's attributes are normalized again for the new shapes, so its algorithm (ops/conv_plan.py)
is chosen for the convolution it now is.
"""

from __future__ import annotations

from ..core.ir import Graph, Node, Value
from ..ops.registry import get as get_op
from .base import GraphPass, consumers


def _foldable(pad: Node, readers: list[Node], graph_outputs: set[int]) -> bool:
    out = pad.outputs[0]
    widths = pad.attrs["paddings"]
    if id(out) in graph_outputs or out.alias_of is not None or len(widths) != 4:
        return False
    if any(a or b for a, b in widths[:2]) or not any(a or b for a, b in widths[2:]):
        return False
    return bool(readers) and all(
        r.op == "Conv2D" and r.inputs[0] is out and all(v is not out for v in r.inputs[1:])
        and r.attrs.get("data_format", "NCHW") == "NCHW" for r in readers)


def _folded(conv: Node, x: Value, widths: list[list[int]]) -> Node:
    """``conv`` reading ``x`` (the Pad's input) with the Pad's ``widths`` added to its own padding; its output
    value is kept (its readers need no rewiring)."""
    (top, bottom), (left, right) = widths[2], widths[3]
    t, b, le, r = conv.attrs["pad"]
    attrs = {k: v for k, v in conv.attrs.items() if k != "algo"}  # chosen again for the new shapes
    attrs.update(pad_mode="pad", pad=[t + top, b + bottom, le + left, r + right])
    inputs = [x, *conv.inputs[1:]]
    spec = get_op("Conv2D").spec(attrs, [v.type for v in inputs])
    assert spec.outputs[0] == conv.outputs[0].type, (spec.outputs[0], conv.outputs[0].type)
    node = Node("Conv2D", spec.attrs, inputs, name=conv.name, spec=spec)
    node.outputs = conv.outputs
    for v in node.outputs:
        v.producer = node
    return node


class PadFolding(GraphPass):
    """Folds zero ``Pad`` nodes into the ``Conv2D`` nodes that read them (see the module)."""

    name = "pad_fold"
    version = 1

    def run(self, graph: Graph) -> Graph:
        users = consumers(graph.nodes)
        outputs = {id(v) for v in graph.outputs}
        replaced: dict[int, Node] = {}
        for n in graph.nodes:
            if n.op != "Pad":
                continue
            readers = users.get(id(n.outputs[0]), [])
            if not _foldable(n, readers, outputs):
                continue
            for conv in readers:
                if id(conv) not in replaced:
                    replaced[id(conv)] = _folded(conv, n.inputs[0], n.attrs["paddings"])
        if replaced:
            graph.nodes = [replaced.get(id(n), n) for n in graph.nodes]
        return graph
