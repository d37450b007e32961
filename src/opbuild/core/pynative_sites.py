"""PyNative rules for state a compiled gradient graph captures: host steps run around each call of the graph.

opbuild traces and compiles a function differentiated from PyNative (``value_and_grad``, ``TrainOneStepCell``
in PYNATIVE_MODE), where MindSpore runs it op by op. A random op traced there would keep one generator across
the compiled graph's calls (GRAPH_MODE's rule); MindSpore's PyNative seeds each functional call afresh and
continues a primitive object's own generator. While such a trace runs (:func:`collecting`), a random op
registers a ``before`` step (reseed its state Parameter as this call's PyNative draw would be seeded) and an
``after`` step (hand the advanced state back to its owner); autograd.py runs ``before`` at every call but the
first (the trace seeded the state already) and ``after`` at every call.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

Step = Callable[[], None]

_COLLECTING: contextvars.ContextVar[dict | None] = contextvars.ContextVar("opbuild_pynative_sites", default=None)


@contextlib.contextmanager
def collecting(enabled: bool = True) -> Iterator[list[tuple[Step | None, Step | None]]]:
    """Collect the (before, after) steps of the ops traced in the block (a PyNative gradient's trace); with
    ``enabled`` False (a gradient called in GRAPH_MODE compiles as a graph there) nothing is collected."""
    steps: list[tuple[Step | None, Step | None]] = []
    token = _COLLECTING.set({"steps": steps, "shared": {}} if enabled else None)
    try:
        yield steps
    finally:
        _COLLECTING.reset(token)


def active() -> bool:
    """Whether a PyNative gradient's trace is collecting steps now."""
    return _COLLECTING.get() is not None


def register(before: Step | None, after: Step | None) -> None:
    """Add the steps of an op traced now (see the module docstring); a no-op when nothing collects."""
    found = _COLLECTING.get()
    if found is not None:
        found["steps"].append((before, after))


def shared(key: Any, make: Callable[[], Any]) -> tuple[Any, bool]:
    """The state the trace gives ``key`` (a primitive object's generator for one shape: its call sites share
    it, as they share the object's PyNative kernel), made once; and whether it was made now."""
    found = _COLLECTING.get()
    assert found is not None, "shared() outside collecting()"
    if key in found["shared"]:
        return found["shared"][key], False
    found["shared"][key] = made = make()
    return made, True
