"""``opbuild.numpy``: MindSpore's NumPy-style API (``import mindspore.numpy as mnp`` under the import alias).

NumPy's names with MindSpore 2.10's signatures, defaults and dtype rules (Python ints are int32 and floats
float32; reductions of integers keep their dtype; indices are int32), operating on opbuild tensors. Every
function is a composition of opbuild's ops, so it runs eagerly (PYNATIVE_MODE) and traces inside a GRAPH_MODE
``construct`` or an ``@jit`` function; only the creation functions turn Python data into constants. The
functions whose output length depends on the values (``unique``, ``argwhere``, the set functions, ``bincount``
without ``length``) need concrete values. See docs/numpy.md for what is covered.
"""

from __future__ import annotations

import numpy as _np

from ..core import dtypes as _dt
from . import creation, elementwise, indexing, joining, logic, misc, products, reductions, shapes, statistics
from .creation import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .indexing import *  # noqa: F403
from .joining import *  # noqa: F403
from .logic import *  # noqa: F403
from .misc import *  # noqa: F403
from .products import *  # noqa: F403
from .reductions import *  # noqa: F403
from .shapes import *  # noqa: F403
from .statistics import *  # noqa: F403

# The dtype names of MindSpore's NumPy layer (the very DType objects of mindspore's top level).
bool_ = _dt.bool_
int8, int16, int32, int64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
uint8, uint16, uint32, uint64 = _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64
float16, float32, float64 = _dt.float16, _dt.float32, _dt.float64
# Its defaults are 32-bit: the generic int and float are int32 and float32.
int_ = _dt.int32
float_ = _dt.float32

# The constants MindSpore's NumPy layer has (not NumPy's e, euler_gamma or newaxis).
pi = _np.pi
inf = _np.inf
nan = _np.nan
PINF = _np.inf
NINF = -_np.inf

_DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
           "float64", "int_", "float_"]

__all__ = [*creation.__all__, *elementwise.__all__, *indexing.__all__, *joining.__all__, *logic.__all__,
           *misc.__all__, *products.__all__, *reductions.__all__, *shapes.__all__, *statistics.__all__, *_DTYPES]
