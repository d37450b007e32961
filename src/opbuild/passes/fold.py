"""Constant folding: evaluate, at build time, every node whose inputs are all constants.

A constant is a captured :class:`~opbuild.core.tensor.Tensor` that is not a :class:`~opbuild.core.parameter.Parameter`
(parameters change between calls through ``set_data`` and optimizers; a plain Tensor's data is fixed once it
is created). A folded node's outputs become new constant captures, computed with the op's NumPy reference, so
the node needs no kernel and no call. :func:`evaluate` is also what the ONNX frontend uses to fold shape
arithmetic while it traces a model.

Folding is bounded: a node whose outputs hold more than ``max_elements`` elements is left to its kernel
(evaluating it would trade a cached kernel for a large NumPy computation on every build, and keep its
result alive in the graph).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.ir import Graph, TensorType, Value
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops.registry import get as get_op
from .base import GraphPass

DEFAULT_MAX_ELEMENTS = 1 << 16


def evaluate(op: str, attrs: dict, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The outputs of primitive ``op`` on constant inputs, computed by its NumPy reference with the dtypes
    and shapes its shape inference gives (so a folded value has exactly the type the kernel would produce)."""
    opdef = get_op(op)
    spec = opdef.spec(attrs, [TensorType(tuple(int(d) for d in a.shape), a.dtype.name) for a in arrays])
    # np.ascontiguousarray returns at least 1-d: a 0-d constant would reach the reference as shape (1,).
    return opdef.run_reference(spec, [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays])


def _is_constant(holder: object) -> bool:
    return isinstance(holder, Tensor) and not isinstance(holder, Parameter) and holder._data is not None


class ConstantFolding(GraphPass):
    """Replaces nodes whose inputs are all constant captures (or that have no inputs) by constants."""

    name = "fold"
    version = 1

    def __init__(self, max_elements: int = DEFAULT_MAX_ELEMENTS):
        self.max_elements = max_elements

    @property
    def identity(self) -> str:
        return f"{self.name}@{self.version}:{self.max_elements}"

    def run(self, graph: Graph) -> Graph:
        constants: dict[int, np.ndarray] = {id(v): t.asnumpy() for v, t in graph.captures if _is_constant(t)}
        replaced: dict[int, Value] = {}
        kept = []
        for node in graph.nodes:
            node.inputs = [replaced.get(id(v), v) for v in node.inputs]
            # A collective's result depends on the other ranks: never a constant of this one.
            if (not all(id(v) in constants for v in node.inputs) or get_op(node.op).host is not None
                    or sum(o.type.size for o in node.outputs) > self.max_elements):
                kept.append(node)
                continue
            outs = evaluate(node.op, node.attrs, [constants[id(v)] for v in node.inputs])
            for old, arr in zip(node.outputs, outs, strict=True):
                new = Value(old.type, name=f"folded:{node.name}:{old.index}")
                graph.captures.append((new, Tensor(arr)))
                constants[id(new)] = arr
                replaced[id(old)] = new
        graph.nodes = kept
        graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
        return graph
