"""``@jit`` (MindSpore 2.x): compile a Python function of Tensors into one graph per input signature.

The function is traced once per signature (Tensor shapes and dtypes, the values of other arguments); every
primitive it applies, the gradients of ``grad``/``value_and_grad`` it calls (inlined) and the in-place
updates of the optimizers it calls become nodes of one graph, built through the incremental build. Later
calls with the same signature run the compiled graph. Parameters are read (and updated) live at each call,
as in a Cell's graph; other Python state is frozen at trace time, as in MindSpore's graph mode.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .core import graph_breaks, trace
from .core.tensor import Tensor

_OPTIONS = {"mode", "input_signature", "hash_args", "jit_config", "compile_once"}




class _JitFunction:
    """The compiled form of a function (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any]):
        if not callable(fn):
            raise TypeError(f"@jit needs a function, got {type(fn).__name__}")
        self.fn = fn
        self._graphs: dict[tuple, tuple[Any, Callable]] = {}
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
        if trace.current() is not None:  # called from another traced function: inline
            return self.fn(*args)
        args = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        return graph_breaks.run_compiled(self._graphs, trace.arg_signature(args, "@jit"), self.fn, args)


def jit(function: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``@jit`` or ``@jit(...)``: see the module docstring. MindSpore's options (``mode``,
    ``input_signature``, ``hash_args``, ``jit_config``, ``compile_once``) are accepted; they choose between
    MindSpore's compilers and change nothing here (one graph per signature is what they all give). Other
    keywords are refused."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"jit() got unexpected keyword arguments {sorted(unknown)}")
    if function is None:
        return lambda fn: _JitFunction(fn)
    return _JitFunction(function)


@dataclass
class Explanation:
    """What :func:`explain` found: the graph pieces the call ran (``graph_count``) and the graph breaks
    between them (``breaks``: where, why, and the value the condition took)."""

    graph_count: int
    breaks: list[graph_breaks.GraphBreak] = field(default_factory=list)

    @property
    def break_count(self) -> int:
        return len(self.breaks)

    def __str__(self) -> str:
        lines = [f"{self.graph_count} graph(s), {self.break_count} graph break(s)"]
        lines += [f"  break {i + 1}: {b}" for i, b in enumerate(self.breaks)]
        return "\n".join(lines)


def explain(fn: Any, *args: Any) -> Explanation:
    """Run ``fn(*args)`` as GRAPH_MODE runs it (``fn``: a Cell, a ``@jit`` function or a plain function of
    Tensors) on fresh graphs and say where control flow over tensor values broke the graph and why. The call
    runs for real (its in-place updates happen): the conditions need this call's values."""
    args = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    if hasattr(fn, "_construct_in_precision") and hasattr(fn, "_state_signature"):  # a Cell
        body, who = fn._construct_in_precision, f"{type(fn).__name__} (a Cell)"
    else:
        body, who = getattr(fn, "fn", fn) if isinstance(fn, _JitFunction) else fn, "explain"
        if not callable(body):
            raise TypeError(f"explain needs a Cell or a function, got {type(fn).__name__}")
    graphs: dict = {}
    key = trace.arg_signature(args, who)
    # Inside the trace, nested Cells and @jit functions are inlined whatever the mode: one trace, its pieces.
    graph_breaks.run_compiled(graphs, key, body, args)
    program = graphs[key]
    return Explanation(len(program.last_breaks) + 1, list(program.last_breaks))
