"""``ops.deformable_conv2d``: the modulated deformable convolution (Deformable ConvNets v2), composed of
existing primitives, so its gradients (input, weight, offsets and mask) come from theirs.

Kernel element ``k = (i, j)`` of output position ``(h, w)`` reads the input at ``(h s_h - p_top + i d_h +
dy, w s_w - p_left + j d_w + dx)`` with the offsets ``dx``, ``dy`` of ``offsets`` (channels ordered
offset_x, offset_y, mask, each (deformable_groups, kh, kw)), bilinearly interpolated (corners outside the
input count as zeros), times the mask. The samples are laid out as an (N, C, Ho kh, Wo kw) map, each output
position's window a kh x kw block, so one Conv2D with stride (kh, kw) finishes the job, as MindSpore's
DeformableOffsets + Conv2D pair does. Each bilinear corner is a GatherD of the flattened input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .nn import conv2d


def _four(fn: str, name: str, v: Sequence[int]) -> tuple[int, int, int, int]:
    t = tuple(v) if isinstance(v, (tuple, list)) else ()
    if len(t) != 4 or not all(isinstance(a, int) and not isinstance(a, bool) for a in t):
        raise TypeError(f"{fn}: {name} must be a tuple of 4 ints, got {v!r}")
    return t  # type: ignore[return-value]


def deformable_conv2d(x, weight, offsets, kernel_size: Sequence[int], strides: Sequence[int],  # noqa: PLR0913
                      padding: Sequence[int], bias=None, dilations: Sequence[int] = (1, 1, 1, 1), groups: int = 1,
                      deformable_groups: int = 1, modulated: bool = True) -> Tensor:
    """``ops.deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
    dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True)``: x (N, C, H, W), weight
    (O, C / groups, kh, kw), offsets (N, 3 deformable_groups kh kw, Ho, Wo); strides and dilations
    (1, 1, h, w), padding (top, bottom, left, right). Only ``modulated=True`` (v2) exists, as in MindSpore."""
    fn = "deformable_conv2d"
    t, w, off = as_tensor(x), as_tensor(weight), as_tensor(offsets)
    if not isinstance(modulated, bool):
        raise TypeError(f"{fn}: modulated must be a bool, got {modulated!r}")
    if not modulated:
        raise ValueError(f"{fn}: only modulated=True (deformable convolution v2) is supported, as in MindSpore")
    ks = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else ()
    if len(ks) != 2 or not all(isinstance(a, int) and a > 0 for a in ks):
        raise TypeError(f"{fn}: kernel_size must be a tuple of 2 positive ints, got {kernel_size!r}")
    st, pads, dil = _four(fn, "strides", strides), _four(fn, "padding", padding), _four(fn, "dilations", dilations)
    if st[:2] != (1, 1) or dil[:2] != (1, 1):
        raise ValueError(f"{fn}: the N and C entries of strides and dilations must be 1, got {st} and {dil}")
    if t.ndim != 4 or w.ndim != 4 or off.ndim != 4:
        raise ValueError(f"{fn}: x, weight and offsets must be 4-D, got {t.shape}, {w.shape} and {off.shape}")
    n, c, h, wd = t.shape
    kh, kw = ks
    dg = deformable_groups
    if isinstance(dg, bool) or not isinstance(dg, int) or dg < 1 or c % dg:
        raise ValueError(f"{fn}: deformable_groups must be a positive int dividing the {c} channels, got {dg!r}")
    ho = (h + pads[0] + pads[1] - (kh - 1) * dil[2] - 1) // st[2] + 1
    wo = (wd + pads[2] + pads[3] - (kw - 1) * dil[3] - 1) // st[3] + 1
    k = kh * kw
    if off.shape != (n, 3 * dg * k, ho, wo):
        raise ValueError(f"{fn}: offsets must have shape {(n, 3 * dg * k, ho, wo)}, got {off.shape}")
    if tuple(w.shape[2:]) != ks:
        raise ValueError(f"{fn}: weight's kernel {tuple(w.shape[2:])} differs from kernel_size {ks}")
    dt = t.dtype.np_dtype
    parts = A.reshape(off, (n, 3, dg, k, ho, wo))
    dx, dy, mask = (A.squeeze(apply("Slice", {"begin": [0, q, 0, 0, 0, 0], "size": [n, 1, dg, k, ho, wo]},
                                    [parts]), 1) for q in range(3))
    # the regular grid of every (kernel element, output position), before the offsets
    gy = (np.arange(kh)[:, None] * dil[2]).repeat(kw, 1).reshape(k, 1, 1) + np.arange(ho)[None, :, None] * st[2]
    gx = (np.arange(kw)[None, :] * dil[3]).repeat(kh, 0).reshape(k, 1, 1) + np.arange(wo)[None, None, :] * st[3]
    py = M.add(dy, Tensor((gy - pads[0]).astype(dt)))                  # (N, dg, K, Ho, Wo)
    px = M.add(dx, Tensor((gx - pads[2]).astype(dt)))
    y0, x0 = M.floor(py), M.floor(px)
    fy, fx = M.sub(py, y0), M.sub(px, x0)
    flat = A.reshape(t, (n, dg, c // dg, h * wd))
    length = k * ho * wo
    sampled = None
    for cy, wy in ((0, M.sub(1.0, fy)), (1, fy)):
        for cx, wx in ((0, M.sub(1.0, fx)), (1, fx)):
            yy, xx = M.add(y0, float(cy)), M.add(x0, float(cx))
            inside = M.logical_and(M.logical_and(M.ge(yy, 0.0), M.lt(yy, float(h))),
                                   M.logical_and(M.ge(xx, 0.0), M.lt(xx, float(wd))))
            yi = M._cast(apply("ClipByValue", {}, [yy, Tensor(np.array(0, dt)), Tensor(np.array(h - 1, dt))]),
                         "int64")
            xi = M._cast(apply("ClipByValue", {}, [xx, Tensor(np.array(0, dt)), Tensor(np.array(wd - 1, dt))]),
                         "int64")
            index = A.reshape(M.add(M.mul(yi, wd), xi), (n, dg, 1, length))
            index = A.broadcast_to(index, (n, dg, c // dg, length))
            values = apply("GatherD", {"dim": 3}, [flat, index])           # (N, dg, C / dg, L)
            coef = A.reshape(M.mul(M.mul(wy, wx), M._cast(inside, t.dtype)), (n, dg, 1, length))
            term = M.mul(values, coef)
            sampled = term if sampled is None else M.add(sampled, term)
    sampled = M.mul(sampled, A.reshape(mask, (n, dg, 1, length)))
    cols = A.reshape(sampled, (n, c, kh, kw, ho, wo))
    cols = A.reshape(A.transpose(cols, (0, 1, 4, 2, 5, 3)), (n, c, ho * kh, wo * kw))
    out = conv2d(cols, w, None, (kh, kw), "valid", 0, 1, groups)
    if bias is not None:
        out = M.add(out, A.reshape(M._cast(as_tensor(bias), out.dtype), (1, w.shape[0], 1, 1)))
    return out


__all__ = ["deformable_conv2d"]
