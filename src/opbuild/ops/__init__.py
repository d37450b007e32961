"""Operators: primitive classes (``ops.Square()``, ``ops.MatMul(transpose_b=True)``, ...) and functional forms.

Importing this package registers every op family. Each family module exports ``PRIMITIVES``, the
user-facing classes by name.
"""

from __future__ import annotations

from . import conv, conv_grad, elementwise, fill, indexing, layout, matmul, norm, reduce, slicing
from .functional import clip_by_value
from .primitive import Primitive, apply
from .registry import REGISTRY

_FAMILIES = [elementwise, reduce, norm, layout, slicing, indexing, fill, matmul, conv, conv_grad]

for _family in _FAMILIES:
    for _name, _cls in _family.PRIMITIVES.items():
        globals()[_name] = _cls

# After the families: the autodiff pass it uses reads their gradient rules.
from ..autograd import GradOperation  # noqa: E402

__all__ = ["Primitive", "apply", "clip_by_value", "REGISTRY", "GradOperation",
           *[n for f in _FAMILIES for n in f.PRIMITIVES]]
