"""Primitive: the callable operator objects users instantiate (``ops.Square()``), and :func:`apply`,
the single place where an op application is either recorded into a trace or executed eagerly."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import trace
from ..tensor import Tensor, as_tensor
from .registry import get


def apply(op: str, attrs: dict[str, Any], inputs: Sequence[Any]) -> Any:
    """Apply primitive ``op`` to ``inputs``: inside a trace, add a graph node and return symbolic tensors;
    otherwise (PyNative, or outside any Cell) build the kernel if needed and run it now.

    Shape and dtype errors are raised here, naming the op and its inputs, before any C is involved.
    Returns one Tensor, or a tuple when the op has several outputs (or the op is ``multi_output``).
    """
    opdef = get(op)
    tensors = [as_tensor(x) for x in inputs]
    tracer = trace.current()
    values = [tracer.value_of(t) for t in tensors] if tracer is not None else None
    spec = opdef.spec(attrs, [t._type for t in tensors])
    if tracer is not None:
        node = tracer.graph.add_node(op, spec.attrs, values, list(spec.outputs), spec)
        tracer.own(node.outputs)
        outs = [Tensor._symbolic(v) for v in node.outputs]
    else:
        from ..runtime.session import session

        outs = [Tensor(a) for a in session().run_eager(spec, [t.asnumpy() for t in tensors])]
    return outs[0] if len(outs) == 1 and not opdef.multi_output else tuple(outs)


class Primitive:
    """Base class of operator objects. ``op_name`` names the registered OpDef; constructor keyword arguments
    are the op's attributes. Subclasses whose calls take non-tensor arguments (an axis, a shape) override
    ``__call__`` and move those into attributes."""

    op_name: str = ""

    def __init__(self, **attrs: Any):
        self.attrs = attrs

    def __call__(self, *inputs: Any) -> Any:
        return apply(self.op_name, self.attrs, inputs)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"{type(self).__name__}({args})"


def primitive_class(op_name: str, doc: str = "", call=None, init=None) -> type[Primitive]:
    """Create a Primitive subclass named ``op_name`` (optionally with custom ``__call__``/``__init__``)."""
    ns: dict[str, Any] = {"op_name": op_name, "__doc__": doc or f"The {op_name} primitive."}
    if call is not None:
        ns["__call__"] = call
    if init is not None:
        ns["__init__"] = init
    return type(op_name, (Primitive,), ns)
