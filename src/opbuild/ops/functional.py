"""``opbuild.ops.functional`` (``import opbuild.ops.functional as F``): the functional API, MindSpore 2.x's
lower-case ``mindspore.ops`` functions, plus the helpers Tensor's operators use (``unary``, ``binary``,
``true_divide``). The functions live in ``ops/api/`` by family; this module only gathers them."""

from __future__ import annotations

from types import SimpleNamespace

from .api import array as _array
from .api import math as _math
from .api import nn as _nn
from .api.array import *  # noqa: F403
from .api.base import binary, clip_by_value, true_divide, unary
from .api.indexing import getitem as _getitem
from .api.math import *  # noqa: F403
from .api.nn import *  # noqa: F403

API: tuple[str, ...] = (*_math.__all__, *_array.__all__, *_nn.__all__)
"""The MindSpore functional names this module provides (docs/mindspore-compat.md is generated from it)."""


# What Tensor's methods call (core/providers.py names it): every function of this module plus ``getitem``.
TENSOR_METHODS = SimpleNamespace(**{n: v for n, v in globals().items() if not n.startswith("__")},
                                 getitem=_getitem)

__all__ = ["binary", "unary", "true_divide", "clip_by_value", *API]
