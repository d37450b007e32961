"""``mindspore.numpy`` shape and axis manipulation: reshape/ravel, transpose and axis moves, squeeze/expand,
broadcasting, ``atleast_*``, flips, rolls and rotations, and ``size``. Compositions of opbuild's ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import norm_axes, norm_axis, shape_tuple, to_tensor

__all__ = ["reshape", "ravel", "transpose", "moveaxis", "swapaxes", "rollaxis", "squeeze", "expand_dims",
           "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud",
           "roll", "rot90", "size"]


def reshape(x: Any, new_shape: Any) -> Tensor:
    """``mindspore.numpy.reshape``: ``x`` in ``new_shape`` (one dimension may be -1)."""
    return F.reshape(to_tensor(x), shape_tuple(new_shape))


def ravel(x: Any) -> Tensor:
    """``mindspore.numpy.ravel``: ``x`` flattened to 1-d."""
    return F.reshape(to_tensor(x), (-1,))


def transpose(a: Any, axes: Any = None) -> Tensor:
    """``mindspore.numpy.transpose``: ``a`` with its axes permuted (reversed for None)."""
    t = to_tensor(a)
    if axes is None:
        perm = tuple(range(t.ndim))[::-1]
    else:
        perm = tuple(norm_axis(x, t.ndim) for x in axes)
        if sorted(perm) != list(range(t.ndim)):
            raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of {t.ndim} axes")
    return F.transpose(t, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Tensor:
    """``mindspore.numpy.moveaxis``: axes ``source`` moved to ``destination`` (ints or sequences)."""
    t = to_tensor(a)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    src = [norm_axis(s, t.ndim, "source") for s in src]
    dst = [norm_axis(d, t.ndim, "destination") for d in dst]
    order = [i for i in range(t.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return F.transpose(t, tuple(order))


def swapaxes(x: Any, axis1: int, axis2: int) -> Tensor:
    """``mindspore.numpy.swapaxes``: axes ``axis1`` and ``axis2`` exchanged."""
    t = to_tensor(x)
    perm = list(range(t.ndim))
    i, j = norm_axis(axis1, t.ndim), norm_axis(axis2, t.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return F.transpose(t, tuple(perm))


def rollaxis(x: Any, axis: int, start: int = 0) -> Tensor:
    """``mindspore.numpy.rollaxis``: ``axis`` moved to before position ``start``."""
    t = to_tensor(x)
    ax = norm_axis(axis, t.ndim)
    if not -t.ndim <= start <= t.ndim:
        raise ValueError(f"rollaxis: start={start} is out of range for {t.ndim} axes")
    start = start % (t.ndim + 1) if start < 0 else start
    if ax < start:
        start -= 1
    order = [i for i in range(t.ndim) if i != ax]
    order.insert(start, ax)
    return F.transpose(t, tuple(order))


def squeeze(a: Any, axis: Any = None) -> Tensor:
    """``mindspore.numpy.squeeze``: length-1 axes removed (those of ``axis``, or all)."""
    t = to_tensor(a)
    if axis is None:
        return F.reshape(t, tuple(s for s in t.shape if s != 1))
    axes = norm_axes(axis, t.ndim)
    for ax in axes:
        if t.shape[ax] != 1:
            raise ValueError(f"squeeze: axis {ax} has length {t.shape[ax]}, not 1")
    return F.reshape(t, tuple(s for i, s in enumerate(t.shape) if i not in axes))


def expand_dims(a: Any, axis: Any) -> Tensor:
    """``mindspore.numpy.expand_dims``: a length-1 axis inserted at ``axis`` (an int or a tuple)."""
    t = to_tensor(a)
    axes = [axis] if isinstance(axis, int) else list(axis)
    nd = t.ndim + len(axes)
    pos = sorted(norm_axis(x, nd) for x in axes)
    shape = list(t.shape)
    for p in pos:
        shape.insert(p, 1)
    return F.reshape(t, tuple(shape))


def broadcast_to(array: Any, shape: Any) -> Tensor:
    """``mindspore.numpy.broadcast_to``: ``array`` broadcast to ``shape``."""
    return F.broadcast_to(to_tensor(array), shape_tuple(shape))


def broadcast_arrays(*args: Any) -> list[Tensor]:
    """``mindspore.numpy.broadcast_arrays``: every argument broadcast to their common shape (a list)."""
    ts = [to_tensor(a) for a in args]
    shape = tuple(np.broadcast_shapes(*[t.shape for t in ts]))
    return [F.broadcast_to(t, shape) for t in ts]


def _atleast(arys: tuple, nd: int, where) -> Any:
    out = []
    for a in arys:
        t = to_tensor(a)
        if t.ndim < nd:
            t = F.reshape(t, where(t.shape))
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys: Any):
    """``mindspore.numpy.atleast_1d``: each input with at least one axis (a list for several)."""
    return _atleast(arys, 1, lambda s: s or (1,))


def atleast_2d(*arys: Any):
    """``mindspore.numpy.atleast_2d``: each input with at least two axes (a 1-d input becomes a row)."""
    return _atleast(arys, 2, lambda s: (1, 1) if not s else (1,) + s)


def atleast_3d(*arys: Any):
    """``mindspore.numpy.atleast_3d``: each input with at least three axes ((N,) is (1, N, 1), (M, N) is
    (M, N, 1))."""
    return _atleast(arys, 3, lambda s: (1, 1, 1) if not s else ((1,) + s + (1,) if len(s) == 1 else s + (1,)))


def flip(m: Any, axis: Any = None) -> Tensor:
    """``mindspore.numpy.flip``: the order of elements reversed along ``axis`` (all axes for None)."""
    t = to_tensor(m)
    axes = norm_axes(axis, t.ndim)
    return F.flip(t, axes) if axes else t


def fliplr(m: Any) -> Tensor:
    """``mindspore.numpy.fliplr``: reversed along axis 1."""
    t = to_tensor(m)
    if t.ndim < 2:
        raise ValueError("fliplr needs a tensor of at least 2 dimensions")
    return F.flip(t, (1,))


def flipud(m: Any) -> Tensor:
    """``mindspore.numpy.flipud``: reversed along axis 0."""
    t = to_tensor(m)
    if t.ndim < 1:
        raise ValueError("flipud needs a tensor of at least 1 dimension")
    return F.flip(t, (0,))


def roll(a: Any, shift: Any, axis: Any = None) -> Tensor:
    """``mindspore.numpy.roll``: elements shifted by ``shift`` along ``axis`` (over the flattened input for
    None), wrapping around."""
    t = to_tensor(a)
    if axis is None:
        return F.reshape(F.roll(F.reshape(t, (-1,)), int(shift), 0), t.shape)
    shifts = [shift] if isinstance(shift, int) else list(shift)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis need the same length")
    for s, ax in zip(shifts, axes):
        t = F.roll(t, int(s), norm_axis(ax, t.ndim))
    return t


def rot90(a: Any, k: int = 1, axes: Any = (0, 1)) -> Tensor:
    """``mindspore.numpy.rot90``: rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    t = to_tensor(a)
    if len(axes) != 2:
        raise ValueError("rot90: axes must name two axes")
    a0, a1 = norm_axis(axes[0], t.ndim), norm_axis(axes[1], t.ndim)
    if a0 == a1:
        raise ValueError("rot90: the two axes must differ")
    k %= 4
    if k == 0:
        return t
    if k == 2:
        return F.flip(t, (a0, a1))
    perm = list(range(t.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return F.transpose(F.flip(t, (a1,)), tuple(perm))
    return F.flip(F.transpose(t, tuple(perm)), (a1,))


def size(a: Any, axis: int | None = None) -> int:
    """``mindspore.numpy.size``: the number of elements (along ``axis`` when given)."""
    t = to_tensor(a)
    if axis is None:
        return int(np.prod(t.shape, dtype=np.int64))
    return t.shape[norm_axis(axis, t.ndim)]

