"""MINDIR primitives -> opbuild: the function each MindSpore primitive of a MINDIR graph runs as.

MindSpore writes two kinds of primitive (``PrimitiveProto.prim_type``):

- *primitives* carry their constructor's attributes in the file (``Conv2D`` with ``out_channel``,
  ``kernel_size``, ``pad_mode``, ...): opbuild's class of the same name in ``ops.operations`` is constructed
  from the attributes its constructor takes (``format`` is its ``data_format``);
- *primitive functions* (MindSpore 2.x's generated operators) take their constructor arguments as trailing
  constant inputs (``MatMul(x, w, transpose_a, transpose_b)``, ``BiasAdd(x, b, data_format)``), enumerations as
  MindSpore's enum numbers (formats, pad modes, reductions). :data:`_SPEC` says how many inputs are tensors and
  names the constructor arguments after them; a primitive function missing from it maps when opbuild's class
  takes no constructor arguments (``ReLU``, ``Add``, ``Erf``), and the functional operators without a
  primitive class (``MatMulExt``, ``SumExt``, ``Muls``) have their own function in :data:`_FUNCTIONS`.

The graph's bookkeeping nodes (``Load``, ``Depend``, ``UpdateState`` with monads, ``MakeTuple``,
``TupleGetItem``, ``Switch``, ``Partial``) are plain Python here: in GRAPH_MODE a ``Switch`` on a tensor
condition is a graph break (core/graph_breaks.py), as ``if`` on a tensor is in a Cell's ``construct``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..core import dtypes
from ..ops import operations as P


class _Monad:
    """MindSpore's side-effect token (U/IO monads): passed along, never computed with."""

    def __repr__(self) -> str:
        return "MONAD"


MONAD = _Monad()

# MindSpore's enum numbers for string arguments of primitive functions (read from MindSpore 2.10's
# str_to_enum: formats, pad modes, reductions).
_ENUMS = {
    "data_format": {0: "NCHW", 1: "NHWC", 14: "NCDHW", 58: "NCL"},
    "pad_mode": {0: "pad", 1: "same", 2: "valid"},
    "reduction": {0: "sum", 1: "mean", 2: "none"},
}
# MindSpore's type ids (dtype arguments: Cast's dtype, Argmax's output_type), from its dtype_to_type_id.
TYPE_IDS = {30: "bool_", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 37: "uint8", 38: "uint16",
             39: "uint32", 40: "uint64", 42: "float16", 43: "float32", 44: "float64", 45: "bfloat16",
             51: "complex64", 52: "complex128"}

# primitive function -> (number of leading tensor inputs, the constructor arguments that follow them).
_SPEC: dict[str, tuple[int, tuple[str, ...]]] = {
    "MatMul": (2, ("transpose_a", "transpose_b")),
    "BatchMatMul": (2, ("transpose_a", "transpose_b")),
    "BiasAdd": (2, ("data_format",)),
    "BatchNorm": (5, ("is_training", "epsilon", "momentum", "data_format")),
    "AvgPool": (1, ("kernel_size", "strides", "pad_mode", "data_format")),
    "MaxPool": (1, ("kernel_size", "strides", "pad_mode", "data_format")),
    "Softmax": (1, ("axis",)),
    "LogSoftmax": (1, ("axis",)),
    "LayerNorm": (3, ("begin_norm_axis", "begin_params_axis", "epsilon")),
    "ReduceMean": (2, ("keep_dims",)),
    "ReduceSum": (2, ("keep_dims", "skip_mode")),
    "ReduceMax": (2, ("keep_dims",)),
    "ReduceMin": (2, ("keep_dims",)),
    "ReduceProd": (2, ("keep_dims",)),
    "StridedSlice": (4, ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")),
    "Concat": (1, ("axis",)),
    "Reshape": (2, ()),
    "Transpose": (2, ()),
    "ExpandDims": (2, ()),
    "Squeeze": (1, ("axis",)),
    "Gather": (3, ("batch_dims",)),
    "Flatten": (1, ()),
    "GeLU": (1, ()),
    "ResizeNearestNeighbor": (1, ("size", "align_corners", "half_pixel_centers")),
    "ResizeBilinearV2": (2, ("align_corners", "half_pixel_centers")),
    "Split": (1, ("axis", "output_num")),
    "Unstack": (1, ("axis", "num")),
    "Argmax": (1, ("axis", "output_type")),
    "Argmin": (1, ("axis", "output_type")),
}


def _reduce(cls: type) -> Callable[..., Any]:
    """SumExt/MeanExt-style (x, dim, keepdim, dtype): the dtype argument must be None (no cast)."""
    def run(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        if dtype is not None:
            raise NotImplementedError(f"{cls.__name__} with a dtype argument in a MINDIR graph")
        axis = () if dim is None else dim
        return cls(keep_dims=bool(keepdim))(x, axis)
    return run


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "MatMulExt": lambda a, b: P.MatMul()(a, b) if a.ndim == 2 and b.ndim == 2 else P.BatchMatMul()(a, b),
    "BatchMatMulExt": lambda a, b: P.BatchMatMul()(a, b),
    "Muls": lambda x, s: x * s,
    "AddExt": lambda x, y, alpha=1: x + (y if alpha == 1 else y * alpha),
    "SubExt": lambda x, y, alpha=1: x - (y if alpha == 1 else y * alpha),
    "SumExt": _reduce(P.ReduceSum),
    "MeanExt": _reduce(P.ReduceMean),
    "Contiguous": lambda x: x,
    "Divs": lambda x, s: x / s,
    "LessScalar": lambda x, s: x < s,
    "GreaterEqualScalar": lambda x, s: x >= s,
    "EqScalar": lambda x, s: x == s,
    "PowTensorScalar": lambda x, s: x**s,
    "AddScalar": lambda x, s, alpha=1: x + _scaled(s, alpha),
    "SubScalar": lambda x, s, alpha=1: x - _scaled(s, alpha),
    "ClampScalar": lambda x, low=None, high=None: _clamp(x, low, high),
    "ClampTensor": lambda x, low=None, high=None: _clamp(x, low, high),
    "Cast": lambda x, t: P.Cast()(x, _dtype(t)),
    "SiLU": lambda x: x * P.Sigmoid()(x),
    "Gather": lambda x, i, axis, batch_dims=0: _gather(x, i, axis, batch_dims),
}


def _gather(x: Any, indices: Any, axis: int, batch_dims: int) -> Any:
    if batch_dims:
        raise NotImplementedError("Gather with batch_dims in a MINDIR graph")
    return P.Gather()(x, indices, axis)

def _scaled(y: Any, alpha: Any) -> Any:
    return y if alpha == 1 else y * alpha


def _keep(x: Any, r: Any) -> Any:
    """An in-place result keeps the destination's dtype (``x += 0.5`` on an int tensor stays int)."""
    return r if r.dtype == x.dtype else P.Cast()(r, x.dtype)


def _copy(x: Any, src: Any, non_blocking: bool = False) -> Any:
    src = src if hasattr(src, "dtype") else x * 0 + src
    return _keep(x, P.BroadcastTo(tuple(x.shape))(src) if tuple(src.shape) != tuple(x.shape) else src)


def _clamp(x: Any, low: Any = None, high: Any = None) -> Any:
    r = x if low is None else P.Maximum()(x, low)
    return _keep(x, r if high is None else P.Minimum()(r, high))


# MindSpore's in-place primitives (``x += y`` in a construct): each computes the new value of its first input;
# mindir.py rebinds that input's name to it, as the later Loads of the mutated tensor read it.
INPLACE: dict[str, Callable[..., Any]] = {
    "InplaceAddExt": lambda x, y, alpha=1: _keep(x, x + _scaled(y, alpha)),
    "InplaceAddsExt": lambda x, y, alpha=1: _keep(x, x + _scaled(y, alpha)),
    "InplaceSubExt": lambda x, y, alpha=1: _keep(x, x - _scaled(y, alpha)),
    "InplaceSubScalar": lambda x, y, alpha=1: _keep(x, x - _scaled(y, alpha)),
    "InplaceMul": lambda x, y: _keep(x, x * y),
    "InplaceMuls": lambda x, y: _keep(x, x * y),
    "InplaceDiv": lambda x, y: _keep(x, x / y),
    "InplaceDivs": lambda x, y: _keep(x, x / y),
    "InplaceReLU": lambda x: P.ReLU()(x),
    "InplaceSigmoid": lambda x: P.Sigmoid()(x),
    "InplaceSiLU": lambda x: x * P.Sigmoid()(x),
    "InplaceTanh": lambda x: P.Tanh()(x),
    "InplaceExp": lambda x: P.Exp()(x),
    "InplaceLog": lambda x: P.Log()(x),
    "InplaceFloor": lambda x: P.Floor()(x),
    "InplaceZero": lambda x: P.ZerosLike()(x),
    "InplaceFillScalar": lambda x, v: _copy(x, v),
    "InplaceFillTensor": lambda x, v: _copy(x, v),
    "InplaceCopy": _copy,
    "InplaceClampScalar": _clamp,
    "InplaceClampTensor": _clamp,
}

# Python-scalar arithmetic of the graph (a loop counter ``i += 1``, a shape computation): plain Python here.
_SCALAR: dict[str, Callable[..., Any]] = {
    "ScalarAdd": lambda a, b: a + b, "ScalarSub": lambda a, b: a - b, "ScalarMul": lambda a, b: a * b,
    "ScalarDiv": lambda a, b: a / b, "ScalarFloorDiv": lambda a, b: a // b, "ScalarMod": lambda a, b: a % b,
    "ScalarPow": lambda a, b: a**b, "ScalarEq": lambda a, b: a == b, "ScalarLt": lambda a, b: a < b,
    "ScalarGt": lambda a, b: a > b, "ScalarLe": lambda a, b: a <= b, "ScalarGe": lambda a, b: a >= b,
    "ScalarUadd": lambda a: +a, "ScalarUsub": lambda a: -a, "ScalarBool": lambda a: bool(a),
    "BoolNot": lambda a: not a,
}

_PARTIAL: list[Callable[..., Any]] = []


def _truth(cond: Any) -> bool:
    # bool() of a traced tensor is where GRAPH_MODE breaks the graph and evaluates the condition.
    return bool(cond)


_STRUCTURAL: dict[str, Callable[..., Any]] = {
    "Load": lambda x, *_: x,
    "Depend": lambda x, *_: x,
    "UpdateState": lambda *_: MONAD,
    "MakeTuple": lambda *xs: tuple(xs),
    "MakeList": lambda *xs: list(xs),
    "TupleGetItem": lambda t, i: t[i],
    "ListGetItem": lambda t, i: t[i],
    "RealTupleGetItem": lambda t, i: t[i],
    "Switch": lambda c, a, b: a if _truth(c) else b,
    "Partial": lambda fn, *args: _PARTIAL[0](fn, *args),
}


def register_partial(fn: Callable[..., Any]) -> None:
    """mindir.py's binding of a graph's first arguments (its closures live there)."""
    _PARTIAL[:] = [fn]


def _init_params(cls: type) -> list[str]:
    sig = inspect.signature(cls.__init__)
    return [p.name for p in list(sig.parameters.values())[1:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "name"]


def _dtype(type_id: Any) -> Any:
    if isinstance(type_id, int) and type_id in TYPE_IDS:
        return getattr(dtypes, TYPE_IDS[type_id])
    return type_id


def _enum(name: str, value: Any) -> Any:
    if name in ("dtype", "output_type"):
        return _dtype(value)
    table = _ENUMS.get(name)
    if table is not None and isinstance(value, int) and not isinstance(value, bool):
        return table.get(value, value)
    return value


def _drop_monads(xs: tuple) -> list:
    return [x for x in xs if x is not MONAD]


def _from_attrs(cls: type, attrs: dict[str, Any]) -> Callable[..., Any]:
    kwargs = {}
    for p in _init_params(cls):
        if p in attrs:
            kwargs[p] = attrs[p]
        elif p == "data_format" and "format" in attrs:
            kwargs[p] = attrs["format"]
    prim = cls(**kwargs)
    return lambda *xs: prim(*_drop_monads(xs))


def _from_inputs(cls: type, n: int, names: tuple[str, ...]) -> Callable[..., Any]:
    made: dict[tuple, Any] = {}  # one primitive per distinct constructor arguments (constants of the graph)
    accepted = set(_init_params(cls))

    def run(*xs: Any) -> Any:
        xs = tuple(_drop_monads(xs))
        init = tuple(_enum(k, v) for k, v in zip(names, xs[n:]))
        key = tuple(repr(v) for v in init)
        if key not in made:
            kwargs = dict(zip(names, init))
            for k in set(kwargs) - accepted:  # e.g. ReduceSum's skip_mode: only its default has a meaning here
                if kwargs.pop(k) not in (False, 0, None):
                    raise NotImplementedError(f"{cls.__name__} with {k}={init[names.index(k)]!r} in a MINDIR graph")
            made[key] = cls(**kwargs)
        return made[key](*xs[:n])
    return run


def lookup(op: str, attrs: dict[str, Any], function: bool) -> Callable[..., Any] | str:
    """The function running MindSpore primitive ``op`` (with its file attributes ``attrs``; ``function``: a
    primitive function taking its constructor arguments as inputs), or the reason opbuild does not map it."""
    if op in _STRUCTURAL:
        return _STRUCTURAL[op]
    if op in _FUNCTIONS or op in INPLACE or op in _SCALAR:
        fn = _FUNCTIONS.get(op) or INPLACE.get(op) or _SCALAR[op]
        return lambda *xs: fn(*_drop_monads(xs))
    cls = getattr(P, op, None)
    if not isinstance(cls, type):
        return "opbuild has no primitive of this name"
    if not function:
        try:
            return _from_attrs(cls, attrs)
        except (TypeError, ValueError) as e:
            return f"its attributes {attrs} are not accepted by opbuild's {op}: {e}"
    if op in _SPEC:
        return _from_inputs(cls, *_SPEC[op])
    if not _init_params(cls):
        return lambda *xs: cls()(*_drop_monads(xs))
    return ("a primitive function whose constructor arguments opbuild does not know how to read from the "
            "graph's inputs")


def supported() -> list[str]:
    """The primitive names mapped explicitly (attribute-free primitives of ops.operations map too)."""
    return sorted({*_STRUCTURAL, *_FUNCTIONS, *_SPEC, *INPLACE, *_SCALAR})


__all__ = ["INPLACE", "TYPE_IDS", "MONAD", "lookup", "register_partial", "supported"]
