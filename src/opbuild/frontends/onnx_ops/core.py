"""The core of the ONNX converters: values (trace-time constants or Tensors), :func:`prim` (apply a primitive or
fold it with its NumPy reference), the node context :class:`Ctx` and the converter table :data:`CONVERTERS`
with its :func:`converter` decorator. The family modules of this package fill the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import OpbuildError
from ...core.tensor import Tensor
from ...ops.primitive import apply
from ...ops.registry import get as get_op
from ...passes.fold import evaluate

Value = Any  # np.ndarray (a trace-time constant) or Tensor


class StaticValueError(OpbuildError, ValueError):
    """An input that opbuild needs as a constant (a shape, axes, slice bounds) is computed at run time."""


# ---- values ---------------------------------------------------------------------------------------------

def is_const(v: Value) -> bool:
    """Whether ``v`` is a trace-time constant (a NumPy array) rather than a Tensor of the graph."""
    return isinstance(v, np.ndarray)


def shape(v: Value) -> tuple[int, ...]:
    """Static shape of a value."""
    return tuple(int(d) for d in v.shape)


def dtype(v: Value) -> str:
    """dtype name of a value ("float32", "int64", ...)."""
    return v.dtype.name if isinstance(v, np.ndarray) else v._type.dtype


def const(value: Any, dt: str) -> np.ndarray:
    """A constant of dtype ``dt``."""
    return np.asarray(value, dtype=dt)


def prim(op: str, attrs: dict, *inputs: Value) -> Value:
    """Apply opbuild primitive ``op``: folded by the constant-folding pass's evaluator when every input is a
    constant (converters need shapes, axes and slice bounds as values while the model is traced), otherwise
    recorded into the graph being traced (constants become captured tensors, which the folding pass may still
    fold at build time). Returns one value, or a tuple for multi-output primitives."""
    if all(is_const(x) for x in inputs):
        outs = evaluate(op, attrs, inputs)
        return outs[0] if len(outs) == 1 and not get_op(op).multi_output else tuple(outs)
    return apply(op, attrs, [x if isinstance(x, Tensor) else Tensor(x) for x in inputs])


def wrap_negative(idx: Value, n: Value) -> Value:
    """ONNX indices in [-n, n) made non-negative (``n`` a scalar or an array broadcast against the indices), for
    ops whose ``bounds="raise"`` takes [0, n) (GatherNd, the TensorScatter* family)."""
    if is_const(idx):
        return np.where(idx < 0, idx + n, idx).astype(idx.dtype)
    dt = dtype(idx)
    return prim("Select", {}, prim("Less", {}, idx, const(0, dt)), prim("Add", {}, idx, const(n, dt)), idx)


def reshape(x: Value, new_shape: Sequence[int]) -> Value:
    """``x`` in a new static shape (no kernel when the shape does not change)."""
    new_shape = [int(d) for d in new_shape]
    return x if list(shape(x)) == new_shape else prim("Reshape", {"shape": new_shape}, x)


def cast(x: Value, dt: str) -> Value:
    """``x`` converted to dtype ``dt`` (no kernel when it already has it)."""
    return x if dtype(x) == dt else prim("Cast", {"dtype": dt}, x)


def prod(xs: Sequence[int]) -> int:
    """The product of static sizes, as a Python int."""
    return int(np.prod(xs, dtype=np.int64))


def numel(v: Value) -> int:
    """The number of elements of a value."""
    return prod(shape(v))


def limits(dt: str) -> tuple[Any, Any]:
    """The lowest and highest values of dtype ``dt`` (infinities for floats)."""
    if dt.startswith(("float", "bfloat")):
        return -np.inf, np.inf
    info = np.iinfo(dt)
    return info.min, info.max


def border(dims: Sequence[int], widths: Sequence[Sequence[int]]) -> np.ndarray:
    """Constant mask: True on the padding that ``widths`` adds around a tensor of shape ``dims``."""
    return np.pad(np.zeros(dims, dtype=bool), widths, constant_values=True)


# ---- the converter table --------------------------------------------------------------------------------

@dataclass
class Ctx:
    """What a converter knows about its node: ``op_type``, ``name``, parsed attributes, the model's
    ``opset``, the resolved schema ``version``, and the output names ("" for an omitted optional output).
    ``static`` reads a constant input; ``read_param`` is called with every Parameter read that way; ``memo`` keeps
    a converter's per-node values across calls."""

    op_type: str
    name: str
    attrs: dict[str, Any]
    opset: int
    version: int
    outputs: list[str]
    read_param: Callable[[Tensor], None] = field(default=lambda p: None, repr=False)
    # What a converter keeps for its node across calls of the loaded model (a random generator's state):
    # the model may replay its converters at every call (PyNative), and the node must not start afresh.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def attr(self, key: str, default: Any = None) -> Any:
        """Attribute ``key`` of the node, or ``default`` if the node does not set it."""
        return self.attrs.get(key, default)

    def wants(self, i: int) -> bool:
        """Whether output ``i`` is used (present and named)."""
        return i < len(self.outputs) and bool(self.outputs[i])

    def static(self, v: Value, what: str) -> np.ndarray:
        """The value of input ``what`` at trace time. Shapes, axes and slice bounds must be constants:
        initializers, Constant nodes, or results computed from them and from static shapes."""
        if is_const(v):
            return v
        if isinstance(v, Tensor) and v._data is not None:  # a Parameter (float initializer)
            self.read_param(v)
            return v.asnumpy()
        raise StaticValueError(
            f"{self.op_type} (ONNX node {self.name!r}): input '{what}' is computed at run time from the model's "
            f"inputs, but opbuild needs it when the model is traced (kernels are specialised on static shapes); "
            f"only constants, initializers and values derived from tensor shapes are supported there")

    def axis(self, a: int, rank: int, what: str = "axis") -> int:
        """A possibly negative axis made non-negative; StaticValueError if out of range."""
        a = int(a)
        if not -rank <= a < max(rank, 1):
            raise StaticValueError(f"{self.op_type} (ONNX node {self.name!r}): {what} {a} is out of range for "
                                   f"rank {rank}")
        return a % max(rank, 1)


Check = Callable[[Ctx], list[str]]


@dataclass(frozen=True)
class Converter:
    """One ONNX operator: the converter ``fn(ctx, *inputs)``, the schema versions it implements, the
    attributes it understands, how many outputs it can produce, a load-time ``check`` of attribute values
    returning the reasons it cannot convert the node (empty if it can), and the positions of the inputs
    whose values it needs when the model is traced (``static``: shapes, axes, slice bounds)."""

    fn: Callable[..., Any]
    versions: tuple[int, ...]
    attrs: frozenset[str] = frozenset()
    outputs: int = 1
    check: Check | None = None
    static: tuple[int, ...] = ()


CONVERTERS: dict[str, Converter] = {}


def converter(op_type: str, versions: Sequence[int], attrs: Sequence[str] = (), outputs: int = 1,
              check: Check | None = None, static: Sequence[int] = ()) -> Callable[[Callable], Callable]:
    """Register ``fn`` as the converter of ``op_type`` (decorator)."""

    def register(fn: Callable) -> Callable:
        if op_type in CONVERTERS:
            raise RuntimeError(f"ONNX converter {op_type} registered twice")
        CONVERTERS[op_type] = Converter(fn, tuple(versions), frozenset(attrs), outputs, check, tuple(static))
        return fn

    return register


def one_of(key: str, allowed: Sequence[Any], default: Any) -> Check:
    """A check that attribute ``key`` is one of ``allowed``."""

    def check(ctx: Ctx) -> list[str]:
        value = ctx.attr(key, default)
        return [] if value in allowed else [f"attribute {key}={value!r} is not supported (supported: "
                                             f"{', '.join(repr(a) for a in allowed)})"]

    return check
