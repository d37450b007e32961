"""``nn.TimeDistributed``: apply a layer to every time step of its input, either step by step (the steps split
along ``time_axis``, the results stacked there) or at once with the time axis merged into
``reshape_with_axis`` (one call of the layer; the output keeps the merged order of axes, as MindSpore's does)."""

from __future__ import annotations

from ...core.tensor import Tensor
from ...ops.api import array as A
from ..cell import Cell


def _move(perm_len: int, a: int, b: int) -> tuple[int, ...]:
    """The permutation that puts axis ``max(a, b)`` at position ``min(a, b)``, shifting those between."""
    lo, hi = min(a, b), max(a, b)
    axes = list(range(perm_len))
    return tuple(axes[:lo] + [hi] + axes[lo:hi] + axes[hi + 1:])


class TimeDistributed(Cell):
    """``TimeDistributed(layer, time_axis, reshape_with_axis=None)(inputs)``: ``layer`` (a Cell or primitive
    returning a Tensor) applied to each slice along ``time_axis``. With ``reshape_with_axis`` the time axis is
    first brought next to that axis and merged with it, the layer runs once, and the merged axis is split
    again (leading size inferred)."""

    def __init__(self, layer, time_axis: int, reshape_with_axis: int | None = None) -> None:
        if not callable(layer):
            raise TypeError(f"TimeDistributed: layer must be a Cell or a primitive, got {type(layer).__name__}")
        super().__init__()
        for name, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"TimeDistributed: {name} must be an int, got {v!r}")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs: Tensor) -> Tensor:
        if not isinstance(inputs, Tensor) or inputs.ndim < 3:
            raise ValueError("TimeDistributed: the input must be a Tensor of rank >= 3")
        nd = inputs.ndim
        t = self.time_axis % nd
        if self.reshape_with_axis is None:
            steps = [A.squeeze(s, t) for s in A.split(inputs, 1, t)]
            return A.stack([self._layer_call(s) for s in steps], t)
        r = self.reshape_with_axis % nd
        t_new = nd - 2 if r == nd - 1 else (r + 1 if t > r else r - 1)
        pos = min(t_new, r)
        x = A.transpose(inputs, _move(nd, t_new, t))
        merged = A.reshape(x, (*x.shape[:pos], -1, *x.shape[pos + 2:]))
        y = self._layer_call(merged)
        if y.ndim <= pos:
            raise ValueError(f"TimeDistributed: the layer's output (rank {y.ndim}) lost the merged axis {pos}")
        return A.reshape(y, (-1, *((*y.shape[:pos], *x.shape[pos:pos + 2], *y.shape[pos + 1:])[1:])))

    def _layer_call(self, x: Tensor) -> Tensor:
        y = self.layer(x)
        if not isinstance(y, Tensor):
            raise TypeError("TimeDistributed: the layer must return a Tensor")
        return y


__all__ = ["TimeDistributed"]
