"""More ``mindspore.ops`` functions of the nn family: ``lp_pool1d``/``lp_pool2d`` (power-average pooling over
Gather windows), ``fast_gelu`` and ``channel_shuffle``, compositions of existing primitives."""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .volumetric import pool_axis


def _lp_pool(fn: str, x, norm_type, kernel_size, stride, ceil_mode: bool, dims: int) -> Tensor:
    t = as_tensor(x)
    if t.ndim not in (dims + 1, dims + 2) or not t.dtype.is_float:
        raise ValueError(f"{fn}: x must be a float Tensor of rank {dims + 1} or {dims + 2}, got {t.dtype} {t.shape}")
    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real) or norm_type == 0:
        raise ValueError(f"{fn}: norm_type must be a non-zero number, got {norm_type!r}")
    k = (kernel_size,) * dims if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride,) * dims if isinstance(stride, int) else tuple(stride))
    if len(k) != dims or len(s) != dims or not all(isinstance(v, int) and v >= 1 for v in (*k, *s)):
        raise ValueError(f"{fn}: kernel_size and stride must be positive ints or {dims} of them, got "
                         f"{kernel_size!r}, {stride!r}")
    p = float(norm_type)
    y = M.pow(t, p)
    for i in range(dims):
        axis = t.ndim - dims + i
        n = y.shape[axis]
        span = n - k[i]
        if span < 0:
            raise ValueError(f"{fn}: kernel_size {k} exceeds the input's spatial shape {t.shape[-dims:]}")
        out = (-(-span // s[i]) if ceil_mode else span // s[i]) + 1
        if ceil_mode and (out - 1) * s[i] >= n:
            out -= 1
        y = pool_axis(y, axis, k[i], s[i], 1, 0, 0, out, False, 0.0)
        # A window cut short by ceil_mode counts as a full one: its mean times the kernel size (MindSpore's).
        count = np.minimum(np.arange(out) * s[i] + k[i], n) - np.arange(out) * s[i]
        if (count < k[i]).any():
            shape = [1] * y.ndim
            shape[axis] = out
            y = M.mul(y, Tensor((k[i] / count).astype(t.dtype.np_dtype).reshape(shape)))
    # sign(s) * relu(|s|) is s where s >= 0 and 0 elsewhere (MindSpore's form), before the 1/p-th power.
    return M.pow(M.mul(apply("Sign", {}, [y]), M.relu(M.abs(y))), 1.0 / p)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``ops.lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``: ``(sum of x^p over each
    window)^(1/p)`` along the last axis of (N, C, L) or (C, L) (stride None: the kernel size)."""
    return _lp_pool("lp_pool1d", x, norm_type, kernel_size, stride, bool(ceil_mode), 1)


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """``ops.lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False)``: the 2-D form over the last
    two axes of (N, C, H, W) or (C, H, W)."""
    return _lp_pool("lp_pool2d", x, norm_type, kernel_size, stride, bool(ceil_mode), 2)


def fast_gelu(x) -> Tensor:
    """``ops.fast_gelu(x)``: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``."""
    t = as_tensor(x)
    if not t.dtype.is_float:
        raise TypeError(f"fast_gelu: x must be a float Tensor, got {t.dtype}")
    a = M.abs(t)
    return M.mul(M.div(t, M.add(M.exp(M.mul(a, -1.702)), 1.0)), M.exp(M.mul(M.sub(t, a), 0.851)))


def channel_shuffle(x, groups: int) -> Tensor:
    """``ops.channel_shuffle(x, groups)``: the channels (axis 1) of (N, C, ...) regrouped: split into
    ``groups`` groups, then interleaved (a Reshape, a Transpose and a Reshape)."""
    t = as_tensor(x)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or t.ndim < 3 or t.shape[1] % groups:
        raise ValueError(f"channel_shuffle: groups must be a positive int dividing the channels of an input of "
                         f"rank >= 3, got groups={groups!r} for shape {t.shape}")
    n, c, *rest = t.shape
    y = A.reshape(t, (n, groups, c // groups, *rest))
    perm = (0, 2, 1, *range(3, 3 + len(rest)))
    return A.reshape(A.transpose(y, perm), t.shape)


__all__ = ["lp_pool1d", "lp_pool2d", "fast_gelu", "channel_shuffle"]


def _unpool(fn: str, x, indices, kernel_size, stride, padding, output_size, dims: int) -> Tensor:
    t, idx = as_tensor(x), as_tensor(indices)
    if t.ndim not in (dims + 1, dims + 2) or tuple(idx.shape) != tuple(t.shape):
        raise ValueError(f"{fn}: x must have rank {dims + 1} or {dims + 2} and indices x's shape, got {t.shape} "
                         f"and {idx.shape}")
    if idx.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{fn}: indices must be int32/int64, got {idx.dtype}")
    k = (kernel_size,) * dims if isinstance(kernel_size, int) else tuple(kernel_size)
    s = k if stride is None else ((stride,) * dims if isinstance(stride, int) else tuple(stride))
    p = (padding,) * dims if isinstance(padding, int) else tuple(padding)
    spatial = t.shape[t.ndim - dims:]
    if output_size is None or len(output_size) == 0:
        out = tuple((n - 1) * ss - 2 * pp + kk for n, kk, ss, pp in zip(spatial, k, s, p, strict=True))
    else:
        out = tuple(int(v) for v in output_size)[-dims:]
    lead = t.shape[:t.ndim - dims]
    rows, size, area = int(np.prod(lead)), int(np.prod(spatial)), int(np.prod(out))
    # Each row's indices address its own output plane: offset row r by r * area, then one scatter-add.
    offsets = Tensor((np.arange(rows, dtype=np.int64) * area).reshape(rows, 1))
    flat_idx = A.reshape(M.add(A.reshape(M._cast(idx, "int64"), (rows, size)), offsets), (rows * size,))
    y = apply("UnsortedSegmentSum", {"num_segments": rows * area}, [A.reshape(t, (rows * size,)), flat_idx])
    return A.reshape(y, (*lead, *out))


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """``ops.max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: the inverse of
    max pooling: each value written at its flat position ``indices`` in a zero output of length
    ``(L - 1) stride - 2 padding + kernel_size`` (or ``output_size``)."""
    return _unpool("max_unpool1d", x, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """``ops.max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: the 2-D form
    (``indices`` flat positions in each H_out * W_out plane)."""
    return _unpool("max_unpool2d", x, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """``ops.max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None)``: the 3-D form."""
    return _unpool("max_unpool3d", x, indices, kernel_size, stride, padding, output_size, 3)


__all__ += ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def avg_pool1d(input_x, kernel_size: int = 1, stride: int = 1, padding: int = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """``ops.avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True)``:
    average pooling of the last axis of (N, C, L); each window's sum divided by its element count inside the
    padded axis (``count_include_pad``) or inside the input."""
    fn = "avg_pool1d"
    t = as_tensor(input_x)
    if t.ndim != 3 or not t.dtype.is_float:
        raise ValueError(f"{fn}: input_x must be a float (N, C, L) Tensor, got {t.dtype} {t.shape}")
    k, s, p = (v if isinstance(v, int) else v[0] for v in (kernel_size, stride, padding))
    if k < 1 or s < 1 or p < 0 or p > k // 2:
        raise ValueError(f"{fn}: kernel_size and stride must be >= 1 and padding in [0, kernel_size / 2], got "
                         f"{kernel_size!r}, {stride!r}, {padding!r}")
    n = t.shape[2]
    span = n + 2 * p - k
    if span < 0:
        raise ValueError(f"{fn}: kernel_size {k} exceeds the padded length {n + 2 * p}")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    y = pool_axis(t, 2, k, s, 1, p, p, out, False, 0.0)
    starts = np.arange(out) * s - p
    lo, hi = (-p, n + p) if count_include_pad else (0, n)
    count = np.minimum(starts + k, hi) - np.maximum(starts, lo)
    return M.div(y, Tensor(np.maximum(count, 1).astype(t.dtype.np_dtype)))


def _norm(x: Tensor, p: float) -> Tensor:
    a = M.abs(x)
    return M.sqrt(M.sum(M.mul(a, a))) if p == 2 else M.pow(M.sum(M.pow(a, p)), 1.0 / p)


def clip_by_norm(x, max_norm, norm_type: float = 2.0, error_if_nonfinite: bool = False):
    """``ops.clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)``: a Tensor, or a list/tuple of
    them, scaled by ``max_norm / (total_norm + 1e-6)`` when that is below 1, ``total_norm`` the L2 norm of
    every element together. Other ``norm_type`` values are refused: MindSpore 2.10's CPU result for them is not
    its documented clipping."""
    if norm_type != 2:
        raise NotImplementedError(f"clip_by_norm: only norm_type=2.0 is supported, got {norm_type!r}")
    items = list(x) if isinstance(x, (tuple, list)) else [x]
    ts = [as_tensor(t) for t in items]
    p = float(norm_type)
    norms = [_norm(t, p) for t in ts]
    total = norms[0]
    if len(norms) > 1:
        total = M.pow(M.add(*[M.pow(nm, p) for nm in norms[:2]]) if len(norms) == 2 else
                      _sum_all([M.pow(nm, p) for nm in norms]), 1.0 / p)
    if error_if_nonfinite and total._data is not None and not np.isfinite(total.asnumpy()).all():
        raise RuntimeError("clip_by_norm: the total norm is not finite (error_if_nonfinite=True)")
    coef = M.minimum(M.div(float(max_norm), M.add(total, 1e-6)), 1.0)
    out = [M.mul(t, M._cast(coef, t.dtype)) for t in ts]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]


def _sum_all(ts: list) -> Tensor:
    total = ts[0]
    for t in ts[1:]:
        total = M.add(total, t)
    return total


def clip_by_global_norm(x, clip_norm: float = 1.0, use_norm=None) -> tuple:
    """``ops.clip_by_global_norm(x, clip_norm=1.0, use_norm=None)``: every Tensor of the tuple ``x`` scaled by
    ``clip_norm / max(global_norm, clip_norm)``, the global norm the L2 norm of all their elements."""
    if use_norm is not None:
        raise NotImplementedError("clip_by_global_norm: use_norm must be None (as MindSpore requires)")
    ts = [as_tensor(t) for t in (x if isinstance(x, (tuple, list)) else (x,))]
    total = M.sqrt(_sum_all([M.sum(M.mul(t, t)) for t in ts]))
    scale = M.div(float(clip_norm), M.maximum(total, float(clip_norm)))
    return tuple(M.mul(t, M._cast(scale, t.dtype)) for t in ts)


def renorm(input, p: int, axis: int, maxnorm: float) -> Tensor:  # noqa: A002
    """``ops.renorm(input, p, axis, maxnorm)``: each sub-tensor along ``axis`` whose ``p``-norm exceeds
    ``maxnorm`` scaled to norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``)."""
    t = as_tensor(input)
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"renorm: p must be a positive int, got {p!r}")
    ax = axis % t.ndim
    others = tuple(i for i in range(t.ndim) if i != ax)
    norm = M.pow(M.sum(M.pow(M.abs(t), float(p)), others, keepdim=True), 1.0 / p)
    scale = M.where(M.gt(norm, float(maxnorm)), M.div(float(maxnorm), M.add(norm, 1e-7)), 1.0)
    return M.mul(t, scale)


__all__ += ["avg_pool1d", "clip_by_norm", "clip_by_global_norm", "renorm"]
