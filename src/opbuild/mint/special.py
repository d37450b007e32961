"""``mindspore.mint.special``: ``erfc``, ``exp2``, ``expm1``, ``log1p``, ``sinc``, ``round`` and
``log_softmax`` with MindSpore 2.10's ``mint.special`` signatures, over the ``ops`` functions."""

from __future__ import annotations

from typing import Any

from .. import ops as _ops
from ..core.tensor import Tensor
from .nn.functional import log_softmax

erfc = _ops.erfc
exp2 = _ops.exp2
expm1 = _ops.expm1
log1p = _ops.log1p


def sinc(input: Any) -> Tensor:  # noqa: A002
    """``sinc(input)``: sin(pi x) / (pi x), 1 at 0."""
    return _ops.sinc(input)


def round(input: Any) -> Tensor:  # noqa: A001, A002
    """``round(input)``: to the nearest integer, halves to even."""
    return _ops.round(input)


__all__ = ["erfc", "exp2", "expm1", "log1p", "log_softmax", "round", "sinc"]
