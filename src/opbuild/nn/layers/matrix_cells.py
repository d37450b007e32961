"""MindSpore's matrix Cells of ``nn.layer.basic`` and ``nn.layer.math``: ``MatrixDiag``, ``MatrixDiagPart``,
``MatrixSetDiag``, ``MatDet`` and ``MatInverse``, with its signatures and results.

MindSpore 2.10 runs none of them on its CPU (their kernels are Ascend's; tests/fixtures/mindspore/nn_surface.json
records the refusal), so tests/compat/test_nn_surface.py checks them against NumPy's form of the documented
results. ``MatDet`` and ``MatInverse`` take symmetric positive-definite matrices and work through the
Cholesky factor ``L`` as MindSpore's do: ``det = prod(diag(L))^2`` and ``inv = L^-T L^-1``."""

from __future__ import annotations

import numpy as np

from ... import ops
from ...core.dtypes import float16, float32
from ...core.errors import ShapeError
from ...core.tensor import Tensor
from ..cell import Cell


def _float_only(cls: str, a: Tensor) -> None:
    if a.dtype not in (float16, float32):
        raise TypeError(f"{cls}: input_a must be float16 or float32, got {a.dtype}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(cls, "expects (..., M, M) square matrices", [a._type])


class MatrixDiag(Cell):
    """``MatrixDiag()``: ``construct(input_x)`` of shape (..., N) gives (..., N, N) with ``input_x`` on the
    diagonals and zeros elsewhere, in ``input_x``'s dtype."""

    def construct(self, input_x: Tensor) -> Tensor:
        n = input_x.shape[-1]
        eye = Tensor(np.eye(n, dtype=input_x.dtype.np_dtype))
        return ops.expand_dims(input_x, -2) * eye


class MatrixDiagPart(Cell):
    """``MatrixDiagPart()``: ``construct(input_x)`` of shape (..., M, N) gives the (..., min(M, N)) main
    diagonals."""

    def construct(self, input_x: Tensor) -> Tensor:
        if input_x.ndim < 2:
            raise ShapeError("MatrixDiagPart", "expects an input of rank >= 2", [input_x._type])
        return ops.diagonal(input_x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """``MatrixSetDiag()``: ``construct(input_x, diagonal)``: ``input_x`` (..., M, N) with its main diagonals
    replaced by ``diagonal`` (..., min(M, N))."""

    def construct(self, input_x: Tensor, diagonal: Tensor) -> Tensor:
        if input_x.ndim < 2:
            raise ShapeError("MatrixSetDiag", "expects an input of rank >= 2", [input_x._type])
        return ops.matrix_set_diag(input_x, diagonal)


class MatDet(Cell):
    """``MatDet()``: ``construct(a)``: the determinants (...,) of symmetric positive-definite float16/float32
    matrices (..., M, M), through their Cholesky factors."""

    def construct(self, a: Tensor) -> Tensor:
        _float_only("MatDet", a)
        factor = ops.cholesky(a)
        return ops.square(ops.prod(ops.diagonal(factor, 0, -2, -1), -1))


class MatInverse(Cell):
    """``MatInverse()``: ``construct(a)``: the inverses of symmetric positive-definite float16/float32
    matrices (M, M), through their Cholesky factors."""

    def construct(self, a: Tensor) -> Tensor:
        _float_only("MatInverse", a)
        inv_factor = ops.inverse(ops.cholesky(a))
        return ops.matmul(ops.swapaxes(inv_factor, -1, -2), inv_factor)
