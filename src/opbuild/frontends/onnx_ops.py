"""ONNX operators as opbuild primitives: one small converter per ``op_type``, registered in :data:`CONVERTERS`.

A converter receives a :class:`Ctx` (the node: attributes, opset, output names) and the node's inputs, and
returns the node's output value(s). A value is either a NumPy array, a *constant* known when the model is
traced, or a Tensor (a graph input, a Parameter, or the symbolic result of an op). Converters call
:func:`prim`, which applies an opbuild primitive to Tensors (a graph node) or, when every input is a constant,
evaluates the primitive's own NumPy reference at trace time (constant folding). So the same converter code
replays a node into the graph or folds it away: shape arithmetic (``Shape -> Gather -> Concat -> Reshape``),
``Range``, ``ConstantOfShape`` and integer initializers never reach the compiled graph, and every shape a
kernel sees is static.

ONNX operators opbuild has no single primitive for are compositions of existing primitives (HardSigmoid is
``ClipByValue(x * alpha + beta, 0, 1)``, integer Div truncates with FloorDiv and Mod, GatherND is a flat
Gather, Pad with a non-zero value selects between the zero-padded input and the value).

Each entry declares the ONNX schema versions (``since_version``) it implements, the attributes it
understands (anything else is reported at load time), how many outputs it produces, and an optional
load-time check of attribute values; see :mod:`opbuild.frontends.onnx` for how they are enforced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import OpbuildError
from ..ir import TensorType
from ..ops.primitive import apply
from ..ops.registry import get as get_op
from ..tensor import Tensor

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
    """Apply opbuild primitive ``op``: folded with its NumPy reference when every input is a constant,
    otherwise recorded into the graph being traced (constants become captured tensors). Returns one value,
    or a tuple for multi-output primitives."""
    opdef = get_op(op)
    if all(is_const(x) for x in inputs):
        spec = opdef.spec(attrs, [TensorType(shape(x), dtype(x)) for x in inputs])
        outs = opdef.run_reference(spec, [np.ascontiguousarray(x) for x in inputs])
        return outs[0] if len(outs) == 1 and not opdef.multi_output else tuple(outs)
    return apply(op, attrs, [x if isinstance(x, Tensor) else Tensor(x) for x in inputs])


def reshape(x: Value, new_shape: Sequence[int]) -> Value:
    """``x`` in a new static shape (no kernel when the shape does not change)."""
    new_shape = [int(d) for d in new_shape]
    return x if list(shape(x)) == new_shape else prim("Reshape", {"shape": new_shape}, x)


def cast(x: Value, dt: str) -> Value:
    """``x`` converted to dtype ``dt`` (no kernel when it already has it)."""
    return x if dtype(x) == dt else prim("Cast", {"dtype": dt}, x)


def _prod(xs: Sequence[int]) -> int:
    return int(np.prod(xs, dtype=np.int64))


def _numel(v: Value) -> int:
    return _prod(shape(v))


# ---- the converter table --------------------------------------------------------------------------------

@dataclass
class Ctx:
    """What a converter knows about its node: ``op_type``, ``name``, parsed attributes, the model's
    ``opset``, the resolved schema ``version``, and the output names ("" for an omitted optional output).
    ``static`` reads a constant input; ``read_param`` is called with every Parameter read that way."""

    op_type: str
    name: str
    attrs: dict[str, Any]
    opset: int
    version: int
    outputs: list[str]
    read_param: Callable[[Tensor], None] = field(default=lambda p: None, repr=False)

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


def _allowed(key: str, allowed: Sequence[Any], default: Any) -> Check:
    """A check that attribute ``key`` is one of ``allowed``."""

    def check(ctx: Ctx) -> list[str]:
        value = ctx.attr(key, default)
        return [] if value in allowed else [f"attribute {key}={value!r} is not supported (supported: "
                                             f"{', '.join(repr(a) for a in allowed)})"]

    return check


# ---- elementwise ----------------------------------------------------------------------------------------

_UNARY = {
    "Sqrt": ("Sqrt", (6, 13)), "Exp": ("Exp", (6, 13)), "Log": ("Log", (6, 13)), "Erf": ("Erf", (9, 13)),
    "Tanh": ("Tanh", (6, 13)), "Sigmoid": ("Sigmoid", (6, 13)), "Relu": ("ReLU", (6, 13, 14)),
    "Neg": ("Neg", (6, 13)), "Abs": ("Abs", (6, 13)), "Reciprocal": ("Reciprocal", (6, 13)),
    "Floor": ("Floor", (6, 13)), "Ceil": ("Ceil", (6, 13)), "Round": ("Round", (11, 22)), "Sin": ("Sin", (7, 22)),
    "Cos": ("Cos", (7, 22)), "Softplus": ("Softplus", (1, 22)), "IsNaN": ("IsNan", (9, 13, 20)),
    "Not": ("LogicalNot", (1,)),
}
_BINARY = {
    "Add": ("Add", (7, 13, 14)), "Sub": ("Sub", (7, 13, 14)), "Mul": ("Mul", (7, 13, 14)),
    "Equal": ("Equal", (11, 13, 19)), "Less": ("Less", (9, 13)), "Greater": ("Greater", (9, 13)),
    "LessOrEqual": ("LessEqual", (12, 16)), "GreaterOrEqual": ("GreaterEqual", (12, 16)),
    "And": ("LogicalAnd", (7,)), "Or": ("LogicalOr", (7,)), "Xor": ("NotEqual", (7,)),
}


def _unary(op: str) -> Callable[..., Value]:
    return lambda ctx, x: prim(op, {}, x)


def _binary(op: str) -> Callable[..., Value]:
    return lambda ctx, a, b: prim(op, {}, a, b)


for _onnx, (_op, _versions) in _UNARY.items():
    converter(_onnx, _versions)(_unary(_op))
for _onnx, (_op, _versions) in _BINARY.items():
    converter(_onnx, _versions)(_binary(_op))


@converter("Div", (7, 13, 14))
def _div(ctx: Ctx, a: Value, b: Value) -> Value:
    if dtype(a).startswith("float"):
        return prim("RealDiv", {}, a, b)
    # Integer division truncates toward zero in ONNX (C's rule): a - a % b is an exact multiple of b
    # (Mod is C's remainder, the sign of the dividend), so flooring it divides exactly.
    return prim("FloorDiv", {}, prim("Sub", {}, a, prim("Mod", {}, a, b)), b)


@converter("Pow", (7, 12, 13, 15))
def _pow(ctx: Ctx, x: Value, y: Value) -> Value:
    known = is_const(y) or (isinstance(y, Tensor) and y._data is not None)  # a constant or an initializer
    if dtype(x).startswith("float") and known and _numel(y) == 1:
        e = float(ctx.static(y, "Y").reshape(-1)[0])
        if e in (2.0, 3.0):
            # x**2 and x**3 (tanh GELU, variance) as products: pow() of a negative base leaves libmvec's fast
            # path, 28 ns per element (GPT-2's Pow took more time than its attention); products are exact to
            # 1 ulp.
            sq = prim("Mul", {}, x, x)
            return sq if e == 2.0 else prim("Mul", {}, sq, x)
    if dtype(x).startswith("float") or not dtype(y).startswith("float"):
        return prim("Pow", {}, x, cast(y, dtype(x)))
    # An integer base with a float exponent: computed in the exponent's type, then cast back (the output
    # has the base's type).
    return cast(prim("Pow", {}, cast(x, dtype(y)), y), dtype(x))


@converter("Mod", (10, 13, 28), attrs=("fmod",))
def _mod(ctx: Ctx, a: Value, b: Value) -> Value:
    # fmod=0: the sign of the divisor (Python's %, FloorMod); fmod=1: the sign of the dividend (C's fmod).
    return prim("Mod" if ctx.attr("fmod", 0) else "FloorMod", {}, a, b)


def _variadic(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, *xs: Value) -> Value:
        out = xs[0]
        for x in xs[1:]:
            out = prim(op, {}, out, x)
        return out

    return fn


converter("Max", (8, 12, 13))(_variadic("Maximum"))
converter("Min", (8, 12, 13))(_variadic("Minimum"))
converter("Sum", (8, 13))(_variadic("Add"))


@converter("Mean", (8, 13))
def _mean(ctx: Ctx, *xs: Value) -> Value:
    total = _variadic("Add")(ctx, *xs)
    return total if len(xs) == 1 else prim("RealDiv", {}, total, const(len(xs), dtype(total)))


@converter("Identity", (1, 13, 14, 16, 19, 21, 23, 24, 25))
def _identity(ctx: Ctx, x: Value) -> Value:
    return x


@converter("Dropout", (10, 12, 13, 22), attrs=("ratio", "seed"), outputs=2, static=(2,))
def _dropout(ctx: Ctx, x: Value, ratio: Value = None, training_mode: Value = None) -> Value:
    # Inference: the identity, and a mask of ones. Training mode would need random numbers.
    if training_mode is not None and bool(ctx.static(training_mode, "training_mode")):
        raise StaticValueError(f"Dropout (ONNX node {ctx.name!r}): training_mode=True is not supported "
                               f"(inference only)")
    return (x, np.ones(shape(x), dtype=bool)) if ctx.wants(1) else x


def _limits(dt: str) -> tuple[Any, Any]:
    if dt.startswith("float"):
        return -np.inf, np.inf
    info = np.iinfo(dt)
    return info.min, info.max


@converter("Clip", (11, 12, 13))
def _clip(ctx: Ctx, x: Value, lo: Value = None, hi: Value = None) -> Value:
    if lo is None and hi is None:
        return x
    low, high = _limits(dtype(x))
    lo = const(low, dtype(x)) if lo is None else lo
    hi = const(high, dtype(x)) if hi is None else hi
    return prim("ClipByValue", {}, x, lo, hi)


def _hard_sigmoid(x: Value, alpha: float, beta: float) -> Value:
    dt = dtype(x)
    y = prim("Add", {}, prim("Mul", {}, x, const(alpha, dt)), const(beta, dt))
    return prim("ClipByValue", {}, y, const(0, dt), const(1, dt))


@converter("HardSigmoid", (6, 22), attrs=("alpha", "beta"))
def _hardsigmoid(ctx: Ctx, x: Value) -> Value:
    return _hard_sigmoid(x, ctx.attr("alpha", 0.2), ctx.attr("beta", 0.5))


@converter("HardSwish", (14, 22))
def _hardswish(ctx: Ctx, x: Value) -> Value:
    return prim("Mul", {}, x, _hard_sigmoid(x, 1 / 6, 0.5))


@converter("Gelu", (20,), attrs=("approximate",), check=_allowed("approximate", ("none", "tanh"), "none"))
def _gelu(ctx: Ctx, x: Value) -> Value:
    if ctx.attr("approximate", "none") == "none":
        return prim("GeLU", {}, x)
    # 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
    dt = dtype(x)
    cube = prim("Mul", {}, prim("Mul", {}, x, x), x)
    inner = prim("Mul", {}, prim("Add", {}, x, prim("Mul", {}, cube, const(0.044715, dt))),
                 const(math.sqrt(2 / math.pi), dt))
    return prim("Mul", {}, prim("Mul", {}, x, const(0.5, dt)), prim("Add", {}, prim("Tanh", {}, inner),
                                                                      const(1, dt)))


@converter("LeakyRelu", (6, 16), attrs=("alpha",))
def _leaky_relu(ctx: Ctx, x: Value) -> Value:
    neg = prim("Less", {}, x, const(0, dtype(x)))
    return prim("Select", {}, neg, prim("Mul", {}, x, const(ctx.attr("alpha", 0.01), dtype(x))), x)


@converter("Where", (9, 16))
def _where(ctx: Ctx, cond: Value, x: Value, y: Value) -> Value:
    return prim("Select", {}, cond, x, y)


# ---- types ----------------------------------------------------------------------------------------------

# ONNX TensorProto element types opbuild has, by enum value.
ONNX_DTYPES = {1: "float32", 6: "int32", 7: "int64", 9: "bool", 11: "float64"}


def onnx_dtype(elem_type: int) -> str | None:
    """The opbuild dtype of an ONNX element type, or None if opbuild has none."""
    return ONNX_DTYPES.get(int(elem_type))


def _check_cast(ctx: Ctx) -> list[str]:
    to = ctx.attr("to")
    if onnx_dtype(to) is None:
        from onnx import TensorProto

        return [f"attribute to={TensorProto.DataType.Name(to)}: a dtype which opbuild does not support "
                f"(supported: FLOAT, DOUBLE, INT32, INT64, BOOL)"]
    return []


_CAST_VERSIONS = (9, 13, 19, 21, 23, 24, 25, 28)


@converter("Cast", _CAST_VERSIONS, attrs=("to", "saturate", "round_mode"), check=_check_cast)
def _cast(ctx: Ctx, x: Value) -> Value:
    return cast(x, onnx_dtype(ctx.attr("to")))


@converter("CastLike", (15, 19, 21, 23, 24, 25), attrs=("saturate", "round_mode"))
def _cast_like(ctx: Ctx, x: Value, like: Value) -> Value:
    return cast(x, dtype(like))


# ---- constants and shapes -------------------------------------------------------------------------------

_CONSTANT_ATTRS = ("value", "value_float", "value_floats", "value_int", "value_ints")


def _check_constant(ctx: Ctx) -> list[str]:
    given = [k for k in ctx.attrs if k in _CONSTANT_ATTRS]
    if len(given) != 1:
        return [f"needs exactly one of {', '.join(_CONSTANT_ATTRS)}; got {', '.join(sorted(ctx.attrs)) or 'none'}"]
    return []


@converter("Constant", (11, 12, 13, 19, 21, 23, 24, 25), attrs=_CONSTANT_ATTRS, check=_check_constant)
def _constant(ctx: Ctx) -> Value:
    (key,) = [k for k in ctx.attrs if k in _CONSTANT_ATTRS]
    value = ctx.attrs[key]
    if key in ("value_float", "value_floats"):
        return const(value, "float32")
    if key in ("value_int", "value_ints"):
        return const(value, "int64")
    return np.array(value)


@converter("Shape", (1, 13, 15, 19, 21, 23, 24, 25), attrs=("start", "end"))
def _shape(ctx: Ctx, x: Value) -> Value:
    dims = list(shape(x))
    start, end = ctx.attr("start", 0), ctx.attr("end", None)
    return const(dims[start:end], "int64")  # Python slicing clamps start/end exactly as ONNX specifies


@converter("Size", (1, 13, 19, 21, 23, 24, 25))
def _size(ctx: Ctx, x: Value) -> Value:
    return const(_prod(shape(x)), "int64")


@converter("ConstantOfShape", (9, 20, 21, 23, 24, 25), attrs=("value",), static=(0,))
def _constant_of_shape(ctx: Ctx, dims: Value) -> Value:
    value = ctx.attr("value")
    value = np.zeros(1, "float32") if value is None else np.asarray(value)
    return np.full([int(d) for d in ctx.static(dims, "input")], value.reshape(-1)[0], dtype=value.dtype)


@converter("Range", (11, 27), attrs=("stash_type",), static=(0, 1, 2))
def _range(ctx: Ctx, start: Value, limit: Value, delta: Value) -> Value:
    s, lim, d = (ctx.static(v, n) for v, n in ((start, "start"), (limit, "limit"), (delta, "delta")))
    return np.arange(s.item(), lim.item(), d.item()).astype(s.dtype)  # as ONNX's reference computes it


# ---- shape and data movement ----------------------------------------------------------------------------

@converter("Reshape", (5, 13, 14, 19, 21, 23, 24, 25), attrs=("allowzero",), static=(1,))
def _reshape(ctx: Ctx, x: Value, new_shape: Value) -> Value:
    dims = [int(d) for d in ctx.static(new_shape, "shape")]
    if not ctx.attr("allowzero", 0):  # 0 copies the input's dim
        dims = [shape(x)[i] if d == 0 else d for i, d in enumerate(dims)]
    return prim("Reshape", {"shape": dims}, x) if -1 in dims else reshape(x, dims)


@converter("Transpose", (1, 13, 21, 23, 24, 25), attrs=("perm",))
def _transpose(ctx: Ctx, x: Value) -> Value:
    rank = len(shape(x))
    perm = ctx.attr("perm", list(range(rank))[::-1])
    return x if list(perm) == list(range(rank)) else prim("Transpose", {"perm": list(perm)}, x)


@converter("Flatten", (11, 13, 21, 23, 24, 25), attrs=("axis",))
def _flatten(ctx: Ctx, x: Value) -> Value:
    dims = shape(x)
    axis = int(ctx.attr("axis", 1))
    if not -len(dims) <= axis <= len(dims):
        raise StaticValueError(f"Flatten (ONNX node {ctx.name!r}): axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis
    return reshape(x, [_prod(dims[:axis]), _prod(dims[axis:])])


@converter("Squeeze", (11, 13, 21, 23, 24, 25), attrs=("axes",), static=(1,))
def _squeeze(ctx: Ctx, x: Value, axes: Value = None) -> Value:
    dims = shape(x)
    if ctx.version < 13 and ctx.attr("axes") is not None:  # Squeeze-11: an attribute
        axes = const(ctx.attr("axes"), "int64")
    if axes is None:
        drop = {d for d, n in enumerate(dims) if n == 1}
    else:
        drop = {ctx.axis(a, len(dims), "axes") for a in ctx.static(axes, "axes").reshape(-1)}
        bad = [a for a in sorted(drop) if dims[a] != 1]
        if bad:
            raise StaticValueError(f"Squeeze (ONNX node {ctx.name!r}): axis {bad[0]} has size {dims[bad[0]]}, not 1 "
                                   f"(input shape {list(dims)})")
    return reshape(x, [n for d, n in enumerate(dims) if d not in drop])


@converter("Unsqueeze", (11, 13, 21, 23, 24, 25), attrs=("axes",), static=(1,))
def _unsqueeze(ctx: Ctx, x: Value, axes: Value = None) -> Value:
    if ctx.version < 13:  # Unsqueeze-11: an attribute
        axes = const(ctx.attr("axes", []), "int64")
    dims = list(shape(x))
    rank = len(dims) + ctx.static(axes, "axes").size
    new = sorted(ctx.axis(a, rank, "axes") for a in ctx.static(axes, "axes").reshape(-1))
    for a in new:
        dims.insert(a, 1)
    return reshape(x, dims)


@converter("Concat", (11, 13), attrs=("axis",))
def _concat(ctx: Ctx, *xs: Value) -> Value:
    return xs[0] if len(xs) == 1 else prim("Concat", {"axis": int(ctx.attr("axis"))}, *xs)


@converter("Split", (11, 13, 18), attrs=("axis", "num_outputs", "split"), outputs=1 << 30, static=(1,))
def _split(ctx: Ctx, x: Value, split: Value = None) -> Value:
    dims = shape(x)
    if ctx.version < 13 and ctx.attr("split") is not None:  # Split-11: an attribute
        split = const(ctx.attr("split"), "int64")
    axis = ctx.axis(ctx.attr("axis", 0), len(dims))
    n = len(ctx.outputs)
    if split is not None:
        sizes = [int(s) for s in ctx.static(split, "split")]
    elif ctx.attr("num_outputs") is not None:  # opset 18: the last chunk may be smaller
        n = int(ctx.attr("num_outputs"))
        chunk = -(-dims[axis] // n)
        sizes = [chunk] * (n - 1) + [dims[axis] - chunk * (n - 1)]
    else:
        sizes = [dims[axis] // n] * n
    if sum(sizes) != dims[axis] or min(sizes) < 0:
        raise StaticValueError(f"Split (ONNX node {ctx.name!r}): sizes {sizes} do not split axis {axis} of size "
                               f"{dims[axis]}")
    if len(sizes) > 1 and len(set(sizes)) == 1:
        return prim("Split", {"axis": axis, "output_num": len(sizes)}, x)
    outs, begin = [], 0
    for s in sizes:
        b, size = [0] * len(dims), list(dims)
        b[axis], size[axis] = begin, s
        outs.append(prim("Slice", {"begin": b, "size": size}, x))
        begin += s
    return tuple(outs)


@converter("Slice", (11, 13), static=(1, 2, 3, 4))
def _slice(ctx: Ctx, x: Value, starts: Value, ends: Value, axes: Value = None, steps: Value = None) -> Value:
    dims = shape(x)
    starts, ends = ctx.static(starts, "starts").reshape(-1), ctx.static(ends, "ends").reshape(-1)
    axes = range(len(starts)) if axes is None else ctx.static(axes, "axes").reshape(-1)
    steps = [1] * len(starts) if steps is None else ctx.static(steps, "steps").reshape(-1)
    begin, end, stride = [0] * len(dims), list(dims), [1] * len(dims)
    for s, e, a, st in zip(starts, ends, axes, steps, strict=True):
        a = ctx.axis(a, len(dims), "axes")
        if st == 0:
            raise StaticValueError(f"Slice (ONNX node {ctx.name!r}): step 0 on axis {a}")
        # ONNX's clamping of starts/ends is Python's slice.indices, which StridedSlice applies.
        begin[a], end[a], stride[a] = int(s), int(e), int(st)
    if all(len(range(*slice(b, e, s).indices(n))) == n and s == 1
           for b, e, s, n in zip(begin, end, stride, dims)):
        return x
    return prim("StridedSlice", {"begin": begin, "end": end, "strides": stride}, x)


@converter("Expand", (8, 13), static=(1,))
def _expand(ctx: Ctx, x: Value, new_shape: Value) -> Value:
    target = [int(d) for d in ctx.static(new_shape, "shape")]
    try:  # bidirectional: a 1 in the target keeps the input's dim
        out = [int(d) for d in np.broadcast_shapes(shape(x), tuple(target))]
    except ValueError:
        raise StaticValueError(f"Expand (ONNX node {ctx.name!r}): input shape {list(shape(x))} cannot be expanded "
                               f"to {target}") from None
    return x if out == list(shape(x)) else prim("BroadcastTo", {"shape": out}, x)


@converter("Tile", (6, 13), static=(1,))
def _tile(ctx: Ctx, x: Value, repeats: Value) -> Value:
    return prim("Tile", {"multiples": [int(r) for r in ctx.static(repeats, "repeats")]}, x)


_PAD_MODES = ("constant", "reflect", "edge", "wrap")


def _check_pad(ctx: Ctx) -> list[str]:
    return _allowed("mode", _PAD_MODES, "constant")(ctx)


@converter("Pad", (11, 13, 18, 19, 21, 23, 24, 25), attrs=("mode",), check=_check_pad, static=(1, 3))
def _pad(ctx: Ctx, x: Value, pads: Value, value: Value = None, axes: Value = None) -> Value:
    dims = shape(x)
    pads = [int(p) for p in ctx.static(pads, "pads")]
    axes = range(len(dims)) if axes is None else [ctx.axis(a, len(dims), "axes")
                                                  for a in ctx.static(axes, "axes").reshape(-1)]
    before, after = [0] * len(dims), [0] * len(dims)
    for i, a in enumerate(axes):
        before[a], after[a] = pads[i], pads[i + len(axes)]
    # Negative pads crop: a slice first, then zero padding of what is left.
    if min(before + after) < 0:
        x = prim("StridedSlice", {"begin": [-min(b, 0) for b in before],
                                  "end": [n + min(a, 0) for n, a in zip(dims, after, strict=True)],
                                  "strides": [1] * len(dims)}, x)
    widths = [[max(b, 0), max(a, 0)] for b, a in zip(before, after, strict=True)]
    if not any(b or a for b, a in widths):
        return x
    mode = ctx.attr("mode", "constant")
    if mode != "constant":
        # reflect / edge / wrap copy input elements: a Gather along each padded axis, with the source index
        # of every output position computed by NumPy's pad of the positions (the same definitions).
        for a, (b, e) in enumerate(widths):
            if b or e:
                idx = np.pad(np.arange(shape(x)[a], dtype=np.int64), (b, e), mode=mode)
                x = prim("Gather", {"axis": a}, x, idx)
        return x
    padded = prim("Pad", {"paddings": widths}, x)
    if value is None or (is_const(value) and not np.any(value)):
        return padded
    # A non-zero value: select it on the border (the mask is a constant), so inside values stay exact.
    return prim("Select", {}, _border(shape(x), widths), reshape(value, []), padded)


# ---- gathers --------------------------------------------------------------------------------------------

def _wrap_negative(idx: Value, n: Value) -> Value:
    """Indices in [-n, n) made non-negative (n a scalar or an array broadcast against the indices)."""
    if is_const(idx):
        return np.where(idx < 0, idx + n, idx).astype(idx.dtype)
    dt = dtype(idx)
    return prim("Select", {}, prim("Less", {}, idx, const(0, dt)), prim("Add", {}, idx, const(n, dt)), idx)


@converter("Gather", (11, 13), attrs=("axis",))
def _gather(ctx: Ctx, data: Value, idx: Value) -> Value:
    axis = ctx.axis(ctx.attr("axis", 0), len(shape(data)))
    return prim("Gather", {"axis": axis}, data, _wrap_negative(idx, shape(data)[axis]))


@converter("GatherElements", (11, 13), attrs=("axis",))
def _gather_elements(ctx: Ctx, data: Value, idx: Value) -> Value:
    return prim("GatherD", {"dim": ctx.axis(ctx.attr("axis", 0), len(shape(data)))}, data, idx)


@converter("GatherND", (11, 12, 13), attrs=("batch_dims",))
def _gather_nd(ctx: Ctx, data: Value, idx: Value) -> Value:
    # Flatten the k indexed dims of data (after the batch dims) into one, turn each index tuple into a
    # flat offset (a dot product with the row-major strides), add each batch's base offset, and Gather.
    d, i = shape(data), shape(idx)
    b, k = int(ctx.attr("batch_dims", 0)), i[-1]
    if not 0 < k <= len(d) - b or d[:b] != i[:b]:
        raise StaticValueError(f"GatherND (ONNX node {ctx.name!r}): indices shape {list(i)} does not index data "
                               f"shape {list(d)} with batch_dims={b}")
    dt = dtype(idx)
    indexed = d[b:b + k]
    strides = [_prod(indexed[j + 1:]) for j in range(k)]
    flat = prim("ReduceSum", {"axis": [len(i) - 1], "keep_dims": False},
                prim("Mul", {}, _wrap_negative(idx, const(indexed, dt)), const(strides, dt)))
    n_batch = _prod(d[:b])
    if n_batch > 1:
        base = (np.arange(n_batch, dtype=dt) * _prod(indexed)).reshape(d[:b] + (1,) * (len(i) - b - 1))
        flat = prim("Add", {}, flat, base)
    table = reshape(data, [n_batch * _prod(indexed), *d[b + k:]])
    return prim("Gather", {"axis": 0}, table, flat)


# ---- matrix products, convolution, pooling --------------------------------------------------------------

@converter("MatMul", (9, 13))
def _matmul(ctx: Ctx, a: Value, b: Value) -> Value:
    return prim("BatchMatMul", {}, a, b)


@converter("Gemm", (11, 13), attrs=("alpha", "beta", "transA", "transB"))
def _gemm(ctx: Ctx, a: Value, b: Value, c: Value = None) -> Value:
    dt = dtype(a)
    y = prim("MatMul", {"transpose_a": bool(ctx.attr("transA", 0)), "transpose_b": bool(ctx.attr("transB", 0))},
             a, b)
    alpha, beta = ctx.attr("alpha", 1.0), ctx.attr("beta", 1.0)
    if alpha != 1:
        y = prim("Mul", {}, y, const(alpha, dt))
    if c is not None and beta != 0:
        y = prim("Add", {}, y, c if beta == 1 else prim("Mul", {}, c, const(beta, dt)))
    return y


def _spatial_pads(ctx: Ctx, sizes: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                  dilations: Sequence[int]) -> tuple[list[int], list[int]]:
    """(begin pads, end pads) per spatial dim from ``auto_pad`` / ``pads``."""
    n = len(sizes)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = list(ctx.attr("pads", [0] * 2 * n))
        return pads[:n], pads[n:]
    if auto == "VALID":
        return [0] * n, [0] * n
    begin, end = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
        total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
        small, big = total // 2, total - total // 2
        begin.append(small if auto == "SAME_UPPER" else big)  # SAME_UPPER puts the odd pixel at the end
        end.append(big if auto == "SAME_UPPER" else small)
    return begin, end


_AUTO_PAD = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")


def _check_spatial(ctx: Ctx, dilations: bool = True) -> list[str]:
    problems = _allowed("auto_pad", _AUTO_PAD, "NOTSET")(ctx)
    kernel = ctx.attr("kernel_shape")
    if kernel is not None and len(kernel) not in (1, 2):
        problems.append(f"{len(kernel)}-D kernels are not supported (1-D and 2-D only)")
    if not dilations and any(d != 1 for d in ctx.attr("dilations", [])):
        problems.append(f"attribute dilations={ctx.attr('dilations')} is not supported (only 1)")
    return problems


def _as_2d(x: Value, what: str, ctx: Ctx) -> tuple[Value, bool]:
    """A 1-D (N, C, L) operand as (N, C, 1, L); 2-D ones unchanged; ``True`` if it was 1-D."""
    rank = len(shape(x))
    if rank == 3:
        n, c, length = shape(x)
        return reshape(x, [n, c, 1, length]), True
    if rank != 4:
        raise StaticValueError(f"{ctx.op_type} (ONNX node {ctx.name!r}): {what} has rank {rank}; only 1-D and 2-D "
                               f"{ctx.op_type} (rank 3 or 4 inputs) are supported")
    return x, False


@converter("Conv", (1, 11, 22), attrs=("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"),
           check=_check_spatial)
def _conv(ctx: Ctx, x: Value, w: Value, bias: Value = None) -> Value:
    x4, one_d = _as_2d(x, "the input", ctx)
    w4, _ = _as_2d(w, "the weight", ctx)
    n = 1 if one_d else 2
    kernel = list(shape(w4)[2:])
    strides = list(ctx.attr("strides", [1] * n))
    dil = list(ctx.attr("dilations", [1] * n))
    begin, end = _spatial_pads(ctx, shape(x)[2:], kernel[-n:], strides, dil)
    if one_d:
        strides, dil, begin, end = [1, *strides], [1, *dil], [0, *begin], [0, *end]
    y = prim("Conv2D", {"out_channel": shape(w4)[0], "kernel_size": kernel, "pad_mode": "pad",
                        "pad": [begin[0], end[0], begin[1], end[1]], "stride": strides, "dilation": dil,
                        "group": int(ctx.attr("group", 1))}, x4, w4)
    if bias is not None:
        y = prim("BiasAdd", {"data_format": "NCHW"}, y, bias)
    return reshape(y, [*shape(y)[:2], shape(y)[3]]) if one_d else y


def _pool(op: str, ctx: Ctx, x: Value) -> Value:
    x4, one_d = _as_2d(x, "the input", ctx)
    kernel = list(ctx.attr("kernel_shape"))
    n = len(kernel)
    strides = list(ctx.attr("strides", [1] * n))
    begin, end = _spatial_pads(ctx, shape(x)[2:], kernel, strides, [1] * n)
    if one_d:
        kernel, strides, begin, end = [1, *kernel], [1, *strides], [0, *begin], [0, *end]
    pads = [begin[0], end[0], begin[1], end[1]]
    attrs = {"kernel_size": kernel, "strides": strides, "pad_mode": "pad", "pad": pads,
             "ceil_mode": bool(ctx.attr("ceil_mode", 0))}
    include = bool(ctx.attr("count_include_pad", 0))
    if op == "AvgPool":
        attrs["count_include_pad"] = include
    if all(p <= k // 2 for p, k in zip(pads, (kernel[0], kernel[0], kernel[1], kernel[1]), strict=True)):
        y = prim(op, attrs, x4)
    else:  # padding wider than half the kernel (the primitive's limit): pad explicitly, pool unpadded
        widths = [[0, 0], [0, 0], pads[0:2], pads[2:4]]
        attrs["pad"] = [0, 0, 0, 0]
        if op == "MaxPool":  # padding never wins a max
            padded = prim("Select", {}, _border(shape(x4), widths), const(-np.inf, dtype(x4)),
                          prim("Pad", {"paddings": widths}, x4))
            y = prim(op, attrs, padded)
        else:
            y = prim(op, attrs, prim("Pad", {"paddings": widths}, x4))
            if not include:  # divide by the real pixels of each window: the pooled mask of the input
                real = np.pad(np.ones((1, 1, *shape(x4)[2:]), dtype(x4)), widths)
                y = prim("RealDiv", {}, y, prim(op, attrs, real))
    return reshape(y, [*shape(y)[:2], shape(y)[3]]) if one_d else y


def _border(dims: Sequence[int], widths: Sequence[Sequence[int]]) -> np.ndarray:
    """Constant mask: True on the padding that ``widths`` adds around a tensor of shape ``dims``."""
    return np.pad(np.zeros(dims, dtype=bool), widths, constant_values=True)


_POOL_ATTRS = ("auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides")


def _check_pool(ctx: Ctx) -> list[str]:
    problems = _check_spatial(ctx, dilations=False)
    if ctx.attr("kernel_shape") is None:
        problems.append("attribute kernel_shape is required")
    return problems


@converter("MaxPool", (10, 11, 12, 22), attrs=(*_POOL_ATTRS, "storage_order"), check=_check_pool)
def _max_pool(ctx: Ctx, x: Value) -> Value:
    return _pool("MaxPool", ctx, x)


@converter("AveragePool", (10, 11, 19, 22), attrs=(*_POOL_ATTRS, "count_include_pad"), check=_check_pool)
def _average_pool(ctx: Ctx, x: Value) -> Value:
    return _pool("AvgPool", ctx, x)


@converter("GlobalAveragePool", (1, 22))
def _global_average_pool(ctx: Ctx, x: Value) -> Value:
    if len(shape(x)) == 4:
        return prim("GlobalAvgPool", {}, x)
    return prim("ReduceMean", {"axis": list(range(2, len(shape(x)))), "keep_dims": True}, x)


@converter("GlobalMaxPool", (1, 22))
def _global_max_pool(ctx: Ctx, x: Value) -> Value:
    return prim("ReduceMax", {"axis": list(range(2, len(shape(x)))), "keep_dims": True}, x)


# ---- normalisation --------------------------------------------------------------------------------------

@converter("BatchNormalization", (9, 14, 15), attrs=("epsilon", "momentum", "training_mode"),
           check=_allowed("training_mode", (0,), 0))
def _batch_norm(ctx: Ctx, x: Value, scale: Value, bias: Value, mean: Value, var: Value) -> Value:
    dims, dt = shape(x), dtype(x)
    x4 = x if len(dims) in (2, 4) else reshape(x, [dims[0], dims[1], _prod(dims[2:]), 1])
    params = [cast(p, dt) for p in (scale, bias, mean, var)]
    y = prim("BatchNorm", {"epsilon": float(ctx.attr("epsilon", 1e-5))}, x4, *params)
    return reshape(y, dims)


@converter("LayerNormalization", (17,), attrs=("axis", "epsilon", "stash_type"), outputs=3)
def _layer_norm(ctx: Ctx, x: Value, scale: Value, bias: Value = None) -> Value:
    dims, dt = shape(x), dtype(x)
    axis = ctx.axis(ctx.attr("axis", -1), len(dims))
    normed = list(dims[axis:])
    eps = float(ctx.attr("epsilon", 1e-5))
    # Scale and bias broadcast to the normalised shape (ONNX allows shapes such as (1, W) for (H, W)).
    scale = scale if list(shape(scale)) == normed else prim("BroadcastTo", {"shape": normed}, scale)
    if bias is None:
        bias = np.zeros(normed, dtype=dt)
    elif list(shape(bias)) != normed:
        bias = prim("BroadcastTo", {"shape": normed}, bias)
    y, mean, var = prim("LayerNorm", {"begin_norm_axis": axis, "begin_params_axis": axis, "epsilon": eps},
                        x, scale, bias)
    outs = [y]
    if ctx.wants(1) or ctx.wants(2):
        outs.append(mean)
    if ctx.wants(2):
        outs.append(prim("Rsqrt", {}, prim("Add", {}, var, const(eps, dt))))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _softmax(op: str) -> Callable[..., Value]:
    return lambda ctx, x: prim(op, {"axis": ctx.axis(ctx.attr("axis", -1), len(shape(x)))}, x)


converter("Softmax", (13,), attrs=("axis",))(_softmax("Softmax"))
converter("LogSoftmax", (13,), attrs=("axis",))(_softmax("LogSoftmax"))


# ---- reductions -----------------------------------------------------------------------------------------

def _reduce(op: str, axes_input_since: int) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value, axes: Value = None) -> Value:
        rank = len(shape(x))
        if ctx.version < axes_input_since:
            axes = ctx.attr("axes")
        elif axes is not None:
            axes = ctx.static(axes, "axes").reshape(-1).tolist()
        if not axes:
            if ctx.attr("noop_with_empty_axes", 0):
                return x
            axes = list(range(rank))
        axes = sorted({ctx.axis(a, rank, "axes") for a in axes})
        keep = bool(ctx.attr("keepdims", 1))
        dims, dt = shape(x), dtype(x)
        if op in _EMPTY and any(dims[a] == 0 for a in axes):  # ONNX defines these: the reduction's identity
            out = [1 if d in axes else n for d, n in enumerate(dims) if keep or d not in axes]
            return np.full(out, _EMPTY[op](dt), dtype=dt)
        if dt == "bool" and op in _EMPTY:  # max = any, min = all: reduce 0/1 integers
            return cast(prim(op, {"axis": axes, "keep_dims": keep}, cast(x, "int32")), "bool")
        return prim(op, {"axis": axes, "keep_dims": keep}, x)

    return fn


_REDUCE_ATTRS = ("axes", "keepdims", "noop_with_empty_axes")
# Max/min of nothing: the identity of the reduction (ReduceMax-18+ defines it), by dtype.
_EMPTY: dict[str, Callable[[str], Any]] = {
    "ReduceMax": lambda dt: False if dt == "bool" else _limits(dt)[0],
    "ReduceMin": lambda dt: True if dt == "bool" else _limits(dt)[1],
}
converter("ReduceSum", (11, 13), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceSum", 13))
converter("ReduceMean", (11, 13, 18), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMean", 18))
converter("ReduceMax", (11, 12, 13, 18, 20), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMax", 18))
converter("ReduceMin", (11, 12, 13, 18, 20), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceMin", 18))
converter("ReduceProd", (11, 13, 18), attrs=_REDUCE_ATTRS, static=(1,))(_reduce("ReduceProd", 18))


def _arg(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, x: Value) -> Value:
        dims = shape(x)
        axis = ctx.axis(ctx.attr("axis", 0), len(dims))
        last = bool(ctx.attr("select_last_index", 0))
        if last:  # the last extremum is the first one of the reversed axis
            begin, end, step = [0] * len(dims), list(dims), [1] * len(dims)
            begin[axis], end[axis], step[axis] = dims[axis] - 1, -dims[axis] - 1, -1
            x = prim("StridedSlice", {"begin": begin, "end": end, "strides": step}, x)
        y = prim(op, {"axis": axis, "output_type": "int64"}, x)
        if last:
            y = prim("Sub", {}, const(dims[axis] - 1, "int64"), y)
        if ctx.attr("keepdims", 1):
            y = reshape(y, [1 if d == axis else n for d, n in enumerate(dims)])
        return y

    return fn


converter("ArgMax", (11, 12, 13), attrs=("axis", "keepdims", "select_last_index"))(_arg("ArgMax"))
converter("ArgMin", (11, 12, 13), attrs=("axis", "keepdims", "select_last_index"))(_arg("ArgMin"))
