"""MindSpore's older sparse containers kept at the top level: ``SparseTensor`` (indices, values, shape; the
predecessor of COOTensor) and ``RowTensor`` (a dense tensor given by some of its rows). Holders of their parts:
``to_dense`` builds the dense tensor; operators take them through COOTensor (``SparseTensor.to_coo``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .core.tensor import Tensor
from .sparse import COOTensor


def _check_shape(shape: Sequence[int], who: str) -> tuple[int, ...]:
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise TypeError(f"{who}: shape must be a tuple of non-negative ints, got {shape!r}")
    return tuple(shape)


class SparseTensor:
    """``SparseTensor(indices, values, shape)``: ``indices`` [N, ndim] int, ``values`` [N]."""

    def __init__(self, indices: Tensor, values: Tensor, shape: Sequence[int]):
        self.indices, self.values, self.shape = indices, values, _check_shape(shape, "SparseTensor")

    def to_coo(self) -> COOTensor:
        """The same entries as a COOTensor."""
        return COOTensor(self.indices, self.values, self.shape)

    def to_dense(self) -> Tensor:
        """The dense tensor (missing entries zero)."""
        return self.to_coo().to_dense()


class RowTensor:
    """``RowTensor(indices, values, dense_shape)``: the rows ``indices`` [N] of a tensor of ``dense_shape``
    are ``values`` [N, *dense_shape[1:]]; the other rows are zero."""

    def __init__(self, indices: Tensor = None, values: Tensor = None, dense_shape: Sequence[int] = None,
                 row_tensor: RowTensor | None = None):
        if row_tensor is not None:
            indices, values, dense_shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        self.indices, self.values = indices, values
        self.dense_shape = _check_shape(dense_shape, "RowTensor")

    def to_dense(self) -> Tensor:
        """The dense tensor (rows not listed zero; listed twice: summed)."""
        values = np.asarray(self.values.asnumpy())
        out = np.zeros(self.dense_shape, values.dtype)
        np.add.at(out, np.asarray(self.indices.asnumpy()).astype(np.int64), values)
        return Tensor(out, dtype=self.values.dtype)
