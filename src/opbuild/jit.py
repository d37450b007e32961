"""``@jit`` (MindSpore 2.x): compile a Python function of Tensors into one graph per input signature.

The function is traced once per signature (Tensor shapes and dtypes, the values of other arguments); every
primitive it applies, the gradients of ``grad``/``value_and_grad`` it calls (inlined) and the in-place
updates of the optimizers it calls become nodes of one graph, built through the incremental build. Later
calls with the same signature run the compiled graph. Parameters are read (and updated) live at each call,
as in a Cell's graph; other Python state is frozen at trace time, as in MindSpore's graph mode.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .core import graph_breaks, trace
from .core.tensor import Tensor

# Backend options MindSpore 2.10 passes through ``**options`` (device-specific there), and the keywords of its
# older signatures (mode, input_signature, hash_args, jit_config, compile_once) that model zoos still pass.
_OPTIONS = {"mode", "input_signature", "hash_args", "jit_config", "compile_once", "disable_format_transform",
            "exec_order", "infer_boost", "auto_offload", "ge_options", "ge_config"}
_CHOICES = {"capture_mode": ("ast", "bytecode", "trace"), "jit_level": ("O0", "O1", "O2"), "dynamic": (0, 1),
            "backend": ("", "ms_backend", "GE")}


class _JitFunction:
    """The compiled form of a function (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any]):
        if not callable(fn):
            raise TypeError(f"@jit needs a function, got {type(fn).__name__}")
        self.fn = fn
        self._graphs: dict[tuple, tuple[Any, Callable]] = {}
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # method use: instance -> graphs
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if trace.current() is not None:  # called from another traced function: inline
            return self.fn(*args, **kwargs)
        args, kwargs = _as_tensors(args, kwargs)
        fn, inputs, layout = trace.graph_inputs(self.fn, args, kwargs, "@jit")
        key = trace.arg_signature(inputs, "@jit")
        with trace.jit_scope():
            return graph_breaks.run_compiled(self._graphs, (key, layout) if layout else key, fn, inputs)

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """``@jit`` on a method (``construct`` of a Cell, as MindSpore's tutorials write it): bound to the
        instance, one graph per (instance, its structure and training flags, input signature)."""
        if instance is None:
            return self
        return functools.partial(self._call_bound, instance)

    def _call_bound(self, instance: Any, *args: Any, **kwargs: Any) -> Any:
        if trace.current() is not None:
            return self.fn(instance, *args, **kwargs)
        args, kwargs = _as_tensors(args, kwargs)
        state = instance._state_signature() if hasattr(instance, "_state_signature") else ()
        # Per instance, weakly: a graph captures its instance's Parameters, so it must die with the instance
        # (an id() key could be reused by a new object and run the old one's graph).
        graphs = self._bound.setdefault(instance, {})
        # The graph pieces keep the function they trace: bound through a weak reference, so the graphs (values of
        # the weak dict) never keep their own instance alive.
        ref, fn = weakref.ref(instance), self.fn
        bound: Callable[..., Any] = lambda *a, **k: fn(ref(), *a, **k)  # noqa: E731
        bound, args, layout = trace.graph_inputs(bound, args, kwargs, "@jit")
        key = (state, trace.arg_signature(args, "@jit"), layout)
        with trace.jit_scope():
            return graph_breaks.run_compiled(graphs, key, bound, args)


def _as_tensors(args: tuple, kwargs: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """NumPy arrays passed to a compiled function become Tensors (graph inputs), by position or keyword."""
    def conv(a: Any) -> Any:
        return Tensor(a) if isinstance(a, np.ndarray) else a
    return tuple(conv(a) for a in args), {k: conv(v) for k, v in kwargs.items()}


def jit(function: Callable[..., Any] | None = None, *, capture_mode: str = "ast", jit_level: str = "O0",
        dynamic: int = 0, fullgraph: bool = False, backend: str = "", **options: Any) -> Any:
    """``@jit`` or ``@jit(...)`` with MindSpore 2.10's signature: see the module docstring.

    ``capture_mode`` ("ast", "bytecode", "trace"), ``jit_level`` ("O0", "O1", "O2"), ``dynamic`` (0, 1),
    ``fullgraph`` and ``backend`` ("", "ms_backend", "GE") are validated as MindSpore validates them; they
    choose among MindSpore's graph compilers and change nothing here: opbuild traces the function and builds
    one graph per input signature (fusion follows OPBUILD_FUSION, not jit_level; a new shape is a new
    signature, so ``dynamic=1`` compiles once per shape seen). The backend ``**options`` MindSpore documents
    and its older keywords (``mode``, ``input_signature``, ``hash_args``, ``jit_config``, ``compile_once``)
    are accepted; any other keyword is refused, naming it.
    """
    for name, value in (("capture_mode", capture_mode), ("jit_level", jit_level), ("dynamic", dynamic),
                        ("backend", backend)):
        if value not in _CHOICES[name] or isinstance(value, bool):
            raise ValueError(f"jit: {name} must be one of {_CHOICES[name]}, got {value!r}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"jit: fullgraph must be a bool, got {type(fullgraph).__name__}")
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"jit() got unexpected keyword arguments {sorted(unknown)}; MindSpore's are capture_mode, "
                        f"jit_level, dynamic, fullgraph, backend and the backend options {sorted(_OPTIONS)}")
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


class JitConfig:
    """MindSpore's ``JitConfig(jit_level='', exc_mode='auto', jit_syntax_level='', debug_level='RELEASE',
    infer_boost='off', **kwargs)``, for ``Cell.set_jit_config``: the values are checked and kept in
    ``jit_config_dict``; like ``jit``'s options they choose among MindSpore's compilers and change nothing here."""

    def __init__(self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
                 debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs: Any):
        if jit_level not in ("", "O0", "O1", "O2"):
            raise ValueError(f"JitConfig: jit_level must be '', 'O0', 'O1' or 'O2', got {jit_level!r}")
        if exc_mode not in ("auto", "sink", "no_sink"):
            raise ValueError(f"JitConfig: exc_mode must be 'auto', 'sink' or 'no_sink', got {exc_mode!r}")
        if infer_boost not in ("on", "off"):
            raise ValueError(f"JitConfig: infer_boost must be 'on' or 'off', got {infer_boost!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode, "jit_syntax_level": jit_syntax_level,
                                "debug_level": debug_level, "infer_boost": infer_boost, **kwargs}
