"""``opbuild.ops.composite`` (``import opbuild.ops.composite as C``): MindSpore's path of the composite
operations: ``GradOperation`` (autograd.py), ``Map``, ``HyperMap`` and ``MultitypeFuncGraph``
(ops/control_prims.py), and the composite functions opbuild has (``zeros_like``, ``ones_like``, the random
samplers, ``matmul``, ...), which are the functional API's (a missing one raises AttributeError)."""

from __future__ import annotations

from typing import Any

from ..autograd import GradOperation
from . import functional as _functional
from .control_prims import HyperMap, Map, MultitypeFuncGraph

__all__ = ["GradOperation", "Map", "HyperMap", "MultitypeFuncGraph", "add_flags"]


def add_flags(fn: Any = None, **flags: bool) -> Any:
    """MindSpore's ``add_flags(fn=None, **flags)``: merge the bool ``flags`` into ``fn._func_graph_flags`` (hints
    for MindSpore's graph compiler, which opbuild keeps and does not read) and return ``fn``; without ``fn``, a
    decorator doing so."""
    bad = {k: v for k, v in flags.items() if not isinstance(v, bool)}
    if bad:
        raise TypeError(f"add_flags: flag values must be bools, got {bad}")

    def deco(target: Any) -> Any:
        target._func_graph_flags = {**getattr(target, "_func_graph_flags", {}), **flags}
        return target

    return deco if fn is None else deco(fn)

# MindSpore's composite functions that are also functional-API names (those opbuild has).
_FUNCTIONS = ("zeros_like", "ones_like", "normal", "laplace", "uniform", "gamma", "poisson", "multinomial",
              "cummin", "repeat_elements", "repeat_interleave", "sequence_mask", "matmul", "mm", "count_nonzero",
              "tensor_dot", "vecdot", "dot", "batch_dot", "clip_by_global_norm", "clip_by_value")


def __getattr__(name: str) -> Any:
    if name in _FUNCTIONS and hasattr(_functional, name):
        return getattr(_functional, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
