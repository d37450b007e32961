"""The last ``mindspore.ops`` math names of the second round: ``histc``, ``bincount`` and ``pinv`` (the
matrix-diagonal family is in matrix_diag.py).

``bincount``'s output length depends on the input's values, so it runs eagerly and refuses inside a GRAPH_MODE
trace; the others compose registered primitives (UnsortedSegmentSum, Svd, masks of the static shapes).
``histc``'s ``min``/``max`` arguments shadow the builtins, so the module calls those through ``builtins``.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .data_dependent import _concrete
from .linalg import svd


def _c(value, like: Tensor) -> Tensor:
    return Tensor(np.asarray(value, like.dtype.np_dtype))


def histc(input, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Tensor:  # noqa: A002 - MindSpore's names
    """``ops.histc(input, bins=100, min=0., max=0.)``: counts of the elements in ``bins`` equal-width bins over
    ``[min, max]`` (the data's own range when ``min == max``); elements outside are ignored."""
    x = as_tensor(input)
    if not isinstance(bins, numbers.Integral) or bins <= 0:
        raise ValueError(f"histc: bins must be a positive int, got {bins!r}")
    if min > max:
        raise ValueError(f"histc: min ({min}) must not exceed max ({max})")
    xf = apply("Reshape", {"shape": (-1,)}, [x if x.dtype.is_float else apply("Cast", {"dtype": "float32"}, [x])])
    if min == max:
        lo = apply("ReduceMin", {"axis": (0,), "keep_dims": False}, [xf])
        hi = apply("ReduceMax", {"axis": (0,), "keep_dims": False}, [xf])
        same = apply("Equal", {}, [lo, hi])  # a constant input: one unit-wide range around it, as torch does
        lo = apply("Select", {}, [same, apply("Sub", {}, [lo, _c(1, lo)]), lo])
        hi = apply("Select", {}, [same, apply("Add", {}, [hi, _c(1, hi)]), hi])
    else:
        lo, hi = _c(min, xf), _c(max, xf)
    inside = apply("LogicalAnd", {}, [apply("GreaterEqual", {}, [xf, lo]), apply("LessEqual", {}, [xf, hi])])
    scaled = apply("Mul", {}, [apply("RealDiv", {}, [apply("Sub", {}, [xf, lo]), apply("Sub", {}, [hi, lo])]),
                               _c(bins, xf)])
    idx = apply("Minimum", {}, [apply("Cast", {"dtype": "int64"}, [apply("Floor", {}, [scaled])]),
                                Tensor(np.int64(bins - 1))])
    idx = apply("Select", {}, [inside, idx, apply("Add", {}, [apply("ZerosLike", {}, [idx]), Tensor(np.int64(bins))])])
    ones = apply("Cast", {"dtype": "float32"}, [inside])
    counts = apply("UnsortedSegmentSum", {"num_segments": bins + 1}, [ones, idx])
    out = counts[:bins]
    # float16 input counts in float32, as MindSpore 2.10 gives it (recorded); other dtypes keep theirs.
    return out if x.dtype.name in ("float32", "float16") else apply("Cast", {"dtype": x.dtype.name}, [out])


def bincount(input, weights=None, minlength: int = 0) -> Tensor:  # noqa: A002
    """``ops.bincount(input, weights=None, minlength=0)``: occurrences (or summed ``weights``) of each value of a
    1-D non-negative integer tensor, ``max(max(input) + 1, minlength)`` long, float32 as MindSpore 2.10 gives.
    Eager only."""
    x = as_tensor(input)
    _concrete("bincount", x)
    if x.ndim != 1 or x.dtype.is_float or x.dtype.is_complex or x.dtype.name == "bool":
        raise ValueError(f"bincount: input must be a 1-D integer tensor, got {x.dtype}{list(x.shape)}")
    a = x.asnumpy()
    if a.size and a.min() < 0:
        raise ValueError("bincount: input must be non-negative")
    n = builtins.max(int(a.max()) + 1 if a.size else 0, int(minlength))
    idx = Tensor(a.astype(np.int64))
    if weights is None:
        # MindSpore 2.10 counts in float32 even without weights
        return apply("UnsortedSegmentSum", {"num_segments": n}, [Tensor(np.ones(a.size, np.float32)), idx])
    w = as_tensor(weights)
    w = w if w.dtype.name in ("float32", "float64") else apply("Cast", {"dtype": "float32"}, [w])
    return apply("UnsortedSegmentSum", {"num_segments": n}, [w, idx])


def pinv(x, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    """``ops.pinv(x, *, atol=None, rtol=None, hermitian=False)``: the Moore-Penrose pseudo-inverse by SVD,
    singular values below ``max(atol, rtol * s_max)`` dropped (``rtol`` defaults to ``eps * max(m, n)``)."""
    t = as_tensor(x)
    if t.ndim < 2:
        raise ValueError(f"pinv: x must be at least 2-D, got {t.ndim}-D")
    s, u, v = svd(t)
    smax = apply("ReduceMax", {"axis": (-1,), "keep_dims": True}, [s])
    eps = float(np.finfo(s.dtype.np_dtype).eps)
    r = _c(eps * builtins.max(t.shape[-2], t.shape[-1]) if rtol is None else float(rtol), s)
    tol = apply("Mul", {}, [smax, r])
    if atol is not None:
        tol = apply("Maximum", {}, [tol, _c(float(atol), s)])
    keep = apply("Greater", {}, [s, tol])
    safe = apply("Select", {}, [keep, s, apply("OnesLike", {}, [s])])
    sinv = apply("Select", {}, [keep, apply("Reciprocal", {}, [safe]), apply("ZerosLike", {}, [s])])
    vs = apply("Mul", {}, [v, apply("ExpandDims", {"axis": -2}, [sinv])])
    nd = t.ndim
    perm = (*range(nd - 2), nd - 1, nd - 2)
    return apply("BatchMatMul" if nd > 2 else "MatMul", {}, [vs, apply("Transpose", {"perm": perm}, [u])])


__all__ = ["histc", "bincount", "pinv"]
