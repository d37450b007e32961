"""MindSpore's ``initializer(init, shape, dtype)``, which returns a Tensor, and the initializers of
core/init_values.py re-exported, so that this module is what ``mindspore.common.initializer`` holds."""

from __future__ import annotations

from collections.abc import Sequence

from .dtypes import DType, float32
from .init_values import *  # noqa: F403
from .init_values import __all__ as _values_all
from .init_values import init_array, is_array_like, op_seed, seed_epoch  # noqa: F401
from .tensor import Tensor


def initializer(init, shape: int | Sequence[int] | None = None, dtype: DType | str = float32) -> Tensor:
    """A Tensor of initial values (MindSpore's ``initializer(init, shape=None, dtype=mstype.float32)``).

    ``init``: an :class:`Initializer`, its name, a number, or a Tensor/array (whose shape must equal
    ``shape``; ``shape`` None takes it from the Tensor). ``Parameter(initializer('normal', (3, 4)))`` is
    the usual use.
    """
    if shape is None:
        if not is_array_like(init):
            raise ValueError("initializer: shape is required unless init is a Tensor")
        shape = tuple(init.shape)
    # init_array's result is a new array of a supported dtype (an array or Tensor given is copied there): the
    # Tensor holds it as is, without Tensor()'s copy of a caller's array (ViT-B/32: 0.15 s of 88M values)
    return Tensor._of(init_array(init, shape, dtype))


__all__ = ["initializer", *_values_all]
