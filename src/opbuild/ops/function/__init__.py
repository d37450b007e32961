"""``mindspore.ops.function``: the functional API (every name of :mod:`opbuild.ops.functional`) and the
family modules MindSpore's code and examples reach through it (``ops.function.math_func.float_power_ext``,
``ops.function.random_func.random_``, ``from mindspore.ops.function.nn_func import ...``). MindSpore splits its
functions over these modules by family; opbuild's family modules each give the whole functional API, so a
name is found under whichever family MindSpore files it."""

from __future__ import annotations

from typing import Any

from .. import functional as _functional
from ..functional import *  # noqa: F403
from . import (  # noqa: F401 - the family modules, attributes of this package as in MindSpore
    array_func,
    clip_func,
    image_func,
    linalg_func,
    math_func,
    nn_func,
    random_func,
    sparse_func,
    spectral_func,
)

FAMILIES = ("array_func", "clip_func", "image_func", "linalg_func", "math_func", "nn_func", "random_func",
            "sparse_func", "spectral_func")
"""The family modules of ``mindspore.ops.function`` this package has."""

__all__ = list(_functional.__all__)


def __getattr__(name: str) -> Any:
    # The function transforms (grad, vjp, ...) and stop_gradient, which functional looks up on first use.
    return getattr(_functional, name)
