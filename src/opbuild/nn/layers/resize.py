"""Resizing layers: PixelShuffle (sub-pixel rearrangement, a reshape and a transpose)."""

from __future__ import annotations

from ... import ops
from ...errors import ShapeError
from ...tensor import Tensor
from ..cell import Cell
from ._checks import positive_int


class PixelShuffle(Cell):
    """Rearrange (N, C * r^2, H, W) into (N, C, H * r, W * r), ``r = upscale_factor``:
    ``out[n, c, h * r + i, w * r + j] = x[n, c * r^2 + i * r + j, h, w]``."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = positive_int("PixelShuffle", "upscale_factor", upscale_factor)

    def construct(self, x: Tensor) -> Tensor:
        r = self.upscale_factor
        if x.ndim < 3 or x.shape[-3] % (r * r):
            raise ShapeError("PixelShuffle", f"expects a rank >= 3 input whose channel axis (-3) is divisible "
                                             f"by upscale_factor^2 = {r * r}", [x._type])
        *lead, c, h, w = x.shape
        y = ops.reshape(x, (-1, c // (r * r), r, r, h, w))
        y = ops.transpose(y, (0, 1, 4, 2, 5, 3))
        return ops.reshape(y, (*lead, c // (r * r), h * r, w * r))
