"""``vmap``: a function of one example mapped over a batch axis of its arguments (MindSpore's ``in_axes`` and
``out_axes``, nested vmaps, Cells and functions alike).

The mapped function runs once per batch element on the slices of the mapped arguments and the results are
stacked along ``out_axes``: the values MindSpore's batching rules give, traced into one graph under
GRAPH_MODE (a jit function or a Cell's construct) like any other Python loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..ops import functional as F


def _check_axes(axes: Any, who: str) -> None:
    if axes is None or (isinstance(axes, int) and not isinstance(axes, bool)):
        return
    if isinstance(axes, (tuple, list)):
        for a in axes:
            _check_axes(a, who)
        return
    raise TypeError(f"vmap: {who} must be an int, None, or a tuple/list of them (nested as the arguments), "
                    f"got {type(axes).__name__}")


def _batch_size(arg: Any, axes: Any, sizes: list[int]) -> None:
    """Collect the batch sizes of the mapped Tensors of ``arg`` (``axes``: its in_axes entry)."""
    if axes is None:
        return
    if isinstance(arg, (tuple, list)):
        sub = axes if isinstance(axes, (tuple, list)) else [axes] * len(arg)
        if len(sub) != len(arg):
            raise ValueError(f"vmap: in_axes {axes!r} does not match an argument of {len(arg)} elements")
        for a, x in zip(arg, sub):
            _batch_size(a, x, sizes)
        return
    if isinstance(axes, (tuple, list)):
        raise ValueError(f"vmap: in_axes {axes!r} is a sequence for an argument that is not one")
    if not isinstance(arg, Tensor):
        raise TypeError(f"vmap: in_axes {axes} maps an argument that is not a Tensor ({type(arg).__name__}); "
                        "give None for it")
    if not -arg.ndim <= axes < arg.ndim:
        raise ValueError(f"vmap: in_axes {axes} is out of range for a Tensor of rank {arg.ndim}")
    sizes.append(arg.shape[axes % arg.ndim])


def _slice(arg: Any, axes: Any, i: int) -> Any:
    if axes is None:
        return arg
    if isinstance(arg, (tuple, list)):
        sub = axes if isinstance(axes, (tuple, list)) else [axes] * len(arg)
        return type(arg)(_slice(a, x, i) for a, x in zip(arg, sub))
    return F.gather(arg, Tensor(np.array(i, np.int64)), axes % arg.ndim)


def _stack(results: list[Any], axes: Any) -> Any:
    first = results[0]
    if isinstance(first, (tuple, list)):
        sub = axes if isinstance(axes, (tuple, list)) else [axes] * len(first)
        if len(sub) != len(first):
            raise ValueError(f"vmap: out_axes {axes!r} does not match an output of {len(first)} elements")
        return type(first)(_stack([r[k] for r in results], sub[k]) for k in range(len(first)))
    if axes is None:
        return first
    if isinstance(axes, (tuple, list)):
        raise ValueError(f"vmap: out_axes {axes!r} is a sequence for an output that is not one")
    first_t = list(results) if isinstance(first, Tensor) else [Tensor(np.asarray(r)) for r in results]
    rank = first_t[0].ndim + 1
    if not -rank <= axes < rank:
        raise ValueError(f"vmap: out_axes {axes} is out of range for an output of rank {rank - 1}")
    return F.stack(first_t, axes % rank)


def vmap(fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> Callable[..., Any]:
    """``fn`` mapped over the axes ``in_axes`` of its arguments (an int for all, None for an unmapped argument,
    a tuple with one entry per argument, nested like a tuple argument), its outputs stacked along
    ``out_axes`` (same forms, per output). Every mapped axis must have the same size."""
    if not callable(fn):
        raise TypeError(f"vmap: fn must be a Cell or a function, got {type(fn).__name__}")
    _check_axes(in_axes, "in_axes")
    _check_axes(out_axes, "out_axes")

    def mapped(*args: Any) -> Any:
        axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(axes)} entries for {len(args)} arguments")
        sizes: list[int] = []
        for a, x in zip(args, axes):
            _batch_size(a, x, sizes)
        if not sizes:
            raise ValueError("vmap: in_axes maps no argument (at least one must not be None)")
        if len(set(sizes)) != 1:
            raise ValueError(f"vmap: the mapped axes have different sizes {sizes}")
        results = [fn(*(_slice(a, x, i) for a, x in zip(args, axes))) for i in range(sizes[0])]
        return _stack(results, out_axes)

    return mapped
