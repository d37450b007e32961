"""Adaptive pooling of ``mindspore.ops``: ``adaptive_avg_pool1d/2d/3d`` and ``adaptive_max_pool1d/2d/3d``.

The window of output index ``i`` along an axis of size ``n`` pooled to ``m`` is ``[floor(i n / m),
ceil((i + 1) n / m))``, so the pooling is separable: it reduces one axis at a time. An axis whose size divides
evenly is one Reshape and one reduction; otherwise each output position is a Slice and a reduction, joined
by a Concat (``m`` small kernels, fine for the small outputs adaptive pooling produces).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .pool_argmax import adaptive_max_nd


def _sizes(fn: str, output_size, dims: int, x: Tensor) -> tuple[int, ...]:
    """``output_size`` as ``dims`` ints (None keeps the input's size)."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        sizes: Sequence = (output_size,) * dims
    elif isinstance(output_size, (tuple, list)) and len(output_size) == dims:
        sizes = output_size
    else:
        raise ValueError(f"{fn}: output_size must be an int or a tuple of {dims} ints, got {output_size!r}")
    out = []
    for k, s in enumerate(sizes):
        s = x.shape[x.ndim - dims + k] if s is None else s
        if isinstance(s, bool) or not isinstance(s, int) or s <= 0:
            raise ValueError(f"{fn}: output_size must hold positive ints (or None), got {output_size!r}")
        out.append(s)
    return tuple(out)


def _pool_axis(x: Tensor, axis: int, m: int, use_max: bool) -> Tensor:
    n = x.shape[axis]
    if n == m:
        return x
    if n % m == 0:
        shape = list(x.shape)
        shape[axis:axis + 1] = [m, n // m]
        y = A.reshape(x, shape)
        return M.amax(y, axis + 1) if use_max else M.mean(y, axis + 1)
    parts = []
    for i in range(m):
        start, end = (i * n) // m, -(-((i + 1) * n) // m)
        begin = [0] * x.ndim
        begin[axis] = start
        size = list(x.shape)
        size[axis] = end - start
        window = apply("Slice", {"begin": begin, "size": size}, [x])
        parts.append(M.amax(window, axis, keepdims=True) if use_max else M.mean(window, axis, keep_dims=True))
    return A.cat(parts, axis)


def adaptive_pool(fn: str, input, output_size, dims: int, use_max: bool) -> Tensor:  # noqa: A002
    """``input``'s last ``dims`` axes pooled (average or max) to ``output_size``; the input has rank
    ``dims + 1`` or ``dims + 2``."""
    x = as_tensor(input)
    if x.ndim not in (dims + 1, dims + 2):
        raise ValueError(f"{fn}: the input must have rank {dims + 1} or {dims + 2}, got shape {x.shape}")
    if not x.dtype.is_float:
        raise TypeError(f"{fn}: the input must be a float Tensor, got {x.dtype}")
    for k, m in enumerate(_sizes(fn, output_size, dims, x)):
        x = _pool_axis(x, x.ndim - dims + k, m, use_max)
    return x


def adaptive_max_with_indices(fn: str, input, output_size, dims: int) -> tuple[Tensor, Tensor]:  # noqa: A002
    """(values, flat indices within each pooled plane or volume) of adaptive max pooling; the indices are
    int64 in 2-D and int32 in 3-D, MindSpore 2.10's dtypes."""
    x = as_tensor(input)
    if x.ndim not in (dims + 1, dims + 2):
        raise ValueError(f"{fn}: the input must have rank {dims + 1} or {dims + 2}, got shape {x.shape}")
    values, index = adaptive_max_nd(fn, x, dims, _sizes(fn, output_size, dims, x))
    return values, (M._cast(index, "int32") if dims == 3 else index)


def adaptive_avg_pool1d(input, output_size: int) -> Tensor:  # noqa: A002
    """``ops.adaptive_avg_pool1d(input, output_size)``: (N, C, L) averaged to (N, C, output_size)."""
    if not isinstance(output_size, int) or isinstance(output_size, bool):
        raise TypeError(f"adaptive_avg_pool1d: output_size must be an int, got {output_size!r}")
    return adaptive_pool("adaptive_avg_pool1d", input, output_size, 1, False)


def adaptive_avg_pool2d(input, output_size) -> Tensor:  # noqa: A002
    """``ops.adaptive_avg_pool2d(input, output_size)``: the last two axes averaged to ``output_size``."""
    return adaptive_pool("adaptive_avg_pool2d", input, output_size, 2, False)


def adaptive_avg_pool3d(input, output_size) -> Tensor:  # noqa: A002
    """``ops.adaptive_avg_pool3d(input, output_size)``: the last three axes averaged to ``output_size``."""
    return adaptive_pool("adaptive_avg_pool3d", input, output_size, 3, False)


def adaptive_max_pool1d(input, output_size: int) -> Tensor:  # noqa: A002
    """``ops.adaptive_max_pool1d(input, output_size)``: (N, C, L) max-pooled to (N, C, output_size)."""
    if not isinstance(output_size, int) or isinstance(output_size, bool):
        raise TypeError(f"adaptive_max_pool1d: output_size must be an int, got {output_size!r}")
    return adaptive_pool("adaptive_max_pool1d", input, output_size, 1, True)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False) -> Tensor:  # noqa: A002
    """``ops.adaptive_max_pool2d(input, output_size, return_indices=False)``: the last two axes max-pooled
    to ``output_size`` (``return_indices``: also the int64 flat index of each maximum)."""
    if return_indices:
        return adaptive_max_with_indices("adaptive_max_pool2d", input, output_size, 2)
    return adaptive_pool("adaptive_max_pool2d", input, output_size, 2, True)


def adaptive_max_pool3d(input, output_size, return_indices: bool = False) -> Tensor:  # noqa: A002
    """``ops.adaptive_max_pool3d(input, output_size, return_indices=False)``: the last three axes max-pooled
    to ``output_size`` (``return_indices``: also the int64 flat index of each maximum)."""
    if return_indices:
        return adaptive_max_with_indices("adaptive_max_pool3d", input, output_size, 3)
    return adaptive_pool("adaptive_max_pool3d", input, output_size, 3, True)


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d"]
