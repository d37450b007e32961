"""``mindspore.mint``: MindSpore 2.x's torch-style function namespace; every public name of MindSpore 2.10's
``mint``, ``mint.nn``, ``mint.nn.functional``, ``mint.linalg``, ``mint.special`` and ``mint.optim`` (not
``mint.distributed``).

The functions whose MindSpore 2.10 signature is the one of the ``ops`` function of the same name (same
parameter names, order and defaults) are those functions (``mint.exp is ops.exp``). Written here: the
reductions with torch-style keywords (``std``, ``var``, ``std_mean``, ``var_mean``: ``dim``, ``correction``,
``keepdim``), the torch-spelled reductions, joins and overloads of ``torch_style.py`` (``sum``, ``max``, ``cat``,
``sort``, ...) and of ``more_fns.py`` (``argsort``, ``median``, ``scatter_add``, ...), the creation functions
with a keyword-only ``dtype`` (``ones``, ``zeros``) and ``equal`` (one bool for the whole tensors, as torch's).
``random_fns.py`` has the random creation functions (``rand``, ``randn``, ``randint``, ...), ``extra_fns.py``
more torch-style functions (``addbmm``, ``cdist``, ``index_add``, ``kthvalue``, ``norm``, ``bernoulli``, ...),
``linalg``, ``special`` and ``optim`` MindSpore's submodules of those names; ``mint.nn`` has the torch-style
layers and ``functional``. A name MindSpore's ``mint`` lacks raises AttributeError naming it. Many of these
names have no CPU kernel in MindSpore 2.10 itself (``mint.std``, ``mint.acos``, ``mint.nn.Conv2d``, ...:
Ascend only); opbuild computes them.
"""

from __future__ import annotations

import numbers
from typing import Any

from .. import ops as _ops
from ..core.tensor import Tensor
from . import distributed, extra_fns, linalg, more_fns, nn, optim, random_fns, special, torch_style
from .extra_fns import *  # noqa: F403 - addbmm, cdist, index_add, kthvalue, norm, triangular_solve, ...
from .more_fns import *  # noqa: F403 - argsort, cummax, median, meshgrid, scatter_add, ...
from .random_fns import *  # noqa: F403 - rand, randn, randint, normal, randperm, rand_like, randn_like
from .torch_style import *  # noqa: F403 - the torch-spelled wrappers (sum, max, cat, ...)

# The ops functions whose MindSpore 2.10 mint counterpart has the same signature (checked by
# tests/compat/test_missing_names.py against MindSpore's recorded results).
SAME_AS_OPS: tuple[str, ...] = (
    "abs", "acos", "acosh", "addmm", "addmv", "arccos", "arccosh", "arcsinh", "arctan", "arctan2", "arctanh",
    "asin", "asinh", "atan", "atan2", "atanh", "baddbmm", "bitwise_and", "bitwise_or", "bitwise_xor",
    "broadcast_to", "ceil", "cos", "cosh", "dot", "einsum", "erf", "erfc", "exp", "exp2", "expm1", "flip",
    "float_power", "floor", "frac", "gcd", "greater", "gt", "hstack", "inverse", "isfinite", "isinf", "isneginf",
    "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "masked_select", "matmul", "maximum", "minimum", "mm", "neg", "negative",
    "not_equal", "outer", "polar", "pow", "ravel", "reciprocal", "roll", "rsqrt", "sigmoid", "sign", "sin", "sinh",
    "square", "swapaxes", "tan", "tanh", "tile", "trace", "trunc", "unsqueeze")

globals().update({_n: getattr(_ops, _n)
                 for _n in (*SAME_AS_OPS, *torch_style.SAME_FORM, *more_fns.ALIASES)})


def _moments(name: str, input: Any, dim: Any, correction: Any) -> tuple[Tensor, Any, int]:  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"mint.{name}: input must be a Tensor, got {type(input).__name__}")
    if not input.dtype.is_float:
        raise TypeError(f"mint.{name}: input must be float16, float32 or bfloat16 (as MindSpore's), got "
                        f"{input.dtype.name}; cast it first")
    if isinstance(correction, bool) or not isinstance(correction, numbers.Integral):
        raise TypeError(f"mint.{name}: correction must be an int, got {correction!r}")
    return input, torch_style._dim(name, dim), int(correction)


def var(input: Any, dim: Any = None, *, correction: int = 1, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.var(input, dim=None, *, correction=1, keepdim=False)``: the variance over ``dim`` (None: every
    axis), the sum of squared deviations divided by N - ``correction``."""
    x, axes, ddof = _moments("var", input, dim, correction)
    return _ops.var(x, axes, ddof, bool(keepdim))


def std(input: Any, dim: Any = None, *, correction: int = 1, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.std(input, dim=None, *, correction=1, keepdim=False)``: the square root of :func:`var`."""
    x, axes, ddof = _moments("std", input, dim, correction)
    return _ops.std(x, axes, ddof, bool(keepdim))


def var_mean(input: Any, dim: Any = None, *, correction: int = 1,  # noqa: A002
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """``mint.var_mean(input, dim=None, *, correction=1, keepdim=False)``: (:func:`var`, mean) over ``dim``."""
    x, axes, ddof = _moments("var_mean", input, dim, correction)
    return _ops.var_mean(x, axes, ddof, bool(keepdim))


def std_mean(input: Any, dim: Any = None, *, correction: int = 1,  # noqa: A002
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """``mint.std_mean(input, dim=None, *, correction=1, keepdim=False)``: (:func:`std`, mean) over ``dim``."""
    x, axes, ddof = _moments("std_mean", input, dim, correction)
    return _ops.std_mean(x, axes, ddof, bool(keepdim))


def equal(input: Any, other: Any) -> bool:  # noqa: A002
    """``mint.equal(input, other)``: whether the two tensors have the same shape and equal elements (one
    Python bool, unlike the elementwise ``ops.equal``)."""
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"mint.equal: {name} must be a Tensor, got {type(t).__name__}")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(_ops.equal(input, other).asnumpy().all())


def ones(size: Any, *, dtype: Any = None) -> Tensor:
    """``mint.ones(size, *, dtype=None)``: ones of ``size`` (an int or a tuple/list of ints; dtype None:
    float32)."""
    return _ops.ones(size, dtype)


def zeros(size: Any, *, dtype: Any = None) -> Tensor:
    """``mint.zeros(size, *, dtype=None)``: zeros of ``size`` (dtype None: float32)."""
    return _ops.zeros(size, dtype)


__all__ = ["nn", "linalg", "optim", "special", "distributed", *extra_fns.__all__, *random_fns.__all__, *SAME_AS_OPS,
           *torch_style.SAME_FORM, *torch_style.__all__, *more_fns.ALIASES, *more_fns.__all__, "equal", "var",
           "std", "var_mean", "std_mean", "ones", "zeros"]
