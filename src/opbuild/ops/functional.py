"""``opbuild.ops.functional`` (``import opbuild.ops.functional as F``): the functional API, MindSpore 2.x's
lower-case ``mindspore.ops`` functions, plus the helpers Tensor's operators use (``unary``, ``binary``,
``true_divide``). The functions live in ``ops/api/`` by family; this module only gathers them."""

from __future__ import annotations

from .api import array as _array
from .api import linalg as _linalg
from .api import math as _math
from .api import nn as _nn
from .api import sampling as _sampling
from .api.array import *  # noqa: F403
from .api.base import binary, clip_by_value, true_divide, unary
from .api.linalg import *  # noqa: F403
from .api.math import *  # noqa: F403
from .api.nn import *  # noqa: F403
from .api.sampling import *  # noqa: F403

API: tuple[str, ...] = (*_math.__all__, *_array.__all__, *_nn.__all__, *_linalg.__all__, *_sampling.__all__)
"""The MindSpore functional names this module provides (docs/mindspore-compat.md is generated from it)."""

__all__ = ["binary", "unary", "true_divide", "clip_by_value", *API]
