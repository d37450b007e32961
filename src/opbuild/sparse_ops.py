"""Set operations over sparse tensors (``COOTensor.coalesce``/``add``, ``CSRTensor.add``), on concrete
index arrays: they change which coordinates are stored, which is bookkeeping over host arrays rather than a
kernel. The values are combined with NumPy in their own dtype; results are new sparse tensors with sorted
(row-major) coordinates, as MindSpore's."""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.tensor import Tensor


def _host(x: Any, what: str) -> np.ndarray:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {type(x).__name__}")
    return x.asnumpy()


def merge_coordinates(indices: np.ndarray, values: np.ndarray,
                      shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Sort (N, ndim) ``indices`` in row-major order and add the values of repeated coordinates."""
    if len(indices) == 0:
        return indices.reshape(0, len(shape)), values
    flat = np.ravel_multi_index(tuple(indices.T.astype(np.int64)), shape)
    unique, inverse = np.unique(flat, return_inverse=True)
    summed = np.zeros(len(unique), dtype=values.dtype)
    np.add.at(summed, inverse, values)
    coords = np.stack(np.unravel_index(unique, shape), axis=1).astype(indices.dtype)
    return coords, summed


def coo_coalesce(coo: Any) -> tuple[np.ndarray, np.ndarray]:
    """``COOTensor.coalesce``: the coordinates sorted and made unique, repeated ones' values added."""
    return merge_coordinates(_host(coo.indices, "indices"), _host(coo.values, "values"), coo.shape)


def coo_add(a: Any, b: Any, thresh: Any) -> tuple[np.ndarray, np.ndarray]:
    """``COOTensor.add``: the sum of two COO tensors of one shape and dtype. As MindSpore's (and
    TensorFlow's sparse add), a coordinate stored in both keeps its sum only if the sum's magnitude is at
    least ``thresh``; a coordinate stored in one of them is kept as it is."""
    if type(a) is not type(b):
        raise TypeError(f"COOTensor.add: other must be a COOTensor, got {type(b).__name__}")
    if a.shape != b.shape:
        raise ValueError(f"COOTensor.add: the shapes differ: {a.shape} and {b.shape}")
    if a.values.dtype != b.values.dtype:
        raise TypeError(f"COOTensor.add: the values' dtypes differ: {a.values.dtype} and {b.values.dtype}")
    limit = _host(thresh, "COOTensor.add: thresh")
    if limit.ndim != 0:
        raise ValueError(f"COOTensor.add: thresh must be a 0-D Tensor, got shape {limit.shape}")
    ia, va = merge_coordinates(_host(a.indices, "indices"), _host(a.values, "values"), a.shape)
    ib, vb = merge_coordinates(_host(b.indices, "indices").astype(ia.dtype), _host(b.values, "values"), a.shape)
    fa = np.ravel_multi_index(tuple(ia.T.astype(np.int64)), a.shape) if len(ia) else np.zeros(0, np.int64)
    fb = np.ravel_multi_index(tuple(ib.T.astype(np.int64)), a.shape) if len(ib) else np.zeros(0, np.int64)
    both = np.intersect1d(fa, fb)
    coords, vals = merge_coordinates(np.concatenate([ia, ib]), np.concatenate([va, vb]), a.shape)
    flat = np.ravel_multi_index(tuple(coords.T.astype(np.int64)), a.shape) if len(coords) else fa[:0]
    keep = ~np.isin(flat, both) | (np.abs(vals) >= limit)
    return coords[keep], vals[keep]


def csr_add(a: Any, b: Any, alpha: Any, beta: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``CSRTensor.add``: ``alpha * a + beta * b`` over the union of their stored positions; returns
    (indptr, indices, values)."""
    if type(a) is not type(b):
        raise TypeError(f"CSRTensor.add: b must be a CSRTensor, got {type(b).__name__}")
    if a.shape != b.shape:
        raise ValueError(f"CSRTensor.add: the shapes differ: {a.shape} and {b.shape}")
    al, be = _host(alpha, "CSRTensor.add: alpha"), _host(beta, "CSRTensor.add: beta")
    va = _host(a.values, "values")
    vals = np.concatenate([va * al.astype(va.dtype), _host(b.values, "values") * be.astype(va.dtype)])
    idx = np.concatenate([np.stack([a._rows(), _host(a.indices, "indices")], axis=1),
                          np.stack([b._rows(), _host(b.indices, "indices")], axis=1)]).astype(np.int64)
    coords, summed = merge_coordinates(idx, vals.astype(va.dtype), a.shape)
    idx_dtype = a.indices.dtype.np_dtype
    indptr = np.concatenate([[0], np.cumsum(np.bincount(coords[:, 0], minlength=a.shape[0]))]).astype(
        a.indptr.dtype.np_dtype)
    return indptr, coords[:, 1].astype(idx_dtype), summed
