"""``opbuild.common``: MindSpore's ``mindspore.common`` path (``dtype`` as mstype, ``initializer``, Tensor,
Parameter), so that ``from mindspore.common.initializer import Normal`` and
``import mindspore.common.dtype as mstype`` work with only the package name changed."""

from __future__ import annotations

from ..core.parameter import Parameter, ParameterTuple
from ..core.tensor import Tensor
from . import dtype, initializer

__all__ = ["dtype", "initializer", "Tensor", "Parameter", "ParameterTuple"]
