"""Reduction fusion: a row reduction with its elementwise prologue and epilogue becomes one ``FusedRowReduce``
node (ops/fused_reduce.py), hence one kernel that reads each row once or a few times while it is in cache.

Seeds are the nodes that reduce the innermost axes of a float value of shape F over rows of n >= 2 elements:
ReduceSum/Mean/Max/Min (any dtype of ALL_FLOATS), and the single-op Softmax and LogSoftmax over the last axis
and LayerNorm (float32/float64; LayerNorm only when its mean and variance outputs are unused). The single ops
enter the fused kernel as their decompositions (ops/compose/normalization.py, written once), with the arithmetic
of their own kernels:

    Softmax(x)     = exp(x - max) / sum(exp(x - max))
    LogSoftmax(x)  = (x - max) - log(sum(exp(x - max)))
    LayerNorm(x)   = (x - mean) * rsqrt(mean((x - mean)^2) + epsilon) * gamma + beta

(epsilon is added to the biased variance inside the square root, as ops/normalization.py and MindSpore/ONNX place it;
a decomposed chain that adds it elsewhere, e.g. ``(x - mean) / (sqrt(var) + eps)``, is fused as written, never
mistaken for LayerNorm.) So an exported ``Add -> LayerNorm`` (the residual) or ``Add(mask) -> Softmax -> IsNan ->
Select`` is one kernel, and a decomposed LayerNorm or Softmax chain (ReduceMean/Sub/Pow/...) is one kernel too.

A group grows from its seed, in three steps whose order and tie-breaks depend only on the graph (node order,
ops, attributes, types), never on names or ids, so every process fuses alike:
  1. epilogue: repeatedly the earliest node reading a member's output joins when it is elementwise (or another
     reduction of the same rows) with the full shape F or the per-row shape K, and none of its other inputs
     depends on the group (which would make a cycle);
  2. trim: while more than one value leaves the group, or the one that does is not the last member's, or the
     recipe is not a valid FusedRowReduce (ops/fused_reduce.py ``analyse``: e.g. scratch rows too large), the
     latest member leaves;
  3. prologue: an elementwise producer of a member's input joins when every reader of its output is in the
     group and it is not a graph output (no intermediate buffer remains).
A group of one node (a lone reduction, Softmax or LayerNorm) stays as it is: its own kernel is the op's.
A group never spans an in-place update of a Parameter (that would move a read across the write). Groups run
before elementwise fusion (passes/fusion.py), which fuses what is left. The pass runs after autodiff (fused
nodes have no gradient rule) and before memory planning. ``OPBUILD_FUSION=0`` turns it off; its identity then
says ``off``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..core.dtypes import ALL_FLOATS, COMPLEX
from ..core.errors import ShapeError
from ..core.ir import Graph, Node, TensorType, Value
from ..ops import compose
from ..ops.elementwise import FUSIBLE
from ..ops.fused_reduce import OP as FUSED_OP
from ..ops.fused_reduce import ROW_REDUCTIONS
from ..ops.registry import get as get_op
from .base import FusionPass, consumers

_ROW_OPS = ("Softmax", "LogSoftmax", "LayerNorm")
_EXACT = ("float32", "float64")  # single ops expanded only where the fused arithmetic is theirs


def _attrs(n: Node) -> dict:
    return n.spec.attrs if n.spec is not None else get_op(n.op).spec(n.attrs, [v.type for v in n.inputs]).attrs


def row_of(n: Node) -> tuple[tuple[int, ...], int] | None:
    """``(full shape, first reduced axis)`` of a node that reduces rows the pass can fuse, else None."""
    if not n.inputs or n.inputs[0].type.size == 0:
        return None
    x = n.inputs[0].type
    if n.op in ROW_REDUCTIONS:
        if x.dtype not in ALL_FLOATS:
            return None
        axes = tuple(_attrs(n)["axis"])
        begin = axes[0] if axes else x.rank
        if axes != tuple(range(begin, x.rank)):
            return None
    elif n.op in ("Softmax", "LogSoftmax"):
        begin = _attrs(n)["axis"]
        if x.dtype not in _EXACT or begin != x.rank - 1:
            return None
    elif n.op == "LayerNorm":
        a = _attrs(n)
        begin = a["begin_norm_axis"]
        if x.dtype not in _EXACT or a["begin_params_axis"] < begin:
            return None
    else:
        return None
    n_row = 1
    for d in x.shape[begin:]:
        n_row *= d
    return (x.shape, begin) if n_row >= 2 else None


def _elementwise(n: Node) -> bool:
    return (n.op in FUSIBLE and len(n.outputs) == 1 and n.outputs[0].type.size > 0
            and not any(v.type.dtype in COMPLEX for v in (*n.inputs, *n.outputs)))


class ReduceFusion(FusionPass):
    """Fuses row reductions with their elementwise prologue and epilogue (see the module)."""

    name = "rowfuse"
    version = 1

    def fuse(self, group: list[Node]) -> Node:
        """One ``FusedRowReduce`` node at the position of the group's last member."""
        return build_node(group)

    def groups(self, graph: Graph) -> list[list[Node]]:
        """The groups to fuse, each in graph order (its output's producer last), in order of their seeds."""
        g = _GraphView(graph)
        found: list[list[Node]] = []
        for seed in graph.nodes:
            if id(seed) in g.taken or not g.seedable(seed):
                continue
            group = self._grow(g, seed)
            if group:
                g.taken.update(id(n) for n in group)
                found.append(group)
        return found

    def _grow(self, g: _GraphView, seed: Node) -> list[Node] | None:
        row = row_of(seed)
        assert row is not None
        members = {id(seed): seed}
        # 1. epilogue
        while True:
            cand = sorted((u for m in members.values() for o in m.outputs for u in g.users.get(id(o), ())
                           if id(u) not in members and id(u) not in g.taken and g.joins(u, row)
                           and not g.depends(u, members)), key=lambda n: g.pos[id(n)])
            if not cand or _size(members.values()) >= self.max_members:
                break
            members[id(cand[0])] = cand[0]
        # 2. trim
        group = sorted(members.values(), key=lambda n: g.pos[id(n)])
        while group and not (any(row_of(n) for n in group) and g.valid(group, self.max_members)):
            group.pop()
        if not group:
            return None
        # 3. prologue: producers whose every reader is in the group (latest member first, inputs in order)
        grew = True
        while grew:
            grew = False
            for m in sorted(group, key=lambda n: -g.pos[id(n)]):
                for v in m.inputs:
                    p = v.producer
                    ids = {id(n) for n in group}
                    if (p is None or id(p) in ids or id(p) in g.taken or not g.joins(p, row)
                            or id(v) in g.outputs or not all(id(u) in ids for u in g.users.get(id(v), ()))):
                        continue
                    trial = sorted([*group, p], key=lambda n: g.pos[id(n)])
                    if g.valid(trial, self.max_members):
                        group, grew = trial, True
                        break
                if grew:
                    break
        # A group of one node stays as it is: its kernel is the op's own, shared with unfused graphs.
        return group if len(group) > 1 else None


def _size(nodes: Iterable[Node]) -> int:
    return sum({"Softmax": 5, "LogSoftmax": 6, "LayerNorm": 9}.get(n.op, 1) for n in nodes)


class _GraphView:
    """What growing groups needs to know about a graph: readers of each value, positions, graph outputs, the
    positions of in-place updates, and the nodes already taken."""

    def __init__(self, graph: Graph):
        self.users = consumers(graph.nodes)
        self.outputs = {id(v) for v in graph.outputs}
        self.pos = {id(n): i for i, n in enumerate(graph.nodes)}
        self.updates = [i for i, n in enumerate(graph.nodes) if any(o.alias_of is not None for o in n.outputs)]
        self.taken: set[int] = set()

    def unused(self, v: Value) -> bool:
        return id(v) not in self.outputs and not self.users.get(id(v))

    def seedable(self, n: Node) -> bool:
        if row_of(n) is None:
            return False
        return n.op != "LayerNorm" or (self.unused(n.outputs[1]) and self.unused(n.outputs[2]))

    def joins(self, n: Node, row: tuple[tuple[int, ...], int]) -> bool:
        """Whether ``n`` may be a member of a group over ``row``'s rows (shapes only; validity is checked on
        the whole recipe)."""
        full, begin = row
        if _elementwise(n):
            shape = n.outputs[0].type.shape
            return shape == full or shape == full[:begin] + (1,) * (len(full) - begin)
        return row_of(n) == row and self.seedable(n)

    def depends(self, n: Node, members: dict[int, Node]) -> bool:
        """Whether an input of ``n`` not produced by ``members`` is computed from a member (fusing ``n`` would
        then make a cycle)."""
        low = min(self.pos[i] for i in members)
        stack = [v.producer for v in n.inputs if v.producer is not None and id(v.producer) not in members]
        seen: set[int] = set()
        while stack:
            p = stack.pop()
            if id(p) in seen or self.pos[id(p)] < low:
                continue
            seen.add(id(p))
            for v in p.inputs:
                q = v.producer
                if q is None:
                    continue
                if id(q) in members:
                    return True
                stack.append(q)
        return False

    def valid(self, group: list[Node], max_members: int) -> bool:
        """One value leaves the group, the last member's; no update in between; a valid recipe."""
        ids = {id(n) for n in group}
        leaving = [o for n in group for o in n.outputs[:1]
                   if id(o) in self.outputs or any(id(u) not in ids for u in self.users.get(id(o), ()))]
        if leaving != [group[-1].outputs[0]] or _size(group) > max_members:
            return False
        lo, hi = self.pos[id(group[0])], self.pos[id(group[-1])]
        if any(lo < i < hi for i in self.updates):
            return False
        try:
            recipe(group)
        except ShapeError:
            return False
        return True


class _RecipeBuilder:
    """The compositions' builder (ops/compose) of a recipe: an application is one more member (``add`` returns
    its reference ``tJ``), a constant a scalar literal of the recipe."""

    def __init__(self, add: Callable[[str, dict, list], str]):
        self._add = add

    def op(self, name: str, attrs: dict, *args: object) -> str:
        return self._add(name, attrs, list(args))

    def const(self, value: float, like: object) -> float:
        return float(value)


def recipe(group: list[Node]) -> tuple[dict, list[Value]]:
    """``(attrs, external inputs)`` of the FusedRowReduce computing ``group``'s last output (each external
    input once, in order of first use); ShapeError when the recipe is not valid."""
    refs: dict[int, object] = {}
    ext: list[Value] = []
    members: list[dict] = []

    def ref(v: Value) -> object:
        if id(v) not in refs:
            refs[id(v)] = f"i{len(ext)}"
            ext.append(v)
        return refs[id(v)]

    def add(op: str, attrs: dict, args: list) -> str:
        members.append({"op": op, "attrs": attrs, "args": args})
        return f"t{len(members) - 1}"

    members_of = _RecipeBuilder(add)
    for n in group:
        if n.op in _ROW_OPS:
            full, begin = row_of(n)  # type: ignore[misc]
            axes = range(begin, len(full))
            xi = ref(n.inputs[0])
            if n.op == "LayerNorm":
                gi, bi = ref(n.inputs[1]), ref(n.inputs[2])
                y = compose.layer_norm(members_of, xi, gi, bi, axes, _attrs(n)["epsilon"])
            else:
                y = (compose.softmax if n.op == "Softmax" else compose.log_softmax)(members_of, xi, axes)
            refs[id(n.outputs[0])] = y
            continue
        args = [refs[id(v)] if id(v) in refs else ref(v) for v in n.inputs]
        refs[id(n.outputs[0])] = add(n.op, _attrs(n), args)
    attrs = {"members": members}
    get_op(FUSED_OP).spec(attrs, [v.type for v in ext])  # validates (ShapeError)
    return attrs, ext


def build_node(group: list[Node]) -> Node:
    """The FusedRowReduce node replacing ``group``; it keeps the last member's output value (its readers need
    no rewiring)."""
    attrs, ext = recipe(group)
    spec = get_op(FUSED_OP).spec(attrs, [v.type for v in ext])
    root = group[-1]
    node = Node(FUSED_OP, spec.attrs, ext, name=f"{FUSED_OP}-{root.name}", spec=spec)
    out = root.outputs[0]
    assert out.type == TensorType(spec.outputs[0].shape, spec.outputs[0].dtype)
    out.producer, out.index = node, 0
    node.outputs = [out]
    return node
