"""Further ``mindspore.ops`` names the documented examples use: products (``dot``, ``vecdot``, ``dense``,
``bidense``, ``bias_add``), comparisons and similarity (``approximate_equal``, ``cosine_similarity``),
``adjoint``, ``view_as_real``, ``assign``/``assign_add``/``assign_sub``, ``dyn_shape``,
``scalar_cast``, ``unsorted_segment_sum``, ``nanmedian``, ``eps``, ``deepcopy``, ``is_tensor``
and the ``*_like`` samplers. Compositions of registered primitives and of the functions they name.
"""

from __future__ import annotations

import numpy as np

from ...core.dtypes import DType
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .base import binary, promote
from .math_more import einsum, sort
from .sampling import rand_named, randint_named, randn_named


def dot(input, other) -> Tensor:  # noqa: A002
    """``ops.dot(input, other)``: the sum product over the last axis of ``input`` and the second-to-last of
    ``other`` (the last, for a 1-D ``other``)."""
    a, b = promote(input, other)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("dot: inputs must be at least 1-D")
    k = a.shape[-1]
    kb = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if k != kb:
        raise ValueError(f"dot: contraction sizes differ, {k} vs {kb} (shapes {tuple(a.shape)}, {tuple(b.shape)})")
    a2 = apply("Reshape", {"shape": (-1, k)}, [a])
    if b.ndim == 1:
        b2 = apply("Reshape", {"shape": (k, 1)}, [b])
        rest: tuple[int, ...] = ()
    else:
        perm = (b.ndim - 2, *range(b.ndim - 2), b.ndim - 1)
        b2 = apply("Reshape", {"shape": (k, -1)}, [apply("Transpose", {"perm": perm}, [b]) if b.ndim > 2 else b])
        rest = (*b.shape[:-2], b.shape[-1])
    return apply("Reshape", {"shape": (*a.shape[:-1], *rest)}, [apply("MatMul", {}, [a2, b2])])


def vecdot(x, y, *, axis: int = -1) -> Tensor:
    """``ops.vecdot(x, y, *, axis=-1)``: ``sum(conj(x) * y)`` along ``axis`` (broadcasting)."""
    a, b = promote(x, y)
    if a.dtype.is_complex:
        a = apply("Conj", {}, [a])
    return apply("ReduceSum", {"axis": (axis,), "keep_dims": False}, [apply("Mul", {}, [a, b])])


def adjoint(x) -> Tensor:
    """``ops.adjoint(x)``: the conjugate transpose of the last two dimensions."""
    t = as_tensor(x)
    if t.ndim < 2:
        raise ValueError(f"adjoint: x must be at least 2-D, got {t.ndim}-D")
    out = apply("Transpose", {"perm": (*range(t.ndim - 2), t.ndim - 1, t.ndim - 2)}, [t])
    return apply("Conj", {}, [out]) if t.dtype.is_complex else out


def approximate_equal(x, y, tolerance: float = 1e-5) -> Tensor:
    """``ops.approximate_equal(x, y, tolerance=1e-5)``: ``|x - y| < tolerance`` elementwise."""
    d = apply("Abs", {}, [binary("Sub", x, y)])
    return apply("Less", {}, [d, Tensor(np.asarray(tolerance, d.dtype.np_dtype))])


def bias_add(input_x, bias) -> Tensor:
    """``ops.bias_add(input_x, bias)``: ``bias`` added along the channel axis (axis 1)."""
    return apply("BiasAdd", {}, [as_tensor(input_x), as_tensor(bias)])


def dense(input, weight, bias=None) -> Tensor:  # noqa: A002
    """``ops.dense(input, weight, bias=None)``: ``input @ weight.T + bias``."""
    x, w = as_tensor(input), as_tensor(weight)
    if w.ndim == 1:
        out = apply("ReduceSum", {"axis": (-1,), "keep_dims": False}, [apply("Mul", {}, [x, w])])
    else:
        lead = tuple(x.shape[:-1])
        out = apply("MatMul", {"transpose_b": True}, [apply("Reshape", {"shape": (-1, x.shape[-1])}, [x]), w])
        out = apply("Reshape", {"shape": (*lead, w.shape[0])}, [out])
    return out if bias is None else binary("Add", out, bias)


def bidense(input1, input2, weight, bias=None) -> Tensor:
    """``ops.bidense(input1, input2, weight, bias=None)``: ``input1^T A input2 + b`` for each output feature
    (``weight`` of shape (out, in1, in2))."""
    out = einsum("...i,oij,...j->...o", as_tensor(input1), as_tensor(weight), as_tensor(input2))
    return out if bias is None else binary("Add", out, bias)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``ops.cosine_similarity(x1, x2, dim=1, eps=1e-8)``: ``x1 . x2 / max(|x1| |x2|, eps)`` along ``dim``."""
    a, b = promote(x1, x2)

    def norm(t):
        return apply("Sqrt", {}, [apply("ReduceSum", {"axis": (dim,), "keep_dims": False}, [apply("Square", {}, [t])])])

    num = apply("ReduceSum", {"axis": (dim,), "keep_dims": False}, [apply("Mul", {}, [a, b])])
    den = apply("Maximum", {}, [apply("Mul", {}, [norm(a), norm(b)]), Tensor(np.asarray(eps, a.dtype.np_dtype))])
    return apply("RealDiv", {}, [num, den])


def view_as_real(input) -> Tensor:  # noqa: A002
    """``ops.view_as_real(input)``: a complex tensor as real pairs in a new last dimension of size 2."""
    x = as_tensor(input)
    if not x.dtype.is_complex:
        raise TypeError(f"view_as_real: input must be complex, got {x.dtype}")
    parts = [apply("ExpandDims", {"axis": -1}, [apply(op, {}, [x])]) for op in ("Real", "Imag")]
    return apply("Concat", {"axis": -1}, parts)


def unsorted_segment_sum(input_x, segment_ids, num_segments) -> Tensor:
    """``ops.unsorted_segment_sum(input_x, segment_ids, num_segments)``: sums of the rows sharing a segment id
    (ids outside ``[0, num_segments)`` are dropped)."""
    n = int(num_segments.asnumpy()) if isinstance(num_segments, Tensor) else int(num_segments)
    return apply("UnsortedSegmentSum", {"num_segments": n}, [as_tensor(input_x), as_tensor(segment_ids)])


def nanmedian(input, axis: int = -1, keepdims: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``ops.nanmedian(input, axis=-1, keepdims=False)``: the lower median of the non-NaN elements along
    ``axis`` and its index (NaN where a row is all NaN; the index reported for such a row is not
    MindSpore's, which is undocumented)."""
    x = as_tensor(input)
    ax = axis + x.ndim if axis < 0 else axis
    isnan = apply("IsNan", {}, [x])
    count = apply("ReduceSum", {"axis": (ax,), "keep_dims": True}, [apply("Cast", {"dtype": "int64"}, [
        apply("LogicalNot", {}, [isnan])])])
    # NaNs sorted last: replace them by +inf for the sort, keep the order of the finite values
    big = apply("Select", {}, [isnan, apply("Add", {}, [apply("ZerosLike", {}, [x]),
                                                         Tensor(np.asarray(np.inf, x.dtype.np_dtype))]), x])
    vals, idx = sort(big, axis=ax)
    k = apply("Maximum", {}, [apply("FloorDiv", {}, [apply("Sub", {}, [count, Tensor(np.int64(1))]),
                                                     Tensor(np.int64(2))]), Tensor(np.int64(0))])
    v = apply("GatherD", {"dim": ax}, [vals, k])
    i = apply("GatherD", {"dim": ax}, [apply("Cast", {"dtype": "int64"}, [idx]), k])
    empty = apply("Equal", {}, [count, Tensor(np.int64(0))])
    v = apply("Select", {}, [empty, apply("Add", {}, [apply("ZerosLike", {}, [v]),
                                                      Tensor(np.asarray(np.nan, x.dtype.np_dtype))]), v])
    if not keepdims:
        v, i = apply("Squeeze", {"axis": (ax,)}, [v]), apply("Squeeze", {"axis": (ax,)}, [i])
    return v, i


def eps(x) -> Tensor:
    """``ops.eps(x)``: a tensor like ``x`` filled with its float dtype's machine epsilon."""
    t = as_tensor(x)
    if not t.dtype.is_float:
        raise TypeError(f"eps: x must be a float tensor, got {t.dtype}")
    e = float(np.finfo(t.dtype.np_dtype).eps) if t.dtype.name != "bfloat16" else 2.0 ** -7
    return apply("Add", {}, [apply("ZerosLike", {}, [t]), Tensor(np.asarray(e, t.dtype.np_dtype))])


def deepcopy(input_x) -> Tensor:
    """``ops.deepcopy(input_x)``: a new tensor with the same values."""
    x = as_tensor(input_x)
    return apply("Reshape", {"shape": tuple(x.shape)}, [x])


def is_tensor(obj) -> bool:
    """``ops.is_tensor(obj)``: whether ``obj`` is a Tensor."""
    return isinstance(obj, Tensor)


def rand_like(input, seed: int | None = None, *, dtype: DType | str | None = None) -> Tensor:  # noqa: A002
    """``ops.rand_like(input, seed=None, *, dtype=None)``: uniform [0, 1) samples of ``input``'s shape."""
    x = as_tensor(input)
    return rand_named("rand_like", tuple(x.shape), dtype if dtype is not None else x.dtype, seed)


def randn_like(input, seed: int | None = None, *, dtype: DType | str | None = None) -> Tensor:  # noqa: A002
    """``ops.randn_like(input, seed=None, *, dtype=None)``: N(0, 1) samples of ``input``'s shape."""
    x = as_tensor(input)
    return randn_named("randn_like", tuple(x.shape), dtype if dtype is not None else x.dtype, seed)


def randint_like(input, low: int, high: int, seed: int | None = None, *,  # noqa: A002
                 dtype: DType | str | None = None) -> Tensor:
    """``ops.randint_like(input, low, high, seed=None, *, dtype=None)``: integers uniform on [low, high) of
    ``input``'s shape (``input``'s dtype unless ``dtype`` is given)."""
    x = as_tensor(input)
    return randint_named("randint_like", low, high, tuple(x.shape), seed, dtype if dtype is not None else x.dtype)


def _like_var(variable, value) -> Tensor:
    """``value`` in the variable's dtype (MindSpore converts it implicitly)."""
    v = as_tensor(value)
    return v if v.dtype == variable.dtype else apply("Cast", {"dtype": variable.dtype.name}, [v])


def assign(variable, value) -> Tensor:
    """``ops.assign(variable, value)``: writes ``value`` into the Parameter ``variable`` and returns it."""
    return apply("Assign", {}, [variable, _like_var(variable, value)])


def assign_add(variable, value) -> Tensor:
    """``ops.assign_add(variable, value)``: ``variable += value`` in place (a Parameter); returns it."""
    return apply("AssignAdd", {}, [variable, _like_var(variable, value)])


def assign_sub(variable, value) -> Tensor:
    """``ops.assign_sub(variable, value)``: ``variable -= value`` in place, as AssignAdd of ``-value``."""
    return apply("AssignAdd", {}, [variable, apply("Neg", {}, [_like_var(variable, value)])])


def dyn_shape(input_x) -> Tensor:
    """``ops.dyn_shape(input_x)``: the shape as a 1-D int64 tensor."""
    return Tensor(np.asarray(as_tensor(input_x).shape, np.int64).reshape(-1))


def scalar_cast(input_x, input_y):
    """``ops.scalar_cast(input_x, input_y)``: a Python number converted to int64 (truncating), float64 or
    bool, the types MindSpore 2.10 accepts."""
    name = str(getattr(input_y, "name", input_y))
    conv = {"int64": int, "float64": float, "bool": bool}.get(name)
    if conv is None:
        raise ValueError(f"scalar_cast: input_y must be int64, float64 or bool, got {input_y}")
    return conv(input_x)


__all__ = ["assign", "assign_add", "assign_sub", "dyn_shape", "scalar_cast",
           "dot", "vecdot", "adjoint", "approximate_equal", "bias_add", "dense", "bidense", "cosine_similarity",
           "view_as_real", "unsorted_segment_sum", "nanmedian", "eps", "deepcopy", "is_tensor", "rand_like",
           "randn_like", "randint_like"]
