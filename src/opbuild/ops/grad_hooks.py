"""Gradient hooks: ``ops.HookBackward`` and ``ops.InsertGradientOf``, and the identity they (and the Cell
backward hooks of nn/backward_hooks.py) are made of; ``CustomGradient``, the junction behind a Cell's own
``bprop``.

Each is an identity in the forward pass whose gradient is a ``PyCall`` (ops/python_calls.py) that hands the
concrete cotangents to the hook when the backward runs, and passes on what the hook returns (the cotangents
unchanged when it returns None). Outside a trace (PyNative with no gradient being taken) the identity returns
its inputs as they are and no node is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import trace
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import apply, declare
from .python_calls import Callback, pycall
from .registry import OpDef, grad_rule


def _arrays(result: Any, like: Sequence[np.ndarray], who: str) -> list[np.ndarray]:
    """A hook's result as one array per cotangent (None: the cotangents unchanged)."""
    if result is None:
        return list(like)
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(items) != len(like):
        raise ValueError(f"{who}: the hook returned {len(items)} gradient(s) for {len(like)} input(s)")
    out = []
    for r, ref in zip(items, like):
        a = np.asarray(r.asnumpy() if isinstance(r, Tensor) else r, dtype=ref.dtype)
        out.append(np.broadcast_to(a, ref.shape).copy())
    return out


def identity_with_grad(tensors: Sequence[Tensor], on_grad: Callable[[list[np.ndarray]], Any],
                       name: str) -> list[Tensor]:
    """``tensors`` unchanged; in a trace, through one node whose gradient calls ``on_grad(cotangents)``
    (arrays) and uses what it returns (arrays/Tensors, one per input, or None for unchanged)."""
    if trace.current() is None:
        return list(tensors)

    def forward(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return arrays

    def backward(inputs: list[np.ndarray], douts: list[np.ndarray]) -> list[np.ndarray]:
        return _arrays(on_grad(douts), douts, name)

    out = pycall(Callback(name, forward, backward), tensors, [(tuple(t.shape), t._type.dtype) for t in tensors])
    return list(out)


class HookBackward:
    """``ops.HookBackward(hook_fn, cell_id="")(*inputs)``: the inputs unchanged; when a gradient flows back
    through them, ``hook_fn(grads)`` is called with the tuple of their gradients (concrete Tensors) and a
    non-None result replaces them."""

    def __init__(self, hook_fn: Callable[..., Any], cell_id: str = ""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        if not isinstance(cell_id, str):
            raise TypeError(f"HookBackward: cell_id must be a str, got {type(cell_id).__name__}")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs: Any) -> Any:
        tensors = [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]

        def on_grad(douts: list[np.ndarray]) -> Any:
            return self.hook_fn(tuple(Tensor(d) for d in douts))

        out = identity_with_grad(tensors, on_grad, "HookBackward")
        return out[0] if len(out) == 1 else tuple(out)


class InsertGradientOf:
    """``ops.InsertGradientOf(f)(x)``: ``x`` unchanged; its gradient is replaced by ``f(gradient)`` (a Tensor
    function run on the concrete gradient when the backward runs, e.g. clipping)."""

    def __init__(self, f: Callable[[Any], Any]):
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be callable, got {type(f).__name__}")
        self.f = f

    def __call__(self, x: Any) -> Any:
        t = x if isinstance(x, Tensor) else Tensor(x)

        def on_grad(douts: list[np.ndarray]) -> Any:
            return self.f(Tensor(douts[0]))

        return identity_with_grad([t], on_grad, "InsertGradientOf")[0]


# ---- a custom gradient (a Cell's ``bprop``) -------------------------------------------------------------------

def _junction_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return list(ins[attrs["n_in"]:])


def _junction_host(attrs: dict, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    for dst, src in zip(outs, ins[attrs["n_in"]:]):
        dst[...] = src


declare(OpDef("CustomGradient", _junction_infer, lambda attrs, *xs: [np.array(x) for x in xs[attrs["n_in"]:]],
              multi_output=True, host=_junction_host),
        "``CustomGradient(inputs..., outputs...)``: the outputs, whose gradient with respect to the inputs is "
        "``attrs['bprop']`` (a Cell's ``bprop``) and which pass nothing back to the computation that made them.")


@grad_rule("CustomGradient")
def _junction_grad(attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any], douts: Sequence[Any]) -> list:
    """The user's ``bprop(*args, out, dout)``, traced into the backward like any gradient rule."""
    n_in = attrs["n_in"]
    xs, outs = list(inputs[:n_in]), list(inputs[n_in:])
    filled = [d if d is not None else apply("ZerosLike", {}, [o]) for d, o in zip(douts, outputs)]
    out = outs[0] if len(outs) == 1 else tuple(outs)
    dout = filled[0] if len(filled) == 1 else tuple(filled)
    grads = attrs["bprop"](xs, out, dout)
    grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
    if len(grads) != n_in:
        raise ValueError(f"bprop returned {len(grads)} gradient(s) for {n_in} Tensor input(s) (it returns one "
                         "per input of construct, in order)")
    return [*grads, *([None] * len(outs))]


def custom_gradient(tensors: Sequence[Tensor], outputs: Sequence[Tensor],
                    bprop: Callable[[list, Any, Any], Any]) -> list[Tensor]:
    """``outputs`` unchanged, with ``bprop(tensors, out, dout)`` as their gradient with respect to ``tensors``
    in place of the gradient of the computation that made them (inside a trace; else as they are)."""
    if trace.current() is None:
        return list(outputs)
    out = apply("CustomGradient", {"n_in": len(tensors), "bprop": bprop}, [*tensors, *outputs])
    return list(out)


PRIMITIVES: dict[str, type] = {"HookBackward": HookBackward, "InsertGradientOf": InsertGradientOf}
