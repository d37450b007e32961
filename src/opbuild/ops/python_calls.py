"""Operators that run Python, and the gradient's identities: ``StopGradient`` (the input, with no gradient) and
``PyCall``, a host node that calls a Python function on the concrete arrays when the graph runs.

``PyCall`` is what makes Python callbacks work inside compiled graphs and gradients: ``ops.Print`` in
GRAPH_MODE prints at every run, ``ops.Custom(func_type="pyfunc")`` computes with NumPy, and the backward hooks
(``ops.HookBackward``, ``ops.InsertGradientOf``, ``Cell.register_backward_hook``) are identities whose
gradient rule is one more ``PyCall`` calling the hook on the concrete cotangents. Like the collectives it is a
host node: nothing is built for it, the executor calls it between kernels (PyNative calls it at once), and
constant folding leaves it alone. A node with ``effect`` set (Print) is kept though nothing reads its output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import trace
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, declare
from .registry import OpDef, grad_rule, no_grad


@dataclass(frozen=True, eq=False)
class Callback:
    """A Python function a ``PyCall`` node runs: ``fn(list of input arrays) -> list of output arrays``. ``grad``
    (optional): ``grad(inputs, cotangents) -> one array (or None) per input``, the node's gradient rule on
    concrete values. Compared by identity; ``name`` shows in graphs and errors."""

    name: str
    fn: Callable[[list[np.ndarray]], Sequence[Any]]
    grad: Callable[[list[np.ndarray], list[np.ndarray]], Sequence[Any]] | None = None

    def __repr__(self) -> str:
        # The identity is part of the text: graph signatures (core/graph_breaks.py) compare attrs by repr, and
        # two callbacks of one name (two Print calls) are different computations.
        return f"Callback({self.name}#{id(self):x})"


def _pycall_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    if not isinstance(attrs.get("fn"), Callback):
        raise ShapeError("PyCall", "attrs['fn'] must be a Callback", list(ins))
    return [TensorType(tuple(s), d) for s, d in attrs["outs"]]


def run_callback(attrs: dict, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Call the node's function on ``arrays`` outside any trace (a callback applying ops runs them now) and
    check its results against the declared output types."""
    with trace.tracing(None):  # type: ignore[arg-type] - no tracer: ops inside the callback run eagerly
        outs = attrs["fn"].fn([np.asarray(a) for a in arrays])
    outs = list(outs)
    if len(outs) != len(attrs["outs"]):
        raise ValueError(f"{attrs['fn'].name}: the Python function returned {len(outs)} value(s), "
                         f"{len(attrs['outs'])} declared")
    result = []
    for o, (shape, dtype) in zip(outs, attrs["outs"]):
        a = np.asarray(o.asnumpy() if isinstance(o, Tensor) else o)
        if tuple(a.shape) != tuple(shape):
            raise ValueError(f"{attrs['fn'].name}: the Python function returned shape {list(a.shape)}, "
                             f"{list(shape)} declared")
        result.append(a.astype(dtype, copy=False))
    return result


def _pycall_host(attrs: dict, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    for dst, src in zip(outs, run_callback(attrs, ins)):
        dst[...] = src


PyCall = declare(OpDef("PyCall", _pycall_infer, lambda attrs, *xs: run_callback(attrs, xs), multi_output=True,
                       host=_pycall_host),
                 "A host node running a Python function on the concrete arrays (see the module docstring).")


def pycall(callback: Callback, inputs: Sequence[Any], outs: Sequence[tuple[tuple[int, ...], str]],
           effect: bool = False) -> tuple:
    """Apply a ``PyCall`` of ``callback`` to ``inputs`` producing outputs of the types ``outs`` ((shape, dtype)
    pairs); traced into the graph inside a trace, run now outside one."""
    attrs = {"fn": callback, "outs": tuple((tuple(s), str(d)) for s, d in outs)}
    if effect:
        attrs["effect"] = True
    return apply("PyCall", attrs, list(inputs))


@grad_rule("PyCall")
def _pycall_grad(attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any], douts: Sequence[Any]) -> list:
    """A node whose callback has a ``grad``: one more PyCall on the inputs and the cotangents (a missing
    cotangent is zeros); without one, no gradient flows (as through MindSpore's pyfunc without bprop)."""
    cb: Callback = attrs["fn"]
    if cb.grad is None:
        return [None] * len(inputs)
    n_in = len(inputs)
    filled = [d if d is not None else Tensor(np.zeros(o.shape, np.dtype(o._type.dtype)))
              for d, o in zip(douts, outputs)]
    grad_fn = cb.grad

    def backward(arrays: list[np.ndarray]) -> list[np.ndarray]:
        got = list(grad_fn(arrays[:n_in], arrays[n_in:]))
        return [np.zeros(t.shape, np.dtype(t._type.dtype)) if g is None else g for g, t in zip(got, inputs)]

    out = pycall(Callback(f"{cb.name}.grad", backward), [*inputs, *filled],
                 [(tuple(t.shape), t._type.dtype) for t in inputs])
    return list(out)


# ---- StopGradient -----------------------------------------------------------------------------------------

StopGradient = declare(OpDef("StopGradient", lambda attrs, ins: [ins[0]], lambda attrs, x: np.array(x),
                             n_inputs=1, view=True),
                       "``StopGradient()(x)``: ``x``, through which no gradient flows.")
no_grad("StopGradient")


def stop_gradient(value: Any) -> Any:
    """``ops.stop_gradient(value)``: ``value`` (a Tensor, or a tuple/list of them), with no gradient flowing
    back through it."""
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    if not isinstance(value, Tensor):
        return value
    return apply("StopGradient", {}, [value])


PRIMITIVES: dict[str, type[Primitive]] = {"StopGradient": StopGradient}
