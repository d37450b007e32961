"""Running a dynamic batch on kernels that take the batch size at run time (docs/dynamic-batch.md).

For a row-wise function (nn/dynamic_batch.py decided it), :func:`compile` traces it at batch 1, 2 and 3, runs
the graph passes over each trace, checks that they give the same graph (the same nodes and wiring, each
value's shape the same or varying in one dim with the batch) and builds the batch-1 graph once with
run-time-batch kernels (runtime/batch_graph.py, passes/row_plan.py): every batch size then runs as one call
of each kernel, and a new size builds nothing. Where that is not possible (a node with the batch inside
other dims, a target without such kernels), :func:`compile` returns the reason and nn/batch_chunks.py runs
the chunk graphs instead.

``OPBUILD_DYNAMIC_BATCH`` chooses: ``runtime`` (the default: run-time-batch kernels where possible) or
``chunks`` (always the chunk graphs).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core import trace
from ..core.errors import ConfigError
from ..core.ir import Graph
from ..core.tensor import Tensor
from ..passes import DEFAULT_PIPELINE
from .dynamic_batch import batch_dims_of, numbering, row_args

MODE_VARIABLE = "OPBUILD_DYNAMIC_BATCH"
MODES = ("runtime", "chunks")
_TRACED = (1, 2, 3)


def mode() -> str:
    """``OPBUILD_DYNAMIC_BATCH``: ``runtime`` (default) or ``chunks``."""
    raw = os.environ.get(MODE_VARIABLE, "").strip().lower() or "runtime"
    if raw not in MODES:
        raise ConfigError(MODE_VARIABLE, raw, "is not a dynamic-batch mode", " or ".join(MODES), default="runtime")
    return raw


@dataclass
class RuntimeBatch:
    """A function built once with run-time-batch kernels: the compiled graph, the argument each graph input
    comes from, and the output structure."""

    compiled: Any
    sources: list[int]
    rebuild: Callable[[list], Any]
    built: bool = True  # the next call is the first, whose build report is the build's

    def run(self, args: Sequence[Any]) -> Any:
        """Call it on ``args`` (any batch size); after the first call build_report() says every kernel was
        reused."""
        outs = self.compiled([args[i].asnumpy() for i in self.sources])
        if self.built:
            self.built = False
        else:
            trace.engine().graph_reused(self.compiled)
        return self.rebuild([Tensor._of(o) for o in outs])


def _same_graph(graphs: Sequence[Graph]) -> bool:
    """Same nodes (ops), wiring and outputs in every graph (the passes made the same decisions)."""
    first, idx0 = graphs[0], numbering(graphs[0])[1]
    for g in graphs[1:]:
        idx = numbering(g)[1]
        if (len(g.inputs), len(g.captures), len(g.nodes)) != (len(first.inputs), len(first.captures),
                                                              len(first.nodes)):
            return False
        for a, b in zip(first.nodes, g.nodes):
            if a.op != b.op or len(a.outputs) != len(b.outputs) \
                    or [idx0[id(v)] for v in a.inputs] != [idx[id(v)] for v in b.inputs]:
                return False
        if [idx0[id(v)] for v in first.outputs] != [idx[id(v)] for v in g.outputs]:
            return False
    return True


def compile(fn: Callable[..., Any], args: Sequence[Any], dynamic: Sequence[bool]) -> RuntimeBatch | str:
    """Build ``fn`` (row-wise in its ``dynamic`` arguments) with run-time-batch kernels; or why not."""
    eng = trace.engine()
    build = getattr(eng, "compile_batch_graph", None)
    if build is None:
        return "the engine has no run-time-batch graphs"
    graphs, rebuild = [], None
    for b in _TRACED:
        g, rb = trace.trace(fn, row_args(args, dynamic, b))
        rebuild = rebuild or rb
        graphs.append(DEFAULT_PIPELINE.run(g))
    if not _same_graph(graphs):
        return "the graph passes give different graphs at batch 1, 2 and 3"
    dims = batch_dims_of(graphs, _TRACED)
    if isinstance(dims, str):
        return f"after the graph passes, {dims}"
    g = graphs[0]
    batched = {id(v): (a, k) for v, a, k in zip(numbering(g)[0], *dims) if a is not None}
    # A constant the passes folded at the batch's shape (a Fill, a broadcast row) has every row equal (the
    # row-wise check saw to it): its batch-1 row serves every row, read as an unbatched operand.
    folded = {id(v) for v, _ in g.captures if id(v) in batched}
    if any(id(v) in folded for v in g.outputs):
        return "an output is a constant of the batch's shape"
    compiled = build(g, {k: a for k, a in batched.items() if k not in folded})
    if isinstance(compiled, str):
        return compiled
    sources = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    return RuntimeBatch(compiled, sources, rebuild)


__all__ = ["MODE_VARIABLE", "RuntimeBatch", "compile", "mode"]
