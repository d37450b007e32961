"""``Cell.register_backward_hook`` and ``Cell.register_backward_pre_hook``.

opbuild computes a gradient by tracing the function into one graph, so a cell's backward hooks are attached
where the cell sits in that graph: while a gradient traces a cell that has backward hooks, its Tensor inputs
and its outputs pass through identities (ops/grad_hooks.py) whose gradient calls the hooks on the concrete
cotangents when the backward runs. The output gate's gradient runs first: it calls the pre-hooks
(``hook(cell, grad_output)``, a non-None result replaces ``grad_output``) and keeps ``grad_output``; the input
gate's gradient then calls the hooks (``hook(cell, grad_input, grad_output)``, a non-None result replaces
``grad_input``), with the gradients as tuples of Tensors, as MindSpore's PyNative hooks see them. Outside a
gradient the hooks are not called (no backward runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import trace
from ..core.tensor import Tensor
from ..core.trace import flatten_outputs
from ..ops.grad_hooks import custom_gradient, identity_with_grad

PRE = "_backward_pre_hooks"
POST = "_backward_hooks"


def has_hooks(cell: Any) -> bool:
    """Whether ``cell`` has backward hooks or backward pre-hooks."""
    return bool(cell.__dict__.get(PRE) or cell.__dict__.get(POST))


def _gate(obj: Any, on_grad: Callable[[list[np.ndarray]], Any], name: str) -> Any:
    """``obj`` (a Tensor or a tuple/list of them and other values) with its Tensors through one identity."""
    if isinstance(obj, Tensor):
        return identity_with_grad([obj], on_grad, name)[0]
    if isinstance(obj, (tuple, list)):
        idx = [i for i, x in enumerate(obj) if isinstance(x, Tensor)]
        if not idx:
            return obj
        gated = identity_with_grad([obj[i] for i in idx], on_grad, name)
        items = list(obj)
        for i, g in zip(idx, gated):
            items[i] = g
        return type(obj)(items)
    return obj


def call(cell: Any, call_fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``call_fn(*args, **kwargs)`` with ``cell``'s backward hooks attached (inside a trace; else a plain
    call)."""
    if trace.current() is None:
        return call_fn(*args, **kwargs)
    seen: dict[str, tuple] = {}

    def after_output(douts: list[np.ndarray]) -> Any:
        grads = tuple(Tensor(d) for d in douts)
        for hook in list(cell.__dict__.get(PRE, {}).values()):
            new = hook(cell, grads)
            if new is not None:
                grads = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        seen["grad_output"] = grads
        return grads

    def after_input(dins: list[np.ndarray]) -> Any:
        grads = tuple(Tensor(d) for d in dins)
        grad_output = seen.get("grad_output", ())
        for hook in list(cell.__dict__.get(POST, {}).values()):
            new = hook(cell, grads, grad_output)
            if new is not None:
                grads = tuple(new) if isinstance(new, (tuple, list)) else (new,)
        return grads

    gated_args = _gate(tuple(args), after_input, f"{type(cell).__name__}.backward_hook")
    out = call_fn(*gated_args, **kwargs)
    return _gate(out, after_output, f"{type(cell).__name__}.backward_pre_hook")


def has_bprop(cell: Any) -> bool:
    """Whether ``cell``'s class defines MindSpore's custom gradient method ``bprop(*inputs, out, dout)``."""
    return callable(getattr(type(cell), "bprop", None))


def call_with_bprop(cell: Any, call_fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """``call_fn(*args, **kwargs)`` whose gradient with respect to the Tensor arguments is ``cell.bprop(*args,
    out, dout)`` (inside a trace; else a plain call). As in MindSpore, nothing flows back through
    ``construct`` itself: the Parameters it reads get zero gradients."""
    out = call_fn(*args, **kwargs)
    if trace.current() is None:
        return out
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    leaves, rebuild = flatten_outputs(out, f"{type(cell).__name__}.construct")

    def bprop(tensors: list, out_value: Any, dout: Any) -> Any:
        full = list(args)
        for i, t in zip(positions, tensors):
            full[i] = t
        grads = cell.bprop(*full, out_value, dout)
        grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
        if len(grads) == len(args) and len(positions) != len(args):
            grads = [grads[i] for i in positions]  # one per argument: keep the Tensors'
        return grads

    return rebuild(custom_gradient([args[i] for i in positions], leaves, bprop))
