"""Transposed convolutions of ``mindspore.ops``: ``conv3d_transpose`` (and the 1-D form behind
``nn.Conv1dTranspose``), composed as the convolution they are the gradient of: the input dilated by the stride
(zeros between elements), padded by ``dilation * (k - 1)`` less the padding (cropped where that is negative),
``output_padding`` added at the end, then a stride-1 convolution with the kernel flipped and its in/out
channels swapped per group. Gradients come from the primitives used.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .padding import pad_pairs
from .volumetric import conv1d, conv3d, pads6, same_pads, triple


def _dilate(x: Tensor, axis: int, s: int) -> Tensor:
    """``s - 1`` zeros between the elements of ``axis``: a new axis padded to ``s``, merged, the tail cut."""
    if s == 1:
        return x
    n = x.shape[axis]
    y = A.expand_dims(x, axis + 1)
    pairs = [[0, 0] for _ in range(y.ndim)]
    pairs[axis + 1] = [0, s - 1]
    y = apply("Pad", {"paddings": pairs}, [y])
    shape = list(x.shape)
    shape[axis] = n * s
    y = A.reshape(y, shape)
    begin, size = [0] * x.ndim, list(shape)
    size[axis] = (n - 1) * s + 1
    return apply("Slice", {"begin": begin, "size": size}, [y])


def _flipped_swapped(w: Tensor, groups: int) -> Tensor:
    """(C_in, C_out / g, k...) transposed-convolution weight as the (C_out, C_in / g, k...) convolution
    weight with every spatial axis reversed."""
    cin, cog, *k = w.shape
    for ax in range(2, w.ndim):
        w = apply("Gather", {"axis": ax}, [w, Tensor(np.arange(w.shape[ax] - 1, -1, -1, dtype=np.int64))])
    w = A.reshape(w, (groups, cin // groups, cog, *k))
    perm = (0, 2, 1, *range(3, 3 + len(k)))
    return A.reshape(A.transpose(w, perm), (groups * cog, cin // groups, *k))


def transposed(fn: str, x: Tensor, w: Tensor, spatial: int, pad_mode: str, pads: Sequence[int],
               stride: Sequence[int], dilation: Sequence[int], groups: int, output_padding: Sequence[int]) -> Tensor:
    """The transposed convolution of ``x`` (N, C_in, *spatial) by ``w`` (C_in, C_out / groups, *k)."""
    if x.ndim != spatial + 2 or w.ndim != spatial + 2:
        raise ValueError(f"{fn}: input and weight must have rank {spatial + 2}, got {x.shape} and {w.shape}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or x.shape[1] % groups \
            or w.shape[0] != x.shape[1]:
        raise ValueError(f"{fn}: weight axis 0 ({w.shape[0]}) must be the input channels ({x.shape[1]}), "
                         f"divisible by group {groups!r}")
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{fn}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    k = w.shape[2:]
    if pad_mode == "same":
        pads = same_pads([n * s for n, s in zip(x.shape[2:], stride, strict=True)], tuple(k), tuple(stride),
                         tuple(dilation))
    elif pad_mode == "valid":
        pads = (0,) * (2 * spatial)
    for op, s, dd in zip(output_padding, stride, dilation, strict=True):
        if op < 0 or op >= max(s, dd):
            raise ValueError(f"{fn}: output_padding {tuple(output_padding)} must be smaller than the stride or "
                             f"the dilation")
    for ax in range(spatial):
        x = _dilate(x, 2 + ax, stride[ax])
    pairs = [[0, 0], [0, 0]]
    for ax in range(spatial):
        full = dilation[ax] * (k[ax] - 1)
        pairs.append([full - pads[2 * ax], full - pads[2 * ax + 1] + output_padding[ax]])
    x = pad_pairs(fn, x, pairs)
    wc = _flipped_swapped(M._cast(w, x.dtype), groups)
    if spatial == 3:
        return conv3d(x, wc, None, 1, "valid", 0, tuple(dilation), groups)
    return conv1d(x, wc, None, 1, "valid", 0, dilation[0], groups)


def conv3d_transpose(inputs, weight, pad_mode: str = "valid", padding=0, stride=1, dilation=1, group: int = 1,
                     output_padding=0) -> Tensor:
    """``ops.conv3d_transpose(inputs, weight, pad_mode='valid', padding=0, stride=1, dilation=1, group=1,
    output_padding=0)``: the transposed 3-D convolution of (N, C_in, D, H, W) by a (C_in, C_out / group, kd,
    kh, kw) weight; output depth ``(D - 1) s - pads + d (kd - 1) + 1 + output_padding`` ('same': ``D s``)."""
    fn = "conv3d_transpose"
    x, w = as_tensor(inputs), as_tensor(weight)
    p = pads6(fn, padding)
    if pad_mode != "pad" and any(p):
        raise ValueError(f"{fn}: padding={padding!r} needs pad_mode='pad' (got {pad_mode!r})")
    return transposed(fn, x, w, 3, pad_mode, p, triple(fn, "stride", stride), triple(fn, "dilation", dilation),
                      group, triple(fn, "output_padding", output_padding, 0))


__all__ = ["conv3d_transpose"]
