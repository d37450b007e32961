"""``nn.Pad``: MindSpore's padding layer (CONSTANT with zeros, REFLECT and SYMMETRIC), the non-constant modes as
one Gather per padded axis with constant indices (NumPy's ``np.pad`` index rules), so they trace and cache as
ordinary kernels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor
from ...ops.primitive import apply
from ..cell import Cell

_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


class Pad(Cell):
    """``nn.Pad(paddings, mode='CONSTANT')``: ``paddings`` is one (before, after) pair per leading dimension
    of the input (the remaining dimensions are not padded); CONSTANT pads with zeros, REFLECT mirrors without
    repeating the edge, SYMMETRIC mirrors repeating it."""

    def __init__(self, paddings: Sequence[Sequence[int]], mode: str = "CONSTANT") -> None:
        super().__init__()
        if not isinstance(mode, str) or mode.upper() not in _MODES:
            raise ValueError(f"Pad: mode must be one of {', '.join(_MODES)}, got {mode!r}")
        pairs = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 or p[0] < 0 or p[1] < 0 for p in pairs):
            raise ValueError(f"Pad: paddings must be non-negative (before, after) pairs, got {paddings!r}")
        self.paddings = pairs
        self.mode = mode.upper()

    def construct(self, x: Tensor) -> Tensor:
        if len(self.paddings) > x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} padding pairs for an input of rank {x.ndim}")
        pairs = [list(p) for p in self.paddings] + [[0, 0]] * (x.ndim - len(self.paddings))
        if self.mode == "CONSTANT":
            return apply("Pad", {"paddings": pairs}, [x])
        np_mode = "reflect" if self.mode == "REFLECT" else "symmetric"
        for axis, (before, after) in enumerate(pairs):
            if before == after == 0:
                continue
            n = x.shape[axis]
            limit = n - 1 if self.mode == "REFLECT" else n
            if before > limit or after > limit:
                raise ValueError(f"Pad: {self.mode} padding of axis {axis} must be at most {limit} (its size "
                                 f"{n}{' - 1' if self.mode == 'REFLECT' else ''}), got {(before, after)}")
            index = np.pad(np.arange(n, dtype=np.int64), (before, after), mode=np_mode)
            x = apply("Gather", {"axis": axis}, [x, Tensor(index)])
        return x
