"""Epilogue fusion: a MatMul, BatchMatMul or Conv2D and the elementwise chain after it become one kernel.

The pass runs after elementwise fusion (passes/fusion.py) and before memory planning. From each producer it
follows its output forward while that value has exactly one reader, is not a graph output and is not written
in place, absorbing the reader when it is:

* ``BiasAdd`` (the bias as a per-channel vector: an ``Add`` member whose operand is viewed on the channel axis);
* inference ``BatchNorm`` whose scale, bias, mean and variance are captures (Parameters or constants) of the
  input's dtype: ``(y - mean) * a + bias`` with ``a = scale / sqrt(variance + eps)`` per channel, computed
  once per call inside the kernel (the op's ``pre`` recipe; folded to a constant when scale and variance are
  constants), so the epilogue costs three operations per element;
* an elementwise node (ops/elementwise.py ``FUSIBLE``) or a ``FusedElementwise`` node (its members are
  inlined), whose output has the producer's type and whose other inputs broadcast to it (per-channel vectors,
  residuals of the full shape, scalars).

Values read anywhere else stop the chain: they keep their buffer and their node (training graphs: a value the
backward reads, such as a GeLU's input, is never absorbed). The chain becomes one node of
``FusedMatMul``/``FusedBatchMatMul``/``FusedConv2D`` (ops/fused_gemm.py) at the last absorbed node's position,
whose output is that node's output value (readers need no rewiring); it computes in the producer's output
buffer, so the intermediate buffers disappear from the memory plan. A chain is never moved across a node that
updates a buffer in place (an optimizer step or Assign between the producer and the end of the chain stops it).

Decisions depend only on the graph (node order, ops, attributes and types), so the fused kernels and their
keys are the same in every process, and a chain never crosses another producer: changing one layer changes
only its own fused kernel. ``OPBUILD_FUSION=0`` turns this pass off as well; its identity then says ``off``.
"""

from __future__ import annotations

import numpy as np

from ..core import config
from ..core.ir import Graph, Node, TensorType, Value
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops.elementwise import FUSIBLE
from ..ops.fused import OP as FUSED_ELEMENTWISE
from ..ops.fused_gemm import FUSED_OF
from ..ops.registry import get as get_op
from .base import FusionPass, consumers


class _Chain:
    """The epilogue being built: its external inputs (value, view shape) and its FusedElementwise recipe over
    ``i0`` = the producer's result and ``iK`` = external input K - 1."""

    def __init__(self, producer: Node):
        self.producer = producer
        self.out = producer.outputs[0]
        self.ext: list[tuple[Value, tuple[int, ...]]] = []
        self.members: list[dict] = []
        self.absorbed: list[Node] = []
        self.current = "i0"  # the reference of the chain's latest value
        # Per-channel recipes (BatchNorm's factor), computed once per call inside the kernel; members read
        # result J as "PJ" until the chain is final (ops/fused_gemm.py numbers them after the inputs).
        self.pre: list[dict] = []

    def operand(self, v: Value, view: tuple[int, ...] | None = None) -> str:
        """The reference of external value ``v`` (added once per (value, view))."""
        view = tuple(v.type.shape) if view is None else view
        for k, (e, ev) in enumerate(self.ext):
            if e is v and ev == view:
                return f"i{k + 1}"
        self.ext.append((v, view))
        return f"i{len(self.ext)}"

    def member(self, op: str, attrs: dict, args: list[str]) -> None:
        self.members.append({"op": op, "attrs": attrs, "args": args})
        self.current = f"t{len(self.members) - 1}"


class _Captures:
    """The graph's captures by value id, and the constants this pass adds to them: a scalar constant is one
    capture per graph (the executor re-reads every capture's address at each call, in Python)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.holders = {id(v): holder for v, holder in graph.captures}
        self._scalars: dict[tuple[str, float], Value] = {}

    def add(self, value: Value, data: np.ndarray) -> Value:
        self.graph.captures.append((value, Tensor(data)))
        self.holders[id(value)] = self.graph.captures[-1][1]
        return value

    def scalar(self, x: float, dtype: str) -> Value:
        """A shared constant capture holding ``x`` as a 0-d ``dtype`` array."""
        key = (dtype, float(x))
        if key not in self._scalars:
            self._scalars[key] = self.add(Value(TensorType((), dtype), name=f"epilogue:{dtype}:{x!r}"),
                                          np.array(x, dtype=dtype))
        return self._scalars[key]


def _channel_view(x: TensorType, axis: int) -> tuple[int, ...]:
    """The shape under which a (C,) vector broadcasts along ``axis`` of ``x``."""
    return (x.shape[axis],) + (1,) * (x.rank - 1 - axis)


def _broadcasts(t: TensorType, shape: tuple[int, ...]) -> bool:
    try:
        return tuple(np.broadcast_shapes(t.shape, shape)) == tuple(shape)
    except ValueError:
        return False


class EpilogueFusion(FusionPass):
    """Fuses elementwise consumers of MatMul/BatchMatMul/Conv2D into the producer's kernel (see the module).
    ``max_members`` bounds an epilogue's recipe (the chain stops before a node that would exceed it); its
    own :meth:`run` (it also rewrites captures) replaces FusionPass's."""

    name = "epilogue"
    version = 1

    def run(self, graph: Graph) -> Graph:
        """Replace every fusible producer + chain by one fused node at the chain's last node."""
        if not config.fusion_enabled():
            return graph
        users = consumers(graph.nodes)
        outputs = {id(v) for v in graph.outputs}
        captures = _Captures(graph)
        pos = {id(n): i for i, n in enumerate(graph.nodes)}
        writers = [i for i, n in enumerate(graph.nodes) if any(o.alias_of is not None for o in n.outputs)]
        replace: dict[int, list[Node]] = {}  # id(last absorbed node) -> nodes in its place
        drop: set[int] = set()
        for node in graph.nodes:
            if node.op not in FUSED_OF or len(node.outputs) != 1 or node.outputs[0].type.size == 0:
                continue
            chain = _Chain(node)
            value = node.outputs[0]
            while True:
                readers = list({id(u): u for u in users.get(id(value), [])}.values())  # Mul(y, y): one reader
                if len(readers) != 1 or id(value) in outputs or value.alias_of is not None:
                    break
                nxt = readers[0]
                if id(nxt) in drop or id(nxt) in replace:
                    break  # already in an earlier producer's epilogue (a residual add reads two producers)
                if any(pos[id(node)] < w <= pos[id(nxt)] for w in writers):
                    break  # the producer would move across an in-place update
                if not self._absorb(chain, nxt, value, captures):
                    break
                value = nxt.outputs[0]
            if not chain.absorbed:
                continue
            last = chain.absorbed[-1]
            replace[id(last)] = [_fused_node(chain, last)]
            drop.update(id(n) for n in (node, *chain.absorbed[:-1]))
        graph.nodes = [m for n in graph.nodes if id(n) not in drop for m in replace.get(id(n), [n])]
        return graph

    def _absorb(self, chain: _Chain, nxt: Node, value: Value, captures: _Captures) -> bool:
        """Add ``nxt`` (the only reader of the chain's latest ``value``) to the chain; False when it does not
        fit (the chain then ends before it)."""
        out_t = chain.out.type
        if len(nxt.outputs) != 1 or nxt.outputs[0].type != out_t:
            return False
        saved = (len(chain.ext), len(chain.members), chain.current, len(chain.pre))  # to undo a too-long step
        if nxt.op == "BiasAdd":
            if nxt.inputs[0] is not value or nxt.inputs[1] is value:
                return False
            axis = out_t.rank - 1 if nxt.attrs["data_format"] == "NHWC" else 1
            chain.member("Add", {}, [chain.current, chain.operand(nxt.inputs[1], _channel_view(out_t, axis))])
        elif nxt.op == "BatchNorm":
            if not self._batch_norm(chain, nxt, value, captures):
                return False
        elif nxt.op in FUSIBLE or nxt.op == FUSED_ELEMENTWISE:
            recipe = (nxt.attrs["members"] if nxt.op == FUSED_ELEMENTWISE
                      else [{"op": nxt.op, "attrs": nxt.attrs, "args": [f"i{k}" for k in range(len(nxt.inputs))]}])
            if not all(v is value or _broadcasts(v.type, out_t.shape) for v in nxt.inputs):
                return False
            refs = [chain.current if v is value else chain.operand(v) for v in nxt.inputs]
            base = len(chain.members)
            for m in recipe:
                args = [refs[int(a[1:])] if a[0] == "i" else f"t{base + int(a[1:])}" for a in m["args"]]
                chain.member(m["op"], m["attrs"], args)
        else:
            return False
        if len(chain.members) > self.max_members:
            n_ext, n_members, current, n_pre = saved
            del chain.ext[n_ext:], chain.members[n_members:], chain.pre[n_pre:]
            chain.current = current
            return False
        chain.absorbed.append(nxt)
        return True

    def _batch_norm(self, chain: _Chain, bn: Node, value: Value, captures: _Captures) -> bool:
        """Inference BatchNorm as ``Sub(mean)``, ``Mul(a)``, ``Add(bias)`` members; ``a`` per channel."""
        x = chain.out.type
        scale, bias, mean, var = bn.inputs[1:]
        if bn.inputs[0] is not value or not all(id(v) in captures.holders and v.type.dtype == x.dtype
                                                for v in bn.inputs[1:]):
            return False  # computed statistics, or float32 statistics of a half input: left to BatchNorm
        axis = x.rank - 1 if bn.attrs["data_format"] == "NHWC" else 1
        view = _channel_view(x, axis)
        a = _bn_factor(scale, var, bn, captures, chain)
        chain.member("Sub", {}, [chain.current, chain.operand(mean, view)])
        chain.member("Mul", {}, [chain.current, a])
        chain.member("Add", {}, [chain.current, chain.operand(bias, view)])
        return True


def _is_constant(holder: object) -> bool:
    return isinstance(holder, Tensor) and not isinstance(holder, Parameter) and holder._data is not None


def _bn_factor(scale: Value, var: Value, bn: Node, captures: _Captures, chain: _Chain) -> str:
    """The reference of ``scale / sqrt(variance + eps)`` per channel: a new constant capture when both are
    constants, else a per-channel recipe the kernel computes once per call (Parameters change between calls)."""
    dt = scale.type.dtype
    eps = bn.attrs["epsilon"]
    view = _channel_view(chain.out.type, chain.out.type.rank - 1 if bn.attrs["data_format"] == "NHWC" else 1)
    held = captures.holders
    if _is_constant(held[id(scale)]) and _is_constant(held[id(var)]):
        s_arr, v_arr = held[id(scale)].asnumpy(), held[id(var)].asnumpy()
        a = captures.add(Value(scale.type, name=f"epilogue:{bn.name}:a"),
                         (s_arr / np.sqrt(v_arr + np.array(eps, dt))).astype(dt))
        return chain.operand(a, view)
    refs = ((var, view), (captures.scalar(eps, dt), ()), (scale, view))
    idx = [int(chain.operand(v, shape)[1:]) - 1 for v, shape in refs]
    chain.pre.append({"inputs": idx, "members": [{"op": "Add", "attrs": {}, "args": ["i0", "i1"]},
                                                 {"op": "Sqrt", "attrs": {}, "args": ["t0"]},
                                                 {"op": "RealDiv", "attrs": {}, "args": ["i2", "t1"]}]})
    return f"P{len(chain.pre) - 1}"


def _fused_node(chain: _Chain, last: Node) -> Node:
    """The fused node computing ``last``'s output value (kept: its readers need no rewiring)."""
    op = FUSED_OF[chain.producer.op]
    p = chain.producer
    n_ext = len(chain.ext)  # per-channel results are numbered after the inputs
    members = [{**m, "args": [f"i{n_ext + 1 + int(a[1:])}" if a[0] == "P" else a for a in m["args"]]}
               for m in chain.members]
    attrs = {"producer": p.attrs, "views": [list(view) for _, view in chain.ext], "members": members}
    if chain.pre:
        attrs["pre"] = chain.pre
    spec = get_op(op).spec(attrs, [*(v.type for v in p.inputs), *(v.type for v, _ in chain.ext)])
    node = Node(op, spec.attrs, [*p.inputs, *(v for v, _ in chain.ext)], name=f"{op}-{last.name}", spec=spec)
    out = last.outputs[0]
    out.producer, out.index = node, 0
    node.outputs = [out]
    return node
