"""Older and deprecated names ``mindspore.ops`` still exports, which model zoos written for MindSpore 1.x-2.x
call: the primitive-instance aliases of ``ops.functional`` (``tensor_add`` ... ``tensor_lt``, ``floordiv``,
``floormod``, ``pows``, ``reduce_sum``/``mean``/``max``/``min``, ``tensor_slice``, ``tensor_range``, ``shape_``,
``reshape_``, ``identity``), the deprecated functions (``multiply``, ``row_stack``, ``log_matrix_determinant``,
``expand``, ``reverse``, ``top_k``, ``accumulate_n``, ``fills``, ``gamma``, ``poisson``) and ``expand_as``,
``addbmm``, ``quantile``/``nanquantile``, ``mixed_precision_cast``. Each composes registered primitives (or the
functional API), so it traces in GRAPH_MODE and differentiates like its parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import quantiles
from .aliases import slice as _slice
from .array import broadcast_to
from .base import binary
from .linalg import slogdet
from .math_misc import addn
from .math_more import topk
from .misc_names import deepcopy
from .random_ext import _state, gamma_draw, poisson_draw
from .stacking import vstack
from .tensor_math import flip

__all__ = ["tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_pow", "tensor_mod", "tensor_floordiv",
           "floordiv", "floormod", "pows", "tensor_ge", "tensor_gt", "tensor_le", "tensor_lt", "tensor_exp",
           "tensor_expm1", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "tensor_slice", "tensor_range",
           "shape_", "reshape_", "identity", "multiply", "row_stack", "log_matrix_determinant", "expand",
           "expand_as", "reverse", "top_k", "accumulate_n", "fills", "gamma", "poisson", "addbmm", "quantile",
           "nanquantile", "mixed_precision_cast"]


def _binary(name: str, prim: str) -> Any:
    def op(x, y) -> Tensor:
        return binary(prim, x, y)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``ops.{name}(x, y)``: MindSpore's ``{prim}`` primitive (broadcasting, MindSpore's promotion)."
    return op


tensor_add = _binary("tensor_add", "Add")
tensor_sub = _binary("tensor_sub", "Sub")
tensor_mul = _binary("tensor_mul", "Mul")
tensor_div = _binary("tensor_div", "RealDiv")
tensor_pow = _binary("tensor_pow", "Pow")
pows = _binary("pows", "Pow")
tensor_mod = _binary("tensor_mod", "FloorMod")
floormod = _binary("floormod", "FloorMod")
tensor_floordiv = _binary("tensor_floordiv", "FloorDiv")
floordiv = _binary("floordiv", "FloorDiv")
tensor_ge = _binary("tensor_ge", "GreaterEqual")
tensor_gt = _binary("tensor_gt", "Greater")
tensor_le = _binary("tensor_le", "LessEqual")
tensor_lt = _binary("tensor_lt", "Less")
multiply = _binary("multiply", "Mul")


def tensor_exp(x) -> Tensor:
    """``ops.tensor_exp(x)``: ``e ** x``."""
    return apply("Exp", {}, [as_tensor(x)])


def tensor_expm1(x) -> Tensor:
    """``ops.tensor_expm1(x)``: ``e ** x - 1``."""
    return apply("Expm1", {}, [as_tensor(x)])


def _reduce(name: str, prim: str) -> Any:
    def op(x, axis: int | Sequence[int] = ()) -> Tensor:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        return apply(prim, {"axis": axes, "keep_dims": False}, [as_tensor(x)])
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``ops.{name}(x, axis=())``: MindSpore's ``{prim}()`` instance: reduce ``axis`` (``()``: every "
                  "axis) without keeping the reduced dimensions.")
    return op


reduce_sum = _reduce("reduce_sum", "ReduceSum")
reduce_mean = _reduce("reduce_mean", "ReduceMean")
reduce_max = _reduce("reduce_max", "ReduceMax")
reduce_min = _reduce("reduce_min", "ReduceMin")


def tensor_slice(input, begin: Sequence[int], size: Sequence[int]) -> Tensor:  # noqa: A002
    """``ops.tensor_slice(input, begin, size)``: ``ops.slice`` (``size[i]`` elements from ``begin[i]``)."""
    return _slice(input, begin, size)


def tensor_range(start, end, step) -> Tensor:
    """``ops.tensor_range(start, end, step)``: ``[start, end)`` by ``step`` from three scalar Tensors of one
    dtype; int64 for integer inputs (as MindSpore 2.10 gives), else their float dtype."""
    ts = [as_tensor(v) for v in (start, end, step)]
    if any(t.ndim for t in ts):
        raise ValueError(f"tensor_range: start, end and step must be scalar Tensors, got shapes "
                         f"{[tuple(t.shape) for t in ts]}")
    dts = {t.dtype for t in ts}
    if len(dts) != 1:
        raise TypeError(f"tensor_range: start, end and step must have one dtype, got {sorted(map(str, dts))}")
    a, b, s = (t.asnumpy().item() for t in ts)
    if s == 0:
        raise ValueError("tensor_range: step must not be 0")
    dt = ts[0].dtype if ts[0].dtype.is_float else dtype_of("int64")
    return Tensor(np.arange(a, b, s).astype(dt.np_dtype), dtype=dt)


def shape_(x) -> tuple[int, ...]:
    """``ops.shape_(x)``: ``x``'s shape as a tuple of ints."""
    return tuple(as_tensor(x).shape)


def reshape_(x, shape: Sequence[int]) -> Tensor:
    """``ops.reshape_(x, shape)``: ``ops.reshape``."""
    return apply("Reshape", {"shape": tuple(shape)}, [as_tensor(x)])


def identity(x) -> Tensor:
    """``ops.identity(x)``: a new Tensor equal to ``x`` (MindSpore's ``Identity``)."""
    return deepcopy(as_tensor(x))


def row_stack(tensors: Sequence[Any]) -> Tensor:
    """``ops.row_stack(tensors)`` (deprecated): ``ops.vstack``."""
    return vstack(tensors)


def log_matrix_determinant(input) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``ops.log_matrix_determinant(input)`` (deprecated): ``(sign, log|det|)`` of square matrices
    (``ops.slogdet``)."""
    return slogdet(input)


def expand(input_x, size) -> Tensor:
    """``ops.expand(input_x, size)`` (deprecated): ``input_x`` broadcast to the shape in the int Tensor
    ``size`` (``-1`` keeps a dimension)."""
    dims = [int(d) for d in (size.asnumpy().reshape(-1) if isinstance(size, Tensor) else size)]
    x = as_tensor(input_x)
    lead = len(dims) - x.ndim
    if lead < 0:
        raise ValueError(f"expand: size {dims} has fewer dimensions than input_x {tuple(x.shape)}")
    shape = [x.shape[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(dims)]
    return broadcast_to(x, tuple(shape))


def expand_as(input, other) -> Tensor:  # noqa: A002
    """``ops.expand_as(input, other)``: ``input`` broadcast to ``other``'s shape."""
    return broadcast_to(as_tensor(input), tuple(as_tensor(other).shape))


def reverse(x, axis: Sequence[int]) -> Tensor:
    """``ops.reverse(x, axis)`` (deprecated): ``x`` with the axes of ``axis`` reversed (``ops.flip``)."""
    return flip(x, tuple(axis))


def top_k(input_x, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``ops.top_k(input_x, k, sorted=True)``: the ``k`` largest values of the last axis and their int32
    indices (MindSpore's ``TopK``)."""
    return topk(input_x, k, None, True, sorted)


def accumulate_n(x: Sequence[Any]) -> Tensor:
    """``ops.accumulate_n(x)`` (deprecated): the elementwise sum of the Tensors of ``x`` (``ops.addn``)."""
    return addn(x)


def fills(x, value: float) -> Tensor:
    """``ops.fills(x, value)`` (deprecated): a Tensor of ``x``'s shape and dtype filled with ``value``."""
    t = as_tensor(x)
    v = value.asnumpy().item() if isinstance(value, Tensor) else value
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"fills: value must be an int or float, got {type(value).__name__}")
    return Tensor(np.full(t.shape, v).astype(t.dtype.np_dtype), dtype=t.dtype)


def gamma(shape: tuple, alpha, beta, seed: int | None = None) -> Tensor:
    """``ops.gamma(shape, alpha, beta, seed=None)`` (deprecated): Gamma(``alpha``, rate ``beta``) samples of
    the broadcast shape of ``shape``, ``alpha`` and ``beta``."""
    if not isinstance(shape, tuple):
        raise TypeError(f"gamma: shape must be a tuple, got {type(shape).__name__}")
    a, b = as_tensor(alpha), as_tensor(beta)
    out = np.broadcast_shapes(shape, tuple(a.shape), tuple(b.shape))
    draws = gamma_draw("gamma", (), broadcast_to(a, out), _state("gamma", seed))
    return binary("RealDiv", draws, broadcast_to(b, out))


def poisson(shape: tuple, mean, seed: int | None = None) -> Tensor:
    """``ops.poisson(shape, mean, seed=None)`` (deprecated): float32 Poisson(``mean``) samples of the
    broadcast shape of ``shape`` and ``mean``."""
    if not isinstance(shape, tuple):
        raise TypeError(f"poisson: shape must be a tuple, got {type(shape).__name__}")
    m = as_tensor(mean)
    if m.dtype != dtype_of("float32"):
        raise TypeError(f"poisson: mean must be a float32 Tensor, got {m.dtype}")
    out = np.broadcast_shapes(shape, tuple(m.shape))
    return poisson_draw("poisson", (), broadcast_to(m, out), _state("poisson", seed),
                        dtype_of("float32"))


def addbmm(input, batch1, batch2, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    """``ops.addbmm(input, batch1, batch2, *, beta=1, alpha=1)``: ``beta * input + alpha * sum_b(batch1[b] @
    batch2[b])``; integer inputs give int64, as MindSpore 2.10's."""
    b1, b2 = as_tensor(batch1), as_tensor(batch2)
    if b1.ndim != 3 or b2.ndim != 3 or b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise ValueError(f"addbmm: batch1 and batch2 must be (b, n, m) and (b, m, p), got {tuple(b1.shape)} and "
                         f"{tuple(b2.shape)}")
    x = as_tensor(input)
    if any(t.dtype.name == "bool" for t in (x, b1, b2)):
        raise TypeError("addbmm: bool tensors are not supported (cast them to an integer or float dtype first)")
    if not any(t.dtype.is_float or t.dtype.is_complex for t in (x, b1, b2)):
        # MindSpore 2.10 gives int64 for integer inputs of every width
        x, b1, b2 = (apply("Cast", {"dtype": "int64"}, [t]) for t in (x, b1, b2))
    total = apply("ReduceSum", {"axis": (0,), "keep_dims": False}, [apply("BatchMatMul", {}, [b1, b2])])
    return binary("Add", binary("Mul", x, beta), binary("Mul", total, alpha))


def quantile(input, q, axis: int | None = None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """``ops.quantile(input, q, axis=None, keepdims=False)``: the ``q``-th quantiles (a float or 1-D Tensor in
    [0, 1]) along ``axis`` (None: of all elements), interpolated linearly; NaN where a slice holds a NaN."""
    return quantiles.quantile("quantile", input, q, axis, keepdims, ignore_nan=False)


def nanquantile(input, q, axis: int | None = None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """``ops.nanquantile(input, q, axis=None, keepdims=False)``: :func:`quantile` ignoring NaNs (NaN for a
    slice of NaNs only)."""
    return quantiles.quantile("nanquantile", input, q, axis, keepdims, ignore_nan=True)


def mixed_precision_cast(dst_dtype: DType | str, x: Any) -> Any:
    """``ops.functional.mixed_precision_cast(dst_dtype, x)``: ``x`` (a Tensor, or a tuple, list or dict of
    them) with its floating-point Tensors cast to ``dst_dtype``; other values unchanged."""
    dt = dtype_of(dst_dtype)
    if isinstance(x, Tensor):
        return apply("Cast", {"dtype": dt}, [x]) if x.dtype.is_float else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dt, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dt, v) for k, v in x.items()}
    return x
