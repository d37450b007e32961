"""``opbuild.common.initializer``: MindSpore's module path of the initializers (``Normal``, ``HeUniform``, ...,
``Identity``, ``Dirac``, ``Orthogonal``, ``VarianceScaling``, ``Sparse``, :func:`initializer`,
:func:`init_array`); they live in :mod:`opbuild.core.initializer`, core/init_values.py and
:mod:`opbuild.core.initializer_more`, since Parameter (core) uses them."""

from __future__ import annotations

from ..core.initializer import *  # noqa: F403
from ..core.initializer import __all__ as _names
from ..core.initializer import op_seed
from ..core.initializer_more import *  # noqa: F403
from ..core.initializer_more import __all__ as _more

__all__ = [*_names, *_more, "op_seed"]
