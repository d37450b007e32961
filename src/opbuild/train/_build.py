"""Ahead-of-time compilation for ``Model.build``: trace a network on a batch's signature and build every
kernel of its graph into the cache, without running it."""

from __future__ import annotations

import logging
from typing import Any

from ..core import trace
from ..core.tensor import Tensor
from ..nn.cell import Cell, restore_training

log = logging.getLogger("opbuild.train")


class _NeedsData(Exception):
    """A condition over a traced tensor: the graph cannot be compiled without running it."""


class _BuildTracer(trace.Tracer):
    def concretize(self, t: Tensor, kind: str) -> Any:
        raise _NeedsData(kind)


def precompile(network: Cell, batch: tuple, training: bool) -> bool:
    """Build every kernel of ``network``'s graph for ``batch``'s signature (its training flags set to
    ``training`` for the trace, then restored). Returns False, with a log line, for a network whose control
    flow needs data (its pieces compile at its first call)."""
    flags = [(cell, cell.training) for _, cell in network.cells_and_names()]
    network.set_train(training)
    try:
        args = tuple(b if isinstance(b, Tensor) else Tensor(b) for b in batch)
        try:
            graph, _ = trace.trace(network._construct_in_precision, args, tracer=_BuildTracer())
        except _NeedsData:
            log.info("Model.build: %s has control flow over tensor values; its graph pieces compile at its first "
                     "call", type(network).__name__)
            return False
        trace.engine().compile_graph(graph)
        return True
    finally:
        restore_training(flags)
