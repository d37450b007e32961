"""Graph breaks: control flow over tensor values in GRAPH_MODE (``if x.sum() > 0:``, ``while``, ``range(int(n))``).

A graph-mode function is traced into one graph per input signature. When its Python code needs the value of a
traced tensor (``bool``, ``int``, ``float``, ``item``), the trace breaks there, as torch.compile's
graph breaks do: the piece traced so far is compiled as an ordinary graph (its kernels are ordinary cache
entries) and run on this call's data, the condition is evaluated in Python, and tracing goes on into a new
piece whose inputs are the function's arguments and the earlier pieces' outputs that it reads.

The pieces form a tree (a :class:`Program`): each piece that ends in a break has one child per value its
condition took. A later call runs the pieces along the path its own conditions choose, without running the
Python code again; a condition value never seen before re-traces the function once, replaying the decisions
already taken on this call (the pieces before the new branch have run, their results are reused), and adds
the new branch to the tree. As everywhere in graph mode, Python state other than the arguments is frozen at
trace time: a function whose Python code traces differently for the same decisions is refused.

Each piece's outputs are its condition and the values of the piece still referenced by a live Tensor at the
break (found through the garbage collector's referrer scan), so only what the rest of the function can read is
kept. In-place updates (optimizer steps) of a piece are written when it runs; later pieces read the Parameter
again. :func:`explain` says where each break of the path taken was and why.
"""

from __future__ import annotations

import contextvars
import dataclasses
import gc
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ir import Graph, Node, Value
from .tensor import PYTHON_VALUE, Tensor
from .trace import Tracer, ValueNeeded, engine, flatten_outputs, tracing

_CONVERT = PYTHON_VALUE
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Captured tensors up to this many elements that are not Parameters are compared by value when two pieces are
# matched (Python scalars become such constants afresh at every trace); larger ones by identity.
_CONST_BY_VALUE = 64


@dataclass
class GraphBreak:
    """Where and why a graph broke: the conversion asked of a traced tensor (``bool(...)`` and so on), the
    user code line that asked, and the value it took on the call explained."""

    reason: str
    location: str
    value: Any = None

    def __str__(self) -> str:
        return f"{self.location}: {self.reason} -> {self.value!r}"


@dataclass(eq=False)
class Piece:
    """One compiled piece. ``sources[j]`` says where graph input j comes from: ``("arg", i)`` (the i-th
    argument of the function) or ``("out", p, k)`` (output k of the p-th piece of the path). ``kind`` is the
    conversion its first output goes through (None for the final piece, whose outputs are the function's)."""

    compiled: Any
    graph: Graph
    sources: list[tuple]
    kind: str | None
    out_keys: list[tuple]  # where each output is in ``graph``: ("node", i, k) or ("input", j)
    signature: tuple
    rebuild: Callable[[list], Any] | None = None
    where: GraphBreak | None = None
    children: dict[Any, Piece] = field(default_factory=dict)


def decision_key(kind: str, value: Any) -> Any:
    """The key of a condition value in a piece's children (float values by their exact bits)."""
    if isinstance(value, float):
        return (kind, value.hex())
    if isinstance(value, np.ndarray):  # asnumpy(): the array's exact bytes
        return (kind, value.dtype.str, value.shape, value.tobytes())
    return (kind, type(value).__name__, value)


def user_location(frames: Sequence[traceback.FrameSummary] | None = None) -> str:
    """``file:line (function): code`` of the innermost frame outside opbuild (of ``frames``, default the current
    stack): the user code that asked."""
    for frame in reversed(frames if frames is not None else traceback.extract_stack()):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR + os.sep):
            return f"{frame.filename}:{frame.lineno} ({frame.name}): {(frame.line or '').strip()}"
    return "<opbuild>"


def _signature(graph: Graph) -> tuple:
    """Structure of a piece: its ops, attributes, types, wiring and captured objects, so that two pieces with
    equal signatures compute the same thing and one compiled graph serves both."""
    number: dict[int, int] = {}
    for v in graph.inputs:
        number[id(v)] = len(number)
    caps = []
    for v, t in graph.captures:
        number[id(v)] = len(number)
        data = t.asnumpy() if t._data is not None else None
        if data is not None and data.size <= _CONST_BY_VALUE and type(t) is Tensor:
            caps.append(("const", data.dtype.str, data.shape, data.tobytes()))
        else:
            caps.append(("object", id(t)))
    nodes = []
    for n in graph.nodes:
        ins = tuple(number[id(v)] for v in n.inputs)
        for o in n.outputs:
            number[id(o)] = len(number)
        aliases = tuple(number.get(id(o.alias_of), -1) if o.alias_of is not None else None for o in n.outputs)
        nodes.append((n.op, repr(sorted(n.attrs.items())), ins, tuple(o.type for o in n.outputs), aliases))
    return (tuple(v.type for v in graph.inputs), tuple(caps), tuple(nodes))


def _copy(graph: Graph) -> Graph:
    """A copy of ``graph`` with its own nodes and values: the passes edit the graph they compile, and a
    piece's traced graph must stay as traced (replays and later pieces locate values in it)."""
    new: dict[int, Value] = {}

    def twin(v: Value) -> Value:
        got = new.get(id(v))
        if got is None:
            got = new[id(v)] = Value(v.type, name=v.name)
        return got

    out = Graph(inputs=[twin(v) for v in graph.inputs], captures=[(twin(v), t) for v, t in graph.captures])
    for n in graph.nodes:
        node = Node(n.op, n.attrs, [twin(v) for v in n.inputs], name=n.name, spec=n.spec)
        for k, o in enumerate(n.outputs):
            c = new[id(o)] = Value(o.type, node, k, o.name)
            if o.alias_of is not None:
                c.alias_of = twin(o.alias_of)
            node.outputs.append(c)
        out.nodes.append(node)
    out.outputs = [twin(v) for v in graph.outputs]
    return out


def _out_keys(graph: Graph, outputs: Sequence[Value]) -> list[tuple]:
    where: dict[int, tuple] = {id(v): ("input", j) for j, v in enumerate(graph.inputs)}
    where.update({id(v): ("capture", j) for j, (v, _) in enumerate(graph.captures)})
    for i, n in enumerate(graph.nodes):
        for k, o in enumerate(n.outputs):
            where[id(o)] = ("node", i, k)
    return [where[id(v)] for v in outputs]


def _value_at(graph: Graph, key: tuple) -> Value:
    if key[0] == "input":
        return graph.inputs[key[1]]
    if key[0] == "capture":
        return graph.captures[key[1]][0]
    return graph.nodes[key[1]].outputs[key[2]]


# The call-site states of the Program being traced and the times each site was met in this trace (site_state).
_SITES: contextvars.ContextVar[tuple[dict, dict] | None] = contextvars.ContextVar("opbuild_sites", default=None)


def site_state(tag: str, make: Callable[[], Any]) -> Any:
    """The state of the call site tracing now (a random op's generator), made once per site of the function
    being compiled: a graph-mode function is traced again on each new branch of its conditions, and each trace
    must capture the same state objects (the pieces must match) while a call site after a condition keeps one
    state whichever branch led to it (one node, as in MindSpore's graph). A site is the user code line and its
    ``tag``, numbered by how often the trace met it (a loop unrolled, a helper called twice). Outside a
    graph-mode trace (a gradient traced from PyNative, traced once per path): ``make()``."""
    sites = _SITES.get()
    if sites is None:
        return make()
    states, seen = sites
    where = (user_location(), tag)
    n = seen[where] = seen.get(where, -1) + 1
    if (where, n) not in states:
        states[(where, n)] = make()
    return states[(where, n)]


class Program:
    """The pieces of a function with graph breaks, as a tree over the decisions taken (see the module
    docstring). ``run`` calls the function; ``last_breaks`` are the breaks of the path the last call took."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.root: Piece | None = None
        self.last_breaks: list[GraphBreak] = []
        self._compiled: dict[tuple, Any] = {}  # signature -> compiled graph, shared by equal pieces
        # Set when a gradient inside the function needs tensor values before any piece could run: every call
        # then runs the function as Python (run_compiled), and this says why.
        self.as_python: GraphBreak | None = None
        self.reports: list[Any] = []  # build reports of the pieces compiled by the last call
        self.sites: dict[tuple, Any] = {}  # site_state's states of this function's call sites

    def pieces(self) -> list[Piece]:
        """Every piece of the tree, root first."""
        out, todo = [], [self.root] if self.root is not None else []
        while todo:
            p = todo.pop(0)
            out.append(p)
            todo.extend(p.children.values())
        return out

    def compile(self, graph: Graph, out_keys: list[tuple]) -> tuple[Any, tuple]:
        """The compiled form of a piece's graph (shared with an equal earlier piece) and its signature."""
        sig = _signature(graph)
        compiled = self._compiled.get((sig, tuple(out_keys)))
        if compiled is None:
            compiled = self._compiled[(sig, tuple(out_keys))] = engine().compile_graph(_copy(graph))
            report = getattr(engine(), "build_report", None)
            if report is not None:
                self.reports.append(report())
        return compiled, sig

    def run(self, args: Sequence[Any]) -> Any:
        """Call the function on ``args``: run the pieces the conditions choose, tracing what is new."""
        self.reports = []
        piece = self.root
        if piece is not None and piece.kind is None:  # one piece, no break: the root's inputs are arguments
            outs = piece.compiled([args[i].asnumpy() for _, i in piece.sources])
            self.last_breaks = []
            engine().graph_reused(piece.compiled)
            return piece.rebuild([Tensor._of(o) for o in outs])
        arrays = {i: a.asnumpy() for i, a in enumerate(args) if isinstance(a, Tensor)}
        env: list[list[np.ndarray]] = []
        path: list[Piece] = []
        decisions: list[Any] = []
        piece = self.root
        while piece is not None:
            outs = piece.compiled([arrays[s[1]] if s[0] == "arg" else env[s[1]][s[2]] for s in piece.sources])
            env.append(outs)
            path.append(piece)
            if piece.kind is None:
                self.last_breaks = [p.where for p in path[:-1]]
                _report_rerun(path, self.last_breaks)
                return piece.rebuild([Tensor._of(o) for o in outs])
            value = _CONVERT[piece.kind](outs[0])
            decisions.append(value)
            piece = piece.children.get(decision_key(piece.kind, value))
        tracer = BreakTracer(self, args, path, env, decisions)
        return tracer.trace()


class BreakTracer(Tracer):
    """A tracer whose conversions of traced tensors break the graph (see the module docstring). It replays
    the ``known`` pieces (already run on this call, with their results in ``env``) and adds new ones."""

    def __init__(self, program: Program, args: Sequence[Any], known: list[Piece], env: list[list[np.ndarray]],
                 decisions: list[Any]):
        super().__init__()
        self.program, self.args = program, args
        self.known, self.env, self.decisions = known, env, decisions
        self.pos = 0  # index of the piece being traced along the path
        self.parent: Piece | None = None
        self.parent_key: Any = None
        self.origin: dict[int, tuple] = {}  # id(value of an earlier piece or argument) -> its source
        self.param_of: dict[int, Tensor] = {}  # id(in-place update of an earlier piece) -> the Parameter
        self.earlier: set[int] = set()  # ids of every value of the earlier pieces
        self.kept: list[Graph] = []  # earlier pieces' graphs (their values' ids must stay unique)
        self.breaks: list[GraphBreak] = []
        self.compile_only = False  # build the pieces up to the first break, run nothing (:func:`compile_only`)
        self._new_piece()

    def _new_piece(self) -> None:
        self.graph = Graph()
        self._captured = {}
        self._own = set()
        self.imported: dict[int, Value] = {}
        self.sources: list[tuple] = []

    # ---- values of earlier pieces become inputs of this one -----------------------------------------------
    def value_of(self, t: Tensor) -> Value:
        v = t._value
        if v is None or id(v) in self._own:
            return super().value_of(t)
        got = self.imported.get(id(v))
        if got is not None:
            return got
        src = self.origin.get(id(v))
        if src is None:
            param = self.param_of.get(id(v))
            if param is not None:  # an earlier piece's in-place update: read the Parameter's data now
                return super().value_of(param)
            if id(v) in self.earlier:
                raise RuntimeError("graph break: a value of an earlier piece was not kept (the function traced "
                                   "differently on replay); graph mode needs Python state that does not change "
                                   "between calls")
            return super().value_of(t)  # another graph's value: the base class explains
        nv = Value(v.type, name=f"input{len(self.graph.inputs)}")
        self.graph.inputs.append(nv)
        self.own([nv])
        self.imported[id(v)] = nv
        self.sources.append(src)
        return nv

    # ---- the break --------------------------------------------------------------------------------------
    def concretize(self, t: Tensor, kind: str) -> Any:
        """The Python value ``kind`` of traced ``t``: ends the current piece (compiled and run, or replayed)
        and starts the next."""
        cond = self.value_of(t)
        where = GraphBreak(f"{kind}() of a traced {t._type} tensor", user_location())
        if self.pos < len(self.known):
            piece = self.known[self.pos]
            self._check_replay(piece)
            outputs = [_value_at(self.graph, k) for k in piece.out_keys]
            value = self.decisions[self.pos]
        else:
            outputs = [cond, *self._live_values(exclude=cond)]
            piece = self._add_piece(outputs, kind, where)
            if self.compile_only:  # the condition needs this piece's values: what follows waits for a call
                self.breaks.append(where)
                raise _StopAtBreak
            outs = piece.compiled(self._inputs(piece))
            self.env.append(outs)
            value = _CONVERT[kind](outs[0])
        where.value = value
        self.breaks.append(where)
        self._close_piece(outputs)
        self.parent, self.parent_key = piece, decision_key(kind, value)
        return value

    def _check_replay(self, piece: Piece) -> None:
        if _signature(self.graph) != piece.signature or self.sources != piece.sources:
            raise RuntimeError(
                "graph break: the function traced differently for the same condition values (its Python code "
                "reads state that changed between calls); graph mode freezes such state at trace time: pass it "
                "as an argument, or use PYNATIVE_MODE")

    def _live_values(self, exclude: Value) -> list[Value]:
        """This piece's node outputs still referenced by a live Tensor, in graph order (in-place updates are
        left out: the Parameter they write is read again by later pieces)."""
        produced = {id(o): o for n in self.graph.nodes for o in n.outputs if o.alias_of is None}
        produced.pop(id(exclude), None)
        if not produced:
            return []
        live = {id(r._value) for r in gc.get_referrers(*produced.values())
                if isinstance(r, Tensor) and r._value is not None and id(r._value) in produced}
        return [o for n in self.graph.nodes for o in n.outputs if id(o) in live]

    def _add_piece(self, outputs: list[Value], kind: str | None, where: GraphBreak | None,
                   rebuild: Callable[[list], Any] | None = None) -> Piece:
        self.graph.outputs = list(outputs)
        out_keys = _out_keys(self.graph, outputs)
        compiled, sig = self.program.compile(self.graph, out_keys)
        piece = Piece(compiled, self.graph, list(self.sources), kind, out_keys, sig, rebuild, where)
        if self.parent is None:
            self.program.root = piece
        else:
            self.parent.children[self.parent_key] = piece
        return piece

    def _inputs(self, piece: Piece) -> list[np.ndarray]:
        return [self.args[s[1]].asnumpy() if s[0] == "arg" else self.env[s[1]][s[2]] for s in piece.sources]

    def _close_piece(self, outputs: list[Value]) -> None:
        """Remember where this piece's values live for the pieces after it, and start the next piece."""
        mine = {id(n) for n in self.graph.nodes}
        for k, v in enumerate(outputs):
            if v.producer is not None and id(v.producer) in mine and id(v) not in self.origin:
                self.origin[id(v)] = ("out", self.pos, k)
        captured_by_value = {id(v): t for v, t in self.graph.captures}
        for n in self.graph.nodes:
            for o in n.outputs:
                self.earlier.add(id(o))
                root = o
                while root.alias_of is not None:
                    root = root.alias_of
                if root is not o and id(root) in captured_by_value:
                    self.param_of[id(o)] = captured_by_value[id(root)]
        self.kept.append(self.graph)
        self.pos += 1
        self._new_piece()

    # ---- the whole function -------------------------------------------------------------------------------
    def trace(self) -> Any:
        """Trace (and run) the function from its start; returns its output structure of concrete Tensors."""
        sym_args = []
        for i, a in enumerate(self.args):
            if isinstance(a, Tensor):
                v = Value(a._type, name=f"input{len(self.graph.inputs)}")
                self.graph.inputs.append(v)
                self.own([v])
                self.sources.append(("arg", i))
                self.origin[id(v)] = ("arg", i)
                sym_args.append(Tensor._symbolic(v))
            else:
                sym_args.append(a)
        token = _SITES.set((self.program.sites, {}))
        try:
            with tracing(self):
                out = self.program.fn(*sym_args)
                leaves, rebuild = flatten_outputs(out)
                outputs = [self.value_of(t) for t in leaves]
        finally:
            _SITES.reset(token)
        if self.pos < len(self.known):
            raise RuntimeError("graph break: the function returned before a condition it evaluated on an earlier "
                               "call with the same values; graph mode needs Python state that does not change")
        piece = self._add_piece(outputs, None, None, rebuild)
        if self.compile_only:
            return None
        outs = piece.compiled(self._inputs(piece))
        self.program.last_breaks = list(self.breaks)
        return rebuild([Tensor._of(o) for o in outs])


class _StopAtBreak(Exception):
    """Raised inside a compile-only trace at its first graph break."""


def compile_only(graphs: dict, key: Any, fn: Callable[..., Any], args: Sequence[Any]) -> list[GraphBreak]:
    """Trace ``fn(*args)`` under ``key`` and build its kernels without running anything (``Cell.compile``): the
    whole graph, or, where control flow over tensor values breaks it, the pieces up to the first break (the
    condition needs this call's values; the rest is traced and built on the first call). Returns that break,
    if any. A key already traced builds nothing."""
    program = graphs.get(key)
    if program is None:
        program = graphs[key] = Program(fn)
    if program.root is not None:
        return []
    tracer = BreakTracer(program, args, [], [], [])
    tracer.compile_only = True
    try:
        tracer.trace()
    except _StopAtBreak:
        pass
    finally:
        _publish_report(program)
    return list(tracer.breaks)


def run_compiled(graphs: dict, key: Any, fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Run ``fn(*args)`` as compiled graph pieces: traced once per ``key`` (and per new branch of its
    conditions) and kept in ``graphs``; returns ``fn``'s output structure of Tensors."""
    program = graphs.get(key)
    if program is None:
        program = graphs[key] = Program(fn)
    if program.as_python is not None:
        program.last_breaks = [program.as_python]
        return fn(*args)
    try:
        return program.run(args)
    except ValueNeeded as e:
        if program.root is not None:  # pieces have run (and maybe updated Parameters): running again is wrong
            raise
        # A gradient inside the function asked for a tensor value before anything ran: the call runs as
        # Python, as in PyNative (each gradient then traces from Python with values, compiled per path).
        program.as_python = GraphBreak(f"the call runs as Python: {str(e).split(':')[0]} inside a function "
                                       "differentiated within the graph",
                                       user_location(traceback.extract_tb(e.__traceback__)))
        program.last_breaks = [program.as_python]
        return fn(*args)
    finally:
        _publish_report(program)


def _report_rerun(path: Sequence[Piece], breaks: Sequence[GraphBreak]) -> None:
    """A call that ran compiled pieces only: build_report() describes them (every kernel reused from memory),
    not whichever graph was built last."""
    eng = engine()
    if len(path) == 1:
        eng.graph_reused(path[0].compiled)
        return
    reports = [getattr(p.compiled, "reuse_report", None) for p in path]
    adopt = getattr(eng, "adopt_report", None)
    if adopt is None or any(r is None for r in reports):
        return
    total = dataclasses.replace(reports[0], kernels=list(reports[0].kernels))
    for r in reports[1:]:
        total.extend(r)
    total.graph_breaks = [str(b) for b in breaks]
    adopt(total)


def _publish_report(program: Program) -> None:
    """Make the build report of a call that compiled several pieces the sum of theirs, with the breaks."""
    if not program.reports:
        return
    total = program.reports[0]
    for r in program.reports[1:]:
        if r is not total:
            total.extend(r)
    if hasattr(total, "graph_breaks"):
        total.graph_breaks = [str(b) for b in program.last_breaks]
    adopt = getattr(engine(), "adopt_report", None)
    if adopt is not None:
        adopt(total)
    program.reports = []
