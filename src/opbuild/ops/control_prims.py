"""MindSpore's primitives that take Python callables: the loops ``ops.ForiLoop``, ``ops.WhileLoop`` and
``ops.Scan``, and the function combinators ``ops.Map``, ``ops.HyperMap``, ``ops.MultitypeFuncGraph`` and
``ops.Partial``.

They run the callables as Python: in PyNative each step runs its ops at once; inside a trace (GRAPH_MODE
construct, ``@jit``, a gradient) the loop is unrolled into the graph, and a condition over tensor values
breaks the graph there (core/graph_breaks.py), so the results are MindSpore's in both modes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ..core.parameter import Parameter
from ..core.tensor import Tensor


class ForiLoop:
    """``ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: ``val = loop_func(i, val)`` for
    ``i`` from ``lower`` to ``upper - 1``; returns the last ``val``."""

    def __call__(self, lower: Any, upper: Any, loop_func: Callable[[Any, Any], Any], init_val: Any,
                 unroll: bool = True) -> Any:
        if not callable(loop_func):
            raise TypeError(f"ForiLoop: loop_func must be callable, got {type(loop_func).__name__}")
        lo, hi = int(lower), int(upper)
        val = init_val
        for i in range(lo, hi):
            val = loop_func(i, val)
        return val


class WhileLoop:
    """``ops.WhileLoop()(cond_func, loop_func, init_val)``: ``val = loop_func(val)`` while ``cond_func(val)``
    holds; returns the last ``val``."""

    def __call__(self, cond_func: Callable[[Any], Any], loop_func: Callable[[Any], Any], init_val: Any) -> Any:
        if not callable(cond_func) or not callable(loop_func):
            raise TypeError("WhileLoop: cond_func and loop_func must be callable")
        val = init_val
        while bool(cond_func(val)):
            val = loop_func(val)
        return val


class Scan:
    """``ops.Scan()(loop_func, init, xs, length=None, unroll=True)``: ``carry, y = loop_func(carry, x)`` over
    the elements of ``xs`` (a list/tuple, or a Tensor's first axis; ``None`` with ``length`` steps of
    ``x = None``); returns ``(carry, ys)`` with ``ys`` the list of the ``y``."""

    def __call__(self, loop_func: Callable[[Any, Any], Any], init: Any, xs: Any, length: int | None = None,
                 unroll: bool = True) -> tuple[Any, list]:
        if not callable(loop_func):
            raise TypeError(f"Scan: loop_func must be callable, got {type(loop_func).__name__}")
        if xs is None:
            if length is None:
                raise ValueError("Scan: give xs, or length when xs is None")
            items: Sequence[Any] = [None] * int(length)
        elif isinstance(xs, Tensor):
            items = [xs[i] for i in range(xs.shape[0])]
        elif isinstance(xs, (list, tuple)):
            items = xs
        else:
            raise TypeError(f"Scan: xs must be a list, a tuple, a Tensor or None, got {type(xs).__name__}")
        if length is not None and int(length) != len(items):
            raise ValueError(f"Scan: length={length} but xs has {len(items)} elements")
        carry, ys = init, []
        for x in items:
            out = loop_func(carry, x)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise ValueError("Scan: loop_func must return a pair (carry, y)")
            carry, y = out
            ys.append(y)
        return carry, ys


# ---- MultitypeFuncGraph -------------------------------------------------------------------------------------

def _type_name(x: Any) -> tuple[str, ...]:
    """The MindSpore type names ``x`` matches in a MultitypeFuncGraph signature, most specific first."""
    if isinstance(x, Parameter):
        return ("Parameter", "Tensor")
    if isinstance(x, Tensor):
        return ("Tensor",)
    if isinstance(x, bool):
        return ("Bool", "Number")
    if isinstance(x, int):  # MindSpore types a Python int as Int64 and a float as Float64
        return ("Int64", "Int", "Number")
    if isinstance(x, float):
        return ("Float64", "Float", "Number")
    if isinstance(x, str):
        return ("String",)
    if isinstance(x, tuple):
        return ("Tuple",)
    if isinstance(x, list):
        return ("List",)
    if isinstance(x, dict):
        return ("Dictionary",)
    if x is None:
        return ("None",)
    if callable(x):
        return ("Function", type(x).__name__)
    return (type(x).__name__,)  # COOTensor, CSRTensor, RowTensor, ... by their class names


class MultitypeFuncGraph:
    """``ops.MultitypeFuncGraph(name, read_value=False)``: a function overloaded by its arguments' types.
    ``@mtfg.register("Tensor", "Number")`` adds an implementation; a call picks the one whose type names
    match (``Tensor``, ``Number``, ``Int``, ``Float``, ``Bool``, ``String``, ``Tuple``, ``List``, ...)."""

    def __init__(self, name: str, read_value: bool = False):
        if not isinstance(name, str):
            raise TypeError(f"MultitypeFuncGraph: name must be a str, got {type(name).__name__}")
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple[str, ...], Callable[..., Any]]] = []

    def register(self, *type_names: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering an implementation for arguments of the types ``type_names``."""
        names = tuple(t if isinstance(t, str) else getattr(t, "__name__", str(t)) for t in type_names)

        def attach(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.entries.append((names, fn))
            return fn

        return attach

    def __call__(self, *args: Any) -> Any:
        kinds = [_type_name(a) for a in args]
        for names, fn in self.entries:
            if len(names) == len(args) and all(n in k for n, k in zip(names, kinds)):
                return fn(*args)
        got = ", ".join(k[0] for k in kinds)
        raise TypeError(f"MultitypeFuncGraph {self.name!r}: no implementation registered for ({got}); "
                        f"registered: {[n for n, _ in self.entries]}")


# ---- Map / HyperMap / Partial -------------------------------------------------------------------------------

class Map:
    """``ops.Map(ops=None, reverse=False)``: ``Map()(fn, *sequences)`` (or ``Map(fn)(*sequences)``) applies
    ``fn`` to the elements of the sequences in turn (zipped); returns a tuple (a list for list inputs)."""

    _nested = False

    def __init__(self, ops: Callable[..., Any] | None = None, reverse: bool = False):
        self.ops = ops
        self.reverse = bool(reverse)

    def __call__(self, *args: Any) -> Any:
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0] if args else None, args[1:])
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}: the function to map must be callable (give it to the "
                            "constructor or as the first argument)")
        if not seqs:
            raise TypeError(f"{type(self).__name__}: nothing to map over")
        return self._map(fn, seqs)

    def _map(self, fn: Callable[..., Any], seqs: Sequence[Any]) -> Any:
        first = seqs[0]
        if not all(isinstance(s, (tuple, list)) for s in seqs):
            if self._nested:
                return fn(*seqs)
            raise TypeError(f"{type(self).__name__}: the arguments must be tuples or lists")
        if len({len(s) for s in seqs}) != 1:
            raise ValueError(f"{type(self).__name__}: the sequences have different lengths "
                             f"{[len(s) for s in seqs]}")
        idx = range(len(first))
        order = reversed(idx) if self.reverse else idx
        out = {i: (self._map(fn, [s[i] for s in seqs]) if self._nested else fn(*(s[i] for s in seqs)))
               for i in order}
        items = [out[i] for i in idx]
        return list(items) if isinstance(first, list) else tuple(items)


class HyperMap(Map):
    """``ops.HyperMap(ops=None, reverse=False)``: like :class:`Map`, recursing into nested tuples and lists
    (``fn`` is applied to the leaves)."""

    _nested = True


class Partial:
    """``ops.Partial()(fn, *args)``: ``fn`` with its first arguments fixed (``functools.partial``)."""

    def __call__(self, *args: Any) -> Any:
        if not args or not callable(args[0]):
            raise TypeError("Partial: the first argument must be a function")
        return functools.partial(args[0], *args[1:])


PRIMITIVES: dict[str, type] = {"ForiLoop": ForiLoop, "WhileLoop": WhileLoop, "Scan": Scan,
                               "MultitypeFuncGraph": MultitypeFuncGraph, "Map": Map, "HyperMap": HyperMap,
                               "Partial": Partial}
