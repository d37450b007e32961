"""Fractional max pooling of ``mindspore.ops``: ``fractional_max_pool2d`` and ``fractional_max_pool3d``
(the primitives ``FractionalMaxPoolWithFixedKsize`` / ``FractionalMaxPool3DWithFixedKsize`` use them too).

Each (n, c) plane has one random sample ``u`` in [0, 1) per pooled axis; the windows of an axis of size
``n`` pooled with kernel ``k`` to ``m`` outputs start at ``int((i + u) a) - int(u a)`` for ``i < m - 1``
with ``a = (n - k) / (m - 1)``, and the last at ``n - k`` (computed in float32, as the kernels do). Which
sample drives which axis follows MindSpore's CPU kernels: in 2-D the first drives the width and the second
the height; in 3-D they go depth, height, width. The windows become a per-plane table of the windowed-argmax
composition (pool_argmax), so the values' gradient reaches each window's maximum.

The samples are read when the call is built (a Tensor, a NumPy array, or drawn here; in GRAPH_MODE the graph
breaks there when they are a graph input).
Drawn samples come from NumPy's generator seeded by ``set_seed`` and the op's creation number (op_seed):
repeatable, but not MindSpore's bit stream (tests compare given samples exactly and drawn ones by property).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.init_values import op_seed
from ...core.tensor import Tensor, as_tensor
from . import array as A
from .pool_argmax import max_by_table, mean_by_table, window_table


def _tuple(fn: str, name: str, v, dims: int, kind: type) -> tuple:
    t = (v,) * dims if isinstance(v, (int, float)) and not isinstance(v, bool) else tuple(v)
    if len(t) != dims or not all(isinstance(a, (int, float, np.number)) and not isinstance(a, bool) for a in t):
        raise ValueError(f"{fn}: {name} must be a number or {dims} of them, got {v!r}")
    return tuple(kind(a) for a in t)


def starts(u: np.float32, n: int, k: int, m: int) -> np.ndarray:
    """The ``m`` window starts of one axis for sample ``u`` (the module docstring's formula, in float32)."""
    out = np.empty(m, np.int64)
    if m > 1:
        alpha = np.float32(n - k) / np.float32(m - 1)
        for i in range(m - 1):
            out[i] = int(np.float32(np.float32(i) + u) * alpha) - int(np.float32(u * alpha))
    out[m - 1] = n - k
    return out


def _samples(fn: str, samples, planes: tuple[int, int], dims: int) -> np.ndarray:
    if samples is None:
        return np.random.default_rng(op_seed()).random((*planes, dims), dtype=np.float32)
    s = as_tensor(samples)
    try:
        arr = s.asnumpy()
    except RuntimeError as exc:
        raise ValueError(f"{fn}: _random_samples must be a constant (its values place the windows when the "
                         "call is built); pass a Tensor created outside the traced function") from exc
    if arr.shape != (*planes, dims):
        raise ValueError(f"{fn}: _random_samples must have shape {(*planes, dims)}, got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.floating) or arr.min(initial=0.0) < 0 or arr.max(initial=0.0) >= 1:
        raise ValueError(f"{fn}: _random_samples must be floats in [0, 1)")
    return arr.astype(np.float32)


def fractional_max_pool(fn: str, input, dims: int, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                        return_indices: bool = False, _random_samples=None):
    """Fractional max pooling of the last ``dims`` axes of an input of rank ``dims + 1`` or ``dims + 2``."""
    x = as_tensor(input)
    if x.ndim not in (dims + 1, dims + 2):
        raise ValueError(f"{fn}: the input must have rank {dims + 1} or {dims + 2}, got shape {x.shape}")
    if x.ndim == dims + 1:
        out = fractional_max_pool(fn, A.expand_dims(x, 0), dims, kernel_size, output_size, output_ratio,
                                  return_indices, _random_samples)
        return tuple(A.squeeze(o, 0) for o in out) if return_indices else A.squeeze(out, 0)
    sizes = tuple(x.shape[2:])
    k = _tuple(fn, "kernel_size", kernel_size, dims, int)
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"{fn}: give exactly one of output_size and output_ratio")
    if output_size is not None:
        outs: Sequence[int] = _tuple(fn, "output_size", output_size, dims, int)
    else:
        ratio = _tuple(fn, "output_ratio", output_ratio, dims, float)
        if not all(0 < r < 1 for r in ratio):
            raise ValueError(f"{fn}: output_ratio must be in (0, 1), got {output_ratio!r}")
        outs = tuple(int(n * r) for n, r in zip(sizes, ratio, strict=True))
    for n, kk, m in zip(sizes, k, outs, strict=True):
        if kk < 1 or m < 1 or m + kk - 1 > n:
            raise ValueError(f"{fn}: output_size {tuple(outs)} plus kernel_size {k} - 1 must fit the input "
                             f"{sizes} (and both be positive)")
    planes = (x.shape[0], x.shape[1])
    u = _samples(fn, _random_samples, planes, dims)
    order = (1, 0) if dims == 2 else (0, 1, 2)  # which sample drives which axis (see the module docstring)
    tables = np.empty((*planes, int(np.prod(outs)), int(np.prod(k))), np.int64)
    for a in range(planes[0]):
        for b in range(planes[1]):
            axes = [starts(u[a, b, order[i]], sizes[i], k[i], outs[i])[:, None] + np.arange(k[i])[None, :]
                    for i in range(dims)]
            tables[a, b] = window_table(sizes, axes)
    values, index = max_by_table(fn, x, dims, tables, outs)
    return (values, index) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices: bool = False, _random_samples=None):
    """``ops.fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: max over pseudo-randomly placed ``kernel_size`` windows of
    (N, C, H, W) or (C, H, W), to ``output_size`` or ``int(H * ratio)``; ``_random_samples`` (N, C, 2) in
    [0, 1). ``return_indices`` also gives the int64 flat index of each maximum in its plane."""
    return fractional_max_pool("fractional_max_pool2d", input, 2, kernel_size, output_size, output_ratio,
                               return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices: bool = False, _random_samples=None):
    """``ops.fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
    return_indices=False, _random_samples=None)``: the 3-D form of ``fractional_max_pool2d`` over
    (N, C, D, H, W) or (C, D, H, W), ``_random_samples`` (N, C, 3)."""
    return fractional_max_pool("fractional_max_pool3d", input, 3, kernel_size, output_size, output_ratio,
                               return_indices, _random_samples)



def pooling_sequence(n: int, m: int, pseudo_random: bool, rng: np.random.Generator) -> np.ndarray:
    """The ``m + 1`` window boundaries of MindSpore's (TensorFlow's) ``FractionalMaxPool`` along an axis of
    ``n``: random, ``m`` steps of ``n // m`` with ``n % m`` of them one longer, shuffled; pseudo-random,
    ``ceil(a (i + u))`` for ``a = n / m`` and one ``u`` drawn below the bound that keeps every step within
    ``n // m`` and ``n // m + 1`` (Graham's construction)."""
    if pseudo_random:
        alpha, k = n / m, n // m
        u = rng.random() * min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
        cum = np.array([1] + [int(np.ceil(alpha * (i + u))) for i in range(1, m)] + [n + 1], np.int64)
        diff = np.diff(cum)
    else:
        diff = np.full(m, n // m, np.int64)
        diff[:n % m] += 1
        rng.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def sequence_windows(seq: np.ndarray, n: int, overlapping: bool) -> np.ndarray:
    """(m, longest) positions of the windows ``[seq[i], seq[i + 1])`` (one more with ``overlapping``, never
    past the axis), -1 filling the shorter ones."""
    ends = [min(int(seq[i + 1]) + int(overlapping), n) for i in range(len(seq) - 1)]
    width = max(e - int(b) for b, e in zip(seq[:-1], ends, strict=True))
    pos = np.full((len(ends), width), -1, np.int64)
    for i, (b, e) in enumerate(zip(seq[:-1], ends, strict=True)):
        pos[i, :e - int(b)] = np.arange(int(b), e)
    return pos


def fractional_pool_nhwc(fn: str, x, ratio, pseudo_random: bool, overlapping: bool, rng: np.random.Generator,
                         use_max: bool) -> tuple[Tensor, Tensor, Tensor]:
    """MindSpore's ``FractionalMaxPool``/``FractionalAvgPool`` of an NHWC input: (y, row boundaries, column
    boundaries), the same windows for every image and channel."""
    t = as_tensor(x)
    r = [float(v) for v in ratio]
    if t.ndim != 4:
        raise ValueError(f"{fn}: x must be 4-D (N, H, W, C), got shape {t.shape}")
    if len(r) != 4 or r[0] != 1.0 or r[3] != 1.0 or min(r[1:3]) < 1.0:
        raise ValueError(f"{fn}: pooling_ratio must be [1.0, row >= 1.0, col >= 1.0, 1.0], got {ratio!r}")
    _, h, w, _ = t.shape
    outs = (int(h / r[1]), int(w / r[2]))
    if min(outs) < 1:
        raise ValueError(f"{fn}: pooling_ratio {ratio!r} leaves no output of the ({h}, {w}) input")
    rows, cols = (pooling_sequence(n, m, pseudo_random, rng) for n, m in zip((h, w), outs, strict=True))
    table = window_table((h, w), [sequence_windows(rows, h, overlapping), sequence_windows(cols, w, overlapping)])
    planes = A.transpose(t, (0, 3, 1, 2))
    y = max_by_table(fn, planes, 2, table, outs)[0] if use_max else mean_by_table(fn, planes, 2, table, outs)
    return A.transpose(y, (0, 2, 3, 1)), Tensor(rows), Tensor(cols)


__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]
