"""``mindspore.mint.linalg``: ``inv``, ``norm``, ``vector_norm``, ``matrix_norm`` and ``qr`` with MindSpore
2.10's ``mint.linalg`` parameter names, over the ``ops`` functions."""

from __future__ import annotations

from typing import Any

from .. import ops as _ops
from ..core.tensor import Tensor

norm = _ops.norm  # the same signature: (A, ord=None, dim=None, keepdim=False, *, dtype=None)


def qr(A: Any, mode: str = "reduced") -> tuple[Tensor, Tensor]:  # noqa: N803
    """``qr(A, mode='reduced')``: Q and R of each matrix of the last two axes ('reduced', 'complete' or 'r')."""
    return _ops.qr(A, mode)


def inv(input: Any) -> Tensor:  # noqa: A002
    """``inv(input)``: the inverse of each square matrix of the last two axes."""
    return _ops.inverse(input)


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """``vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)``: the ``ord``-norm of the elements
    over ``dim`` (None: all of them)."""
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: A002, N803
                dtype: Any = None) -> Tensor:
    """``matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)``: the matrix norm over the two
    axes of ``dim`` ('fro', 'nuc', 1, -1, 2, -2, inf, -inf)."""
    return _ops.matrix_norm(A, ord, tuple(dim), keepdim, dtype=dtype)


__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]
