"""``opbuild.common.initializer``: MindSpore's module path of the initializers (``Normal``, ``HeUniform``, ...,
:func:`initializer`, :func:`init_array`); they live in :mod:`opbuild.core.initializer` and core/init_values.py,
since Parameter (core) uses them."""

from __future__ import annotations

from ..core.initializer import *  # noqa: F403
from ..core.initializer import __all__ as _names
from ..core.initializer import op_seed

__all__ = [*_names, "op_seed"]
