"""Padding by mode, shared by ``ops.pad`` and the ``nn`` padding layers (ZeroPad2d, ConstantPad1d/2d/3d,
ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d).

'constant' is the Pad primitive (plus a mask for a non-zero value); 'reflect' (mirror without the edge),
'replicate' (repeat the edge) and 'circular' (wrap around) are one Gather per padded axis with constant indices
(NumPy's ``np.pad`` index rules), so they trace, cache and differentiate as ordinary kernels. Negative padding
crops (a Slice), as MindSpore's and PyTorch's do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import math as M

MODES = ("constant", "reflect", "replicate", "circular")
_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def torch_order_pairs(fn: str, padding: Sequence[int], rank: int) -> list[list[int]]:
    """(before, after) for every axis from PyTorch-ordered ``padding`` (left, right of the last axis first,
    then the axis before, ...)."""
    if isinstance(padding, (tuple, list)) and any(isinstance(v, (tuple, list)) for v in padding):
        # Nested (before, after) pairs are the Pad primitive's layout, not ops.pad's (mindcv's volo passes them).
        raise TypeError(f"{fn}: padding must be a flat tuple or list of ints (left, right of the last axis "
                        f"first, then the axis before, ...), got {padding!r}; for per-axis (before, after) "
                        f"pairs use ops.Pad(paddings)")
    pads = [int(v) for v in padding]
    if len(pads) % 2 or len(pads) // 2 > rank:
        raise ValueError(f"{fn}: padding must hold (before, after) pairs for at most {rank} axes, got "
                         f"{tuple(padding)}")
    pairs = [[0, 0] for _ in range(rank)]
    for i in range(len(pads) // 2):
        pairs[rank - 1 - i] = [pads[2 * i], pads[2 * i + 1]]
    return pairs


def _crop(x: Tensor, pairs: list[list[int]]) -> tuple[Tensor, list[list[int]]]:
    """x with every negative padding applied as a crop; the pairs left are non-negative."""
    if not any(v < 0 for p in pairs for v in p):
        return x, pairs
    begin = [max(-b, 0) for b, _ in pairs]
    size = [n - max(-b, 0) - max(-a, 0) for n, (b, a) in zip(x.shape, pairs, strict=True)]
    if any(s <= 0 for s in size):
        raise ValueError(f"pad: negative padding {pairs} would leave nothing of shape {x.shape}")
    return apply("Slice", {"begin": begin, "size": size}, [x]), [[max(b, 0), max(a, 0)] for b, a in pairs]


def pad_pairs(fn: str, x: Tensor, pairs: list[list[int]], mode: str = "constant", value: float | None = None
              ) -> Tensor:
    """``x`` padded by (before, after) ``pairs`` (one per axis) in ``mode``; the 'constant' border is
    ``value`` (None: 0)."""
    if mode not in MODES:
        raise ValueError(f"{fn}: mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    x, pairs = _crop(x, pairs)
    if mode == "constant":
        out = apply("Pad", {"paddings": pairs}, [x])
        if value is None or value == 0:
            return out
        # Pad writes zeros; the border gets `value` through a padded mask (True inside, False on the border).
        # The value takes x's dtype, as MindSpore 2.10 casts it (int32 with 2.5 pads 2, bool with 2 pads True).
        inside = apply("Pad", {"paddings": pairs}, [apply("OnesLike", {}, [apply("Cast", {"dtype": "bool"}, [x])])])
        fill = Tensor(np.asarray(value).astype(x.dtype.np_dtype))
        return M.where(inside, out, fill)
    for axis, (before, after) in enumerate(pairs):
        if before == after == 0:
            continue
        n = x.shape[axis]
        limit = n - 1 if mode == "reflect" else (n if mode == "circular" else None)
        if limit is not None and (before > limit or after > limit):
            raise ValueError(f"{fn}: {mode} padding of axis {axis} must be at most {limit} (the axis has size {n}), "
                             f"got {(before, after)}")
        index = np.pad(np.arange(n, dtype=np.int64), (before, after), mode=_NP_MODE[mode])
        x = apply("Gather", {"axis": axis}, [x, Tensor(index)])
    return x


def pad_last(fn: str, input_x, padding: Sequence[int], mode: str = "constant", value: float | None = None
             ) -> Tensor:
    """``input_x`` padded by PyTorch-ordered ``padding`` of its last axes (see :func:`torch_order_pairs`)."""
    x = as_tensor(input_x)
    return pad_pairs(fn, x, torch_order_pairs(fn, padding, x.ndim), mode, value)
