"""Graph IR: primitive-op nodes over values with static types. Imports nothing else of opbuild."""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TensorType:
    """Static type of a value: shape (tuple of ints) and dtype name ("float32", ...)."""

    shape: tuple[int, ...]
    dtype: str

    def __hash__(self) -> int:
        # Memo keys hold TensorTypes and are hashed several times per node on every build; the generated
        # dataclass hash runs Python code each time, so compute it once (kept out of pickles: str hashes
        # differ between processes).
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = hash((self.shape, self.dtype))
            object.__setattr__(self, "_hash", h)
            return h

    def __getstate__(self) -> dict:
        return {"shape": self.shape, "dtype": self.dtype}

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"


@dataclass
class KernelSpec:
    """Everything that determines one kernel's code: op name, canonical attrs, input and output types."""

    op: str
    attrs: dict[str, Any]
    inputs: tuple[TensorType, ...]
    outputs: tuple[TensorType, ...]
    _memo: bytes | None = field(default=None, repr=False, compare=False)

    def memo_key(self) -> bytes:
        """A cheap in-process identity of the kernel (the cache key adds toolchain and codegen), also what graph
        manifests hash (cache/manifest.py): op, canonical attrs, and the (shape, dtype) pairs of the inputs
        and outputs, serialised by ``marshal`` (format 0).

        Computed once per node of every traced graph (a BERT-base graph has ~600) and used as a dict key a few
        times each. ``marshal`` is C-fast (about half the cost of building a tuple around
        ``repr(attrs)``), bytes hash once and are cached, and format 0 writes equal data byte for byte the same
        in every process (later formats mark interned and shared objects). For plain data (None, bool, int,
        float, str and tuples, lists and dicts of them) equal bytes mean equal values (``1``, ``True`` and
        ``1.0`` stay distinct). Anything else is first made plain by :func:`_keyable`: ``marshal`` would write
        a NumPy scalar or array (or bytes) as its raw buffer, so ``np.float32(1.0)`` and
        ``np.int32(1065353216)``, or arrays of one buffer and two shapes, would share a key and one kernel.
        Two equal dicts built in different orders only miss the in-memory tier; the persistent key is the
        canonical descriptor."""
        if self._memo is None:
            shapes = ([(t.shape, t.dtype) for t in self.inputs], [(t.shape, t.dtype) for t in self.outputs])
            attrs = self.attrs if _plain(self.attrs) else _keyable(self.attrs)
            self._memo = marshal.dumps((self.op, attrs, *shapes), 0)
        return self._memo


_PLAIN = frozenset((type(None), bool, int, float, str))


def _plain(obj: Any) -> bool:
    """Whether ``obj`` is made of exactly the types ``marshal`` writes by value (no subclasses, no buffers)."""
    t = type(obj)
    if t in _PLAIN:
        return True
    if t is tuple or t is list:
        return all(_plain(v) for v in obj)
    if t is dict:
        return all(_plain(k) and _plain(v) for k, v in obj.items())
    return False


def _keyable(obj: Any) -> Any:
    """``obj`` as plain data that identifies it: an array or NumPy scalar by its dtype, shape and bytes, any
    other object by its type's name and ``repr``."""
    t = type(obj)
    if t in _PLAIN:
        return obj
    if t is tuple:
        return tuple(_keyable(v) for v in obj)
    if t is list:
        return [_keyable(v) for v in obj]
    if t is dict:
        return {_keyable(k): _keyable(v) for k, v in obj.items()}
    dtype, tobytes = getattr(obj, "dtype", None), getattr(obj, "tobytes", None)
    if dtype is not None and callable(tobytes):
        return ("<array>", str(dtype), tuple(getattr(obj, "shape", ())), tobytes())
    return ("<object>", f"{t.__module__}.{t.__qualname__}", repr(obj))


@dataclass(eq=False)
class Value:
    """One SSA value of a graph: a graph input, a captured constant/parameter, or a node output.

    ``alias_of`` (node outputs only): the input value whose buffer this output is written into, in place
    (an optimizer update or Assign writing a Parameter). The output *is* the new content of that buffer:
    the executor gives both one buffer, and nodes traced after the update read the output (trace.py
    rebinds the Parameter to it), so the order of the nodes is the order of the reads and the write.
    """

    type: TensorType
    producer: Node | None = None
    index: int = 0
    name: str = ""
    alias_of: Value | None = None


@dataclass(eq=False)
class Node:
    """One primitive application. ``attrs`` holds only JSON-able data that shapes the kernel (a host node
    that runs Python, ops/python_calls.py ``PyCall``, holds its callback there: it has no kernel)."""

    op: str
    attrs: dict[str, Any]
    inputs: list[Value]
    outputs: list[Value] = field(default_factory=list)
    name: str = ""
    spec: Any = None  # the op's KernelSpec, recorded at trace time so the build does not re-infer it


@dataclass(eq=False)
class Graph:
    """A traced graph. ``captures`` are values read from live objects (parameters, constants) at run time,
    paired with the object that holds their data. ``memory_plan`` is set by the memory-planning pass
    (passes/memplan.py): where each value lives; the executor follows it."""

    inputs: list[Value] = field(default_factory=list)
    captures: list[tuple[Value, Any]] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    outputs: list[Value] = field(default_factory=list)
    memory_plan: Any = None

    def add_node(self, op: str, attrs: dict[str, Any], inputs: list[Value], out_types: list[TensorType],
                 spec: Any = None) -> Node:
        node = Node(op, attrs, list(inputs), name=f"{op}-op{len(self.nodes)}", spec=spec)
        node.outputs = [Value(t, node, i) for i, t in enumerate(out_types)]
        self.nodes.append(node)
        return node
