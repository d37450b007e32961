"""``COOTensor`` and ``CSRTensor``: MindSpore's sparse tensors, held as their index and value Tensors.

Their operations are written over registered primitives: ``to_dense`` scatters the values with
UnsortedSegmentSum (duplicate coordinates add up, as a COO tensor means), sparse-dense products
(``CSRTensor.mv``/``mm``) densify the sparse operand and use MatMul, and elementwise maps (``abs``,
``astype``, scaling) apply to the values only. Index arrays must be concrete where a conversion needs them
(``to_csr``/``to_coo``), which holds in PyNative mode and for sparse tensors built outside a trace.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .core.tensor import Tensor, as_tensor
from .ops.primitive import apply
from .sparse_ops import coo_add, coo_coalesce, csr_add


def _shape(shape: Sequence[int]) -> tuple[int, ...]:
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"sparse tensor shape must be non-negative, got {dims}")
    return dims


def _scatter(flat_index: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    size = int(np.prod(shape)) if shape else 1
    work = values if values.dtype.name in ("float32", "float64", "int32", "int64") else \
        apply("Cast", {"dtype": "float32"}, [values])
    dense = apply("UnsortedSegmentSum", {"num_segments": size}, [work, flat_index])
    if work.dtype != values.dtype:
        dense = apply("Cast", {"dtype": values.dtype.name}, [dense])
    return apply("Reshape", {"shape": shape}, [dense])


def _part(t: Tensor) -> str:
    """A component tensor as MindSpore's sparse reprs show it: the printed value, multi-line ones on a new line."""
    arr = t.asnumpy()
    # MindSpore prints a sparse tensor's float parts in its C++ layout: every element as %.8e with a sign column
    body = (np.array2string(arr, separator=" ", formatter={"float_kind": lambda x: f"{x: .8e}"})
            if np.issubdtype(arr.dtype, np.floating) else str(t))
    return f"Tensor(shape={list(t.shape)}, dtype={t.dtype}, value={chr(10) if t.ndim > 1 else ''}{body})"


class COOTensor:
    """``COOTensor(indices, values, shape)``: ``values[i]`` at coordinate ``indices[i]`` (an int tensor of shape
    (N, ndim)); every other element is zero."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor: COOTensor | None = None):
        if coo_tensor is not None:
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        if indices is None or values is None or shape is None:
            raise ValueError("COOTensor needs indices, values and shape (or coo_tensor)")
        self.indices = as_tensor(indices)
        self.values = as_tensor(values)
        self.shape = _shape(shape)
        if self.indices.dtype.name not in ("int32", "int64"):
            raise TypeError(f"COOTensor: indices must be int32 or int64, got {self.indices.dtype}")
        if self.indices.ndim != 2 or self.indices.shape[1] != len(self.shape):
            raise ValueError(f"COOTensor: indices must have shape (N, {len(self.shape)}), got "
                             f"{tuple(self.indices.shape)}")
        if self.values.ndim != 1 or self.values.shape[0] != self.indices.shape[0]:
            raise ValueError(f"COOTensor: values must have shape ({self.indices.shape[0]},), got "
                             f"{tuple(self.values.shape)}")

    @property
    def dtype(self):
        """The values' dtype."""
        return self.values.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions of the dense shape."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of stored values."""
        return self.values.shape[0]

    @property
    def itemsize(self) -> int:
        """Bytes per value."""
        return self.values.dtype.np_dtype.itemsize

    def to_tuple(self) -> tuple[Tensor, Tensor, tuple[int, ...]]:
        """(indices, values, shape)."""
        return self.indices, self.values, self.shape

    def to_dense(self) -> Tensor:
        """The dense tensor (duplicate coordinates summed)."""
        strides = np.array([int(np.prod(self.shape[i + 1:])) for i in range(self.ndim)], np.int64)
        idx = self.indices if self.indices.dtype.name == "int64" else apply("Cast", {"dtype": "int64"}, [self.indices])
        flat = apply("ReduceSum", {"axis": (1,), "keep_dims": False}, [apply("Mul", {}, [idx, Tensor(strides)])])
        return _scatter(flat, self.values, self.shape)

    def to_csr(self) -> CSRTensor:
        """The same 2-D tensor in CSR form (rows sorted; needs concrete indices)."""
        if self.ndim != 2:
            raise ValueError(f"COOTensor.to_csr: only 2-D tensors have a CSR form, this one is {self.ndim}-D")
        idx = self.indices.asnumpy()
        order = np.lexsort((idx[:, 1], idx[:, 0]))
        indptr = np.searchsorted(idx[order, 0], np.arange(self.shape[0] + 1)).astype(idx.dtype)
        values = apply("Gather", {"axis": 0}, [self.values, Tensor(order.astype(np.int64))])
        return CSRTensor(Tensor(indptr), Tensor(idx[order, 1]), values, self.shape)

    def abs(self) -> COOTensor:
        """|values| at the same coordinates."""
        return COOTensor(self.indices, apply("Abs", {}, [self.values]), self.shape)

    def astype(self, dtype) -> COOTensor:
        """The values cast to ``dtype``."""
        return COOTensor(self.indices, self.values.astype(dtype), self.shape)

    def coalesce(self) -> COOTensor:
        """The same tensor with sorted, unique coordinates (repeated ones' values added)."""
        coords, vals = coo_coalesce(self)
        return COOTensor(Tensor(coords), Tensor(vals), self.shape)

    def add(self, other: COOTensor, thresh: Tensor) -> COOTensor:
        """``self + other``; sums whose magnitude is below the 0-D ``thresh`` are not stored."""
        coords, vals = coo_add(self, other, thresh)
        return COOTensor(Tensor(coords), Tensor(vals), self.shape)

    def __repr__(self) -> str:
        return (f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, indices={_part(self.indices)}, "
                f"values={_part(self.values)})")



class CSRTensor:
    """``CSRTensor(indptr, indices, values, shape)``: a 2-D sparse tensor by rows: row ``r`` holds
    ``values[indptr[r]:indptr[r+1]]`` at columns ``indices[indptr[r]:indptr[r+1]]``."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor: CSRTensor | None = None):
        if csr_tensor is not None:
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, csr_tensor.shape
        if indptr is None or indices is None or values is None or shape is None:
            raise ValueError("CSRTensor needs indptr, indices, values and shape (or csr_tensor)")
        self.indptr, self.indices, self.values = as_tensor(indptr), as_tensor(indices), as_tensor(values)
        self.shape = _shape(shape)
        if len(self.shape) != 2:
            raise ValueError(f"CSRTensor: shape must be 2-D, got {self.shape}")
        for name, t in (("indptr", self.indptr), ("indices", self.indices)):
            if t.dtype.name not in ("int32", "int64") or t.ndim != 1:
                raise TypeError(f"CSRTensor: {name} must be a 1-D int32/int64 tensor, got {t.dtype}{list(t.shape)}")
        if self.indptr.shape[0] != self.shape[0] + 1:
            raise ValueError(f"CSRTensor: indptr must have {self.shape[0] + 1} entries, got {self.indptr.shape[0]}")
        if self.values.ndim != 1 or self.values.shape[0] != self.indices.shape[0]:
            raise ValueError("CSRTensor: values and indices must be 1-D of the same length")

    @property
    def dtype(self):
        """The values' dtype."""
        return self.values.dtype

    @property
    def ndim(self) -> int:
        """2."""
        return 2

    @property
    def size(self) -> int:
        """The number of stored values."""
        return self.values.shape[0]

    @property
    def itemsize(self) -> int:
        """Bytes per value."""
        return self.values.dtype.np_dtype.itemsize

    def to_tuple(self) -> tuple[Tensor, Tensor, Tensor, tuple[int, ...]]:
        """(indptr, indices, values, shape)."""
        return self.indptr, self.indices, self.values, self.shape

    def _rows(self) -> np.ndarray:
        ptr = self.indptr.asnumpy().astype(np.int64)
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(ptr))

    def to_coo(self) -> COOTensor:
        """The same tensor in COO form (needs a concrete indptr)."""
        rows = Tensor(self._rows().astype(self.indices.dtype.np_dtype))
        stacked = apply("Concat", {"axis": 1}, [apply("ExpandDims", {"axis": 1}, [rows]),
                                               apply("ExpandDims", {"axis": 1}, [self.indices])])
        return COOTensor(stacked, self.values, self.shape)

    def to_dense(self) -> Tensor:
        """The dense 2-D tensor."""
        return self.to_coo().to_dense()

    def mv(self, dense_vector) -> Tensor:
        """The product with a dense column vector of shape (n, 1), as MindSpore's ``CSRTensor.mv`` (which
        refuses 1-D vectors too)."""
        v = as_tensor(dense_vector)
        if v.ndim != 2:
            raise ValueError(f"CSRTensor.mv: dense_vector must be 2-D (n, 1), got {v.ndim}-D")
        return apply("MatMul", {}, [self.to_dense(), v])

    def mm(self, dense_matrix) -> Tensor:
        """The product with a dense matrix."""
        return apply("MatMul", {}, [self.to_dense(), as_tensor(dense_matrix)])

    def sum(self, axis: int) -> Tensor:
        """Sums along ``axis`` of the dense tensor, keeping it (shape (rows, 1) or (1, cols))."""
        return apply("ReduceSum", {"axis": (axis,), "keep_dims": True}, [self.to_dense()])

    def abs(self) -> CSRTensor:
        """|values| at the same positions."""
        return CSRTensor(self.indptr, self.indices, apply("Abs", {}, [self.values]), self.shape)

    def astype(self, dtype) -> CSRTensor:
        """The values cast to ``dtype``."""
        return CSRTensor(self.indptr, self.indices, self.values.astype(dtype), self.shape)

    def add(self, b: CSRTensor, alpha: Tensor, beta: Tensor) -> CSRTensor:
        """``alpha * self + beta * b`` over the union of the stored positions."""
        indptr, indices, values = csr_add(self, b, alpha, beta)
        return CSRTensor(Tensor(indptr), Tensor(indices), Tensor(values), self.shape)

    def __repr__(self) -> str:
        return (f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, indptr={_part(self.indptr)}, "
                f"indices={_part(self.indices)}, values={_part(self.values)})")



__all__ = ["COOTensor", "CSRTensor"]


# What core.providers resolves for Tensor.to_coo/to_csr (core cannot import this module).
SPARSE_CLASSES = {"COOTensor": COOTensor, "CSRTensor": CSRTensor}
