"""``opbuild.common``: MindSpore's ``mindspore.common`` path (``dtype`` as mstype, ``initializer``, Tensor,
Parameter), so that ``from mindspore.common.initializer import Normal`` and
``import mindspore.common.dtype as mstype`` work with only the package name changed."""

from __future__ import annotations

from ..core.tensor import Tensor
from . import dtype, initializer


def __getattr__(name: str):
    """Parameter and ParameterTuple, imported on first use: opbuild.core.parameter imports this package's
    initializer module, so importing it here at module level would be a cycle."""
    if name in ("Parameter", "ParameterTuple"):
        from ..core import parameter

        return getattr(parameter, name)
    raise AttributeError(f"module 'opbuild.common' has no attribute {name!r}")

__all__ = ["dtype", "initializer", "Tensor", "Parameter", "ParameterTuple"]
