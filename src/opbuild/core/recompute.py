"""Recomputation marks: the nodes a ``mindspore.recompute(block, ...)`` call or a ``Cell.recompute()`` cell
traces are recomputed in the backward pass instead of kept from the forward pass.

While a gradient traces the block, :func:`block` tags each node it adds with a group (``node.recompute``);
the autodiff pass (passes/autodiff.py) re-emits a group's forward nodes where the backward first needs them
and hands the gradient rules those copies, so the forward's intermediate values of the block die after the
forward pass (memory planning reuses their bytes) and the backward computes them again: MindSpore's trade of
time for memory, with the same values. Outside a trace nothing is marked.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from . import trace


class Group:
    """One recomputed block (compared by identity)."""

    __slots__ = ()


@contextlib.contextmanager
def block() -> Iterator[None]:
    """Tag the nodes traced inside the block as one recomputed group."""
    tracer = trace.current()
    start = len(tracer.graph.nodes) if tracer is not None else 0
    yield
    if tracer is None:
        return
    group = Group()
    for node in tracer.graph.nodes[start:]:
        if getattr(node, "recompute", None) is None:  # an inner block keeps its own group
            node.recompute = group
