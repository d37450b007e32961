"""MindSpore's ``coo_*``/``csr_*`` functions on COOTensor/CSRTensor values, and the sparse conversions.

An elementwise function of a sparse tensor maps its stored values and keeps its indices, so the whole family is
one table (:data:`UNARY`) of MindSpore names over the registered unary primitives; each generated function
returns a tensor of the input's own class. Sums and concatenation need the index arrays concrete (PyNative
mode, or sparse tensors built outside a trace); their values stay differentiable (Gather/UnsortedSegmentSum).
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .activations import softsign as _softsign

UNARY: dict[str, str] = {
    "abs": "Abs", "acos": "ACos", "acosh": "Acosh", "asin": "Asin", "asinh": "Asinh", "atan": "Atan",
    "atanh": "Atanh", "ceil": "Ceil", "cos": "Cos", "cosh": "Cosh", "exp": "Exp", "expm1": "Expm1",
    "floor": "Floor", "inv": "Reciprocal", "isfinite": "IsFinite", "isinf": "IsInf", "isnan": "IsNan",
    "log": "Log", "log1p": "Log1p", "neg": "Neg", "relu": "ReLU", "relu6": "ReLU6", "round": "Round",
    "sigmoid": "Sigmoid", "sin": "Sin", "sinh": "Sinh", "softsign": "", "sqrt": "Sqrt", "square": "Square",
    "tan": "Tan", "tanh": "Tanh",
}
"""MindSpore's sparse elementwise suffix -> the primitive applied to the values ("" = a composition)."""


def _is_coo(x) -> bool:
    return hasattr(x, "indices") and hasattr(x, "values") and not hasattr(x, "indptr")


def _is_csr(x) -> bool:
    return hasattr(x, "indptr") and hasattr(x, "values")


def _map_values(x, fn):
    if _is_csr(x):
        return type(x)(x.indptr, x.indices, fn(x.values), x.shape)
    return type(x)(x.indices, fn(x.values), x.shape)


def _make(kind: str, suffix: str, prim: str):
    check = _is_coo if kind == "coo" else _is_csr
    cls = "COOTensor" if kind == "coo" else "CSRTensor"

    def fn(x):
        if not check(x):
            raise TypeError(f"{kind}_{suffix}: x must be a {cls}, got {type(x).__name__}")
        return _map_values(x, (lambda v: apply(prim, {}, [v])) if prim else _softsign)

    fn.__name__ = fn.__qualname__ = f"{kind}_{suffix}"
    fn.__doc__ = f"``{kind}_{suffix}(x)``: ``{suffix}`` of a {cls}'s values; the indices are kept."
    return fn


_GENERATED = {f"{kind}_{s}": _make(kind, s, p) for kind in ("coo", "csr") for s, p in UNARY.items()}
globals().update(_GENERATED)


def _dense(x) -> Tensor:
    return x.to_dense()


def _merge(indices: np.ndarray, values: Tensor, shape: tuple[int, ...], thresh=None):
    """Unique sorted coordinates with summed values (differentiable in ``values``)."""
    uniq, inverse = np.unique(indices, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    work = values if values.dtype.name in ("float32", "float64", "int32", "int64") else \
        apply("Cast", {"dtype": "float32"}, [values])
    summed = apply("UnsortedSegmentSum", {"num_segments": int(uniq.shape[0])}, [work, Tensor(inverse)])
    if work.dtype != values.dtype:
        summed = apply("Cast", {"dtype": values.dtype.name}, [summed])
    if thresh is not None:
        keep = np.abs(summed.asnumpy()) >= float(np.asarray(thresh.asnumpy() if isinstance(thresh, Tensor)
                                                            else thresh))
        pos = np.flatnonzero(keep).astype(np.int64)
        uniq = uniq[pos]
        summed = apply("Gather", {"axis": 0}, [summed, Tensor(pos)])
    return uniq, summed


def coo_add(x1, x2, thresh):
    """``coo_add(x1, x2, thresh)``: the COOTensor sum of two COOTensors of one shape; sums whose magnitude is
    below ``thresh`` are dropped. Needs concrete indices."""
    if not (_is_coo(x1) and _is_coo(x2)):
        raise TypeError("coo_add: x1 and x2 must be COOTensors")
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"coo_add: shapes differ, {tuple(x1.shape)} vs {tuple(x2.shape)}")
    idx = np.concatenate([x1.indices.asnumpy(), x2.indices.asnumpy()]).astype(x1.indices.dtype.np_dtype)
    vals = apply("Concat", {"axis": 0}, [x1.values, x2.values])
    uniq, summed = _merge(idx, vals, x1.shape, thresh)
    return type(x1)(Tensor(uniq.astype(x1.indices.dtype.np_dtype)), summed, x1.shape)


def csr_add(a, b, alpha, beta):
    """``csr_add(a, b, alpha, beta)``: ``alpha * a + beta * b`` for two CSRTensors of one shape."""
    if not (_is_csr(a) and _is_csr(b)):
        raise TypeError("csr_add: a and b must be CSRTensors")
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"csr_add: shapes differ, {tuple(a.shape)} vs {tuple(b.shape)}")
    alpha, beta = as_tensor(alpha), as_tensor(beta)
    va = apply("Mul", {}, [a.values, apply("Reshape", {"shape": (1,)}, [alpha.astype(a.values.dtype)])])
    vb = apply("Mul", {}, [b.values, apply("Reshape", {"shape": (1,)}, [beta.astype(b.values.dtype)])])
    rows = [np.repeat(np.arange(t.shape[0]), np.diff(t.indptr.asnumpy().astype(np.int64))) for t in (a, b)]
    cols = [t.indices.asnumpy().astype(np.int64) for t in (a, b)]
    idx = np.stack([np.concatenate(rows), np.concatenate(cols)], axis=1)
    uniq, summed = _merge(idx, apply("Concat", {"axis": 0}, [va, vb]), a.shape)
    dt = a.indices.dtype.np_dtype
    indptr = np.searchsorted(uniq[:, 0], np.arange(a.shape[0] + 1)).astype(dt)
    return type(a)(Tensor(indptr), Tensor(uniq[:, 1].astype(dt)), summed, a.shape)


def coo_concat(sp_input, concat_dim: int = 0):
    """``coo_concat(sp_input, concat_dim=0)``: COOTensors joined along ``concat_dim`` (other dims equal)."""
    parts = list(sp_input)
    if len(parts) < 2 or not all(_is_coo(p) for p in parts):
        raise ValueError("coo_concat: sp_input must be a sequence of at least two COOTensors")
    nd = len(parts[0].shape)
    dim = concat_dim + nd if concat_dim < 0 else concat_dim
    if not 0 <= dim < nd:
        raise ValueError(f"coo_concat: concat_dim {concat_dim} is out of range for {nd}-D tensors")
    offset, idx = 0, []
    for p in parts:
        if any(p.shape[d] != parts[0].shape[d] for d in range(nd) if d != dim) or len(p.shape) != nd:
            raise ValueError("coo_concat: every COOTensor must have the same shape outside concat_dim")
        i = p.indices.asnumpy().astype(np.int64).copy()
        i[:, dim] += offset
        idx.append(i)
        offset += p.shape[dim]
    shape = tuple(offset if d == dim else parts[0].shape[d] for d in range(nd))
    # MindSpore returns the coordinates in row-major order.
    idx = np.concatenate(idx)
    order = np.lexsort(idx.T[::-1]).astype(np.int64)
    vals = apply("Gather", {"axis": 0}, [apply("Concat", {"axis": 0}, [p.values for p in parts]), Tensor(order)])
    return type(parts[0])(Tensor(idx[order].astype(parts[0].indices.dtype.np_dtype)), vals, shape)


def csr_to_dense(csr_tensor) -> Tensor:
    """``csr_to_dense(csr_tensor)``: the dense 2-D tensor of a CSRTensor."""
    if not _is_csr(csr_tensor):
        raise TypeError(f"csr_to_dense: expected a CSRTensor, got {type(csr_tensor).__name__}")
    return _dense(csr_tensor)


def _nonzero(x: Tensor) -> np.ndarray:
    return np.argwhere(x.asnumpy() != 0).astype(np.int32)  # MindSpore gives int32 indices


def dense_to_sparse_coo(tensor):
    """``dense_to_sparse_coo(tensor)``: a COOTensor of the non-zero elements (row-major order). Eager only:
    the number of non-zeros decides the output shape."""
    from ...sparse import COOTensor  # opbuild.sparse imports ops: a module-level import would be a cycle

    x = as_tensor(tensor)
    idx = _nonzero(x)
    flat = apply("Reshape", {"shape": (-1,)}, [x])
    strides = np.array([int(np.prod(x.shape[i + 1:])) for i in range(x.ndim)], np.int64)
    vals = apply("Gather", {"axis": 0}, [flat, Tensor((idx @ strides).astype(np.int64))])
    return COOTensor(Tensor(idx), vals, tuple(x.shape))


def dense_to_sparse_csr(tensor):
    """``dense_to_sparse_csr(tensor)``: a CSRTensor of a 2-D tensor's non-zero elements."""
    x = as_tensor(tensor)
    if x.ndim != 2:
        raise ValueError(f"dense_to_sparse_csr: tensor must be 2-D, got {x.ndim}-D")
    return dense_to_sparse_coo(x).to_csr()


def csr_softmax(logits, dtype):
    """``csr_softmax(logits, dtype)``: softmax over each row's stored values of a CSRTensor (absent
    elements take no part); the result has the input's sparsity pattern."""
    if not _is_csr(logits):
        raise TypeError(f"csr_softmax: logits must be a CSRTensor, got {type(logits).__name__}")
    rows = np.repeat(np.arange(logits.shape[0]), np.diff(logits.indptr.asnumpy().astype(np.int64)))
    seg, n = Tensor(rows.astype(np.int64)), int(logits.shape[0])
    v = logits.values.astype(dtype)
    # The row maximum is a constant shift (softmax is invariant to it), taken from the values eagerly.
    vn = v.asnumpy()
    mx = np.full(n, -np.inf, vn.dtype)
    np.maximum.at(mx, rows, vn)
    shifted = apply("Sub", {}, [v, Tensor(mx[rows].astype(vn.dtype))])
    e = apply("Exp", {}, [shifted])
    denom = apply("UnsortedSegmentSum", {"num_segments": n}, [e, seg])
    out = apply("RealDiv", {}, [e, apply("Gather", {"axis": 0}, [denom, seg])])
    return type(logits)(logits.indptr, logits.indices, out, logits.shape)


__all__ = [*_GENERATED, "coo_add", "csr_add", "coo_concat", "csr_to_dense", "dense_to_sparse_coo",
           "dense_to_sparse_csr", "csr_softmax"]
