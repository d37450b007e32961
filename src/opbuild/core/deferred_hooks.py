"""Forward hooks under a PYNATIVE_MODE gradient. opbuild computes a gradient by tracing the function into one
graph, so a Cell's forward hooks would see traced tensors without values. While :func:`deferring` is active,
``Cell`` records each hook call (the hook and its arguments) instead of making it; the gradient adds the
hooks' tensors to its graph's outputs and, once the graph has run, :func:`replay` calls every hook in order on
the values, as MindSpore's PyNative hooks see them. Deferred hooks observe: a value they return cannot
replace the traced input or output any more, so it is ignored.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from .tensor import Tensor

_pending: contextvars.ContextVar[list | None] = contextvars.ContextVar("opbuild_deferred_hooks", default=None)


@contextlib.contextmanager
def deferring() -> Iterator[list]:
    """Record the forward-hook calls made inside the block into the list it yields."""
    calls: list = []
    token = _pending.set(calls)
    try:
        yield calls
    finally:
        _pending.reset(token)


def active() -> bool:
    """Whether hook calls are being recorded."""
    return _pending.get() is not None


def record(hook: Any, hook_args: tuple) -> bool:
    """Record ``hook(*hook_args)`` for later if deferring (True), else False (call it now)."""
    calls = _pending.get()
    if calls is None:
        return False
    calls.append((hook, hook_args))
    return True


def _split(obj: Any, leaves: list) -> Any:
    """``obj`` with each Tensor replaced by its index into ``leaves`` (appended), as a template."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("__leaf__", len(leaves) - 1)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_split(x, leaves) for x in obj)
    return obj


def _fill(template: Any, values: list) -> Any:
    if isinstance(template, tuple) and len(template) == 2 and template[0] == "__leaf__":
        return values[template[1]]
    if isinstance(template, (tuple, list)):
        return type(template)(_fill(x, values) for x in template)
    return template


def tensors_of(calls: list) -> tuple[list[Tensor], list]:
    """The traced Tensors the recorded calls use (to add to the graph's outputs) and their templates."""
    leaves: list[Tensor] = []
    templates = [(hook, _split(args, leaves)) for hook, args in calls]
    return leaves, templates


def replay(templates: list, values: list) -> None:
    """Call every recorded hook, in order, on the computed ``values`` of its tensors."""
    for hook, template in templates:
        hook(*_fill(template, values))
