"""``ops.Print`` / ``ops.print_`` and the summary primitives (``ScalarSummary``, ``TensorSummary``,
``HistogramSummary``, ``ImageSummary``).

Print prints when its values exist: at once in PyNative, at every run of the compiled graph in GRAPH_MODE
(an effect ``PyCall`` node, ops/python_calls.py, kept though nothing reads it), and once the graph has run
for a function differentiated from Python (deferred as forward hooks are, core/deferred_hooks.py: the path
its conditions took is confirmed first). The layouts are MindSpore
2.10's: PyNative prints each Tensor as its ``repr``; a graph prints a 0-d tensor as its bare value and others
as ``Tensor(shape=[...], dtype=..., value=[...])`` in NumPy's layout without commas (recorded in
tests/fixtures/mindspore/functional_programs.json). Strings and Python numbers print as they are, one argument
per line.

The summary primitives check their arguments as MindSpore does and keep the latest value of each tag
(``<name>[:Scalar]`` and so on) in the session's ``"summary"`` state when the graph runs (:func:`summaries`),
where ``train.SummaryRecord.record`` takes them (:func:`take_summaries`) to write them to a summary file.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..core import config, deferred_hooks, trace
from ..core.dtypes import dtype_of
from ..core.tensor import Tensor
from .python_calls import Callback, pycall

_EDGE, _THRESHOLD = 3, 1000


def _element(v: Any, kind: str, half: bool) -> str:
    if kind == "b":
        return "True" if v else "False"
    if kind == "f":
        x = float(v)
        if np.isnan(x) or np.isinf(x):
            return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
        return f"{x: .4e}" if half else f"{x: .8e}"
    return str(v)


def _rows(a: np.ndarray, cell: Any, depth: int, elide: bool) -> str:
    """NumPy's nested layout without commas, on one line per innermost row and without blank lines between
    blocks; with ``elide``, axes longer than 6 show their first and last 3 entries around ``...``."""
    n = a.shape[0]
    idx: list[int | None] = list(range(n))
    if elide and n > 2 * _EDGE:
        idx = [*range(_EDGE), None, *range(n - _EDGE, n)]
    if a.ndim == 1:
        return "[" + " ".join("..." if i is None else cell(a[i]) for i in idx) + "]"
    sep = "\n" + " " * (depth + 1)
    return "[" + sep.join("..." if i is None else _rows(a[i], cell, depth + 1, elide) for i in idx) + "]"


def _graph_layout(a: np.ndarray, dtype_name: str) -> str:
    """MindSpore's GRAPH_MODE layout of a printed tensor (recorded: tests/fixtures/mindspore/...)."""
    if a.ndim == 0:
        v = a.item()
        return str(v) if isinstance(v, (bool, int)) else f"{float(v):g}"
    kind, half = a.dtype.kind, a.dtype.itemsize == 2 and a.dtype.kind == "f"
    elide = a.size > _THRESHOLD
    shown = a
    if elide:  # the width is that of the elements shown
        for axis in range(a.ndim):
            if a.shape[axis] > 2 * _EDGE:
                keep = [*range(_EDGE), *range(a.shape[axis] - _EDGE, a.shape[axis])]
                shown = np.take(shown, keep, axis=axis)
    width = max((len(_element(v, kind, half)) for v in shown.reshape(-1)), default=0)

    def cell(v: Any) -> str:
        return _element(v, kind, half).rjust(width)

    head = f"Tensor(shape={list(a.shape)}, dtype={dtype_name}, value="
    return head + ("\n" if a.ndim > 1 else "") + _rows(a, cell, 0, elide) + ")"


def _printer(template: list[Any], graph: bool) -> Callback:
    """The callback printing ``template`` (strings and numbers, with None where a Tensor input goes)."""
    def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
        it = iter(arrays)
        lines = []
        for item in template:
            if isinstance(item, tuple) and item and item[0] == "__tensor__":
                a = next(it)
                lines.append(_graph_layout(a, item[1]) if graph else repr(Tensor(a)))
            else:
                lines.append(str(item))
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
        return [np.zeros((), np.int32)]

    return Callback("Print", run)


def print_(*input_x: Any) -> None:
    """``ops.print_(*input_x)``: print strings, numbers and Tensors, one per line (see the module docstring
    for when and how)."""
    if not input_x:
        raise ValueError("print_: give at least one value to print")
    template: list[Any] = []
    tensors: list[Tensor] = []
    for x in input_x:
        if isinstance(x, Tensor):
            template.append(("__tensor__", str(dtype_of(x._type.dtype))))
            tensors.append(x)
        elif isinstance(x, (str, int, float, bool, tuple, list)) or x is None:
            template.append(x)
        else:
            raise TypeError(f"print_: can print str, numbers and Tensors, got {type(x).__name__}")
    graph = trace.current() is not None and (config.get_context("mode") == config.GRAPH_MODE or trace.in_jit())
    printer = _printer(template, graph)
    if trace.current() is not None and deferred_hooks.active():
        # A gradient being traced from Python: print once the graph has run and its path is confirmed.
        deferred_hooks.record(lambda *ts: printer.fn([t.asnumpy() for t in ts]), tuple(tensors))
        return None
    pycall(printer, tensors, [((), "int32")], effect=True)
    return None


trace.install_graph_print(print_)


class Print:
    """``ops.Print()(*args)``: :func:`print_` as a primitive."""

    def __call__(self, *args: Any) -> None:
        return print_(*args)


# ---- summaries ----------------------------------------------------------------------------------------------

def summaries() -> dict[str, np.ndarray]:
    """The latest value of each summary tag written by the graphs run so far (``<name>[:Scalar]``...)."""
    return trace.engine().state("summary")


def take_summaries() -> list[tuple[str, np.ndarray]]:
    """The summary values kept so far as (tag, value), emptying the store: those written by compiled graphs
    first, sorted by tag (MindSpore hands a graph's summaries over in that order), then those written in
    PyNative in the order of their first call."""
    values, from_graph = summaries(), trace.engine().state("summary_graph")
    order = sorted(t for t in values if t in from_graph) + [t for t in values if t not in from_graph]
    taken = [(tag, values[tag]) for tag in order]
    values.clear()
    from_graph.clear()
    return taken


def _summary_callback(tag: str, graph: bool) -> Callback:
    def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
        summaries()[tag] = np.array(arrays[0])
        if graph:
            trace.engine().state("summary_graph")[tag] = True
        return [np.zeros((), np.int32)]

    return Callback(f"Summary[{tag}]", run)


class _Summary:
    _suffix = ""

    def _check(self, value: Tensor) -> None:
        """Nothing to check beyond a Tensor (subclasses add their own rule)."""

    def __call__(self, name: Any, value: Any) -> None:
        kind = type(self).__name__
        if not isinstance(name, str) or not name:
            raise TypeError(f"{kind}: name must be a non-empty str, got {name!r}")
        if not isinstance(value, Tensor):
            raise TypeError(f"{kind}: value must be a Tensor, got {type(value).__name__}")
        self._check(value)
        graph = trace.current() is not None
        pycall(_summary_callback(f"{name}[:{self._suffix}]", graph), [value], [((), "int32")], effect=True)


class ScalarSummary(_Summary):
    """``ops.ScalarSummary()(name, value)``: record a scalar (a 0-d or one-element Tensor) under ``name``."""

    _suffix = "Scalar"

    def _check(self, value: Tensor) -> None:
        if value.size != 1:
            raise ValueError(f"ScalarSummary: value must hold one element, got shape {list(value.shape)}")


class TensorSummary(_Summary):
    """``ops.TensorSummary()(name, value)``: record a Tensor under ``name``."""

    _suffix = "Tensor"


class HistogramSummary(_Summary):
    """``ops.HistogramSummary()(name, value)``: record a Tensor for a histogram under ``name``."""

    _suffix = "Histogram"


class ImageSummary(_Summary):
    """``ops.ImageSummary()(name, value)``: record a 4-D (N, C, H, W) image Tensor under ``name``."""

    _suffix = "Image"

    def _check(self, value: Tensor) -> None:
        if value.ndim != 4:
            raise ValueError(f"ImageSummary: value must be 4-D (N, C, H, W), got shape {list(value.shape)}")


PRIMITIVES: dict[str, type] = {"Print": Print, "ScalarSummary": ScalarSummary, "TensorSummary": TensorSummary,
                               "HistogramSummary": HistogramSummary, "ImageSummary": ImageSummary}
