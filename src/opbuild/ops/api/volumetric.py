"""3-D convolution and pooling of ``mindspore.ops``: ``conv3d``, ``max_pool3d`` and ``avg_pool3d`` (NCDHW),
composed from existing primitives, so every gradient comes from theirs.

* ``conv3d`` gathers, for every output depth, the ``kd`` input depth slices its window reads (one Gather with
  an (out_depth, kd) table of constant indices), folds them into the channel axis and runs ONE Conv2D over
  (N * out_depth, C * kd, H, W) with the weight viewed as (O, C / groups * kd, kh, kw).
* The pools are separable: max (or sum) over a box is max (or sum) along D of that along H of that along W.
  Each axis is one Gather of its windows (a constant (out, k) index table into the padded axis) and one
  reduction. Max pooling pads with the dtype's lowest value, so a padded position never wins; the average
  divides by a constant table of window sizes computed here (``count_include_pad``, ``divisor_override``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .nn import conv2d
from .padding import pad_pairs
from .pool_argmax import max_pool_nd

Triple = tuple[int, int, int]


def triple(fn: str, name: str, v, minimum: int = 1) -> Triple:
    """An int or three ints (each >= ``minimum``) as a triple."""
    t = (v, v, v) if isinstance(v, int) and not isinstance(v, bool) else tuple(v)
    if len(t) != 3 or not all(isinstance(a, int) and not isinstance(a, bool) and a >= minimum for a in t):
        raise ValueError(f"{fn}: {name} must be an int >= {minimum} or three of them, got {v!r}")
    return t  # type: ignore[return-value]


def pads6(fn: str, padding) -> tuple[int, ...]:
    """``padding`` as (head, tail, top, bottom, left, right): an int, three ints (one per axis, both sides)
    or six."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        p: tuple[int, ...] = (padding,) * 6
    else:
        p = tuple(padding)
        if len(p) == 3:
            p = (p[0], p[0], p[1], p[1], p[2], p[2])
    if len(p) != 6 or not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in p):
        raise ValueError(f"{fn}: padding must be a non-negative int, or 3 or 6 of them, got {padding!r}")
    return p


def same_pads(size: Sequence[int], k: Triple, s: Triple, d: Triple) -> tuple[int, ...]:
    """'same' padding (output ceil(in / stride)): the total split with the extra one at the end."""
    out: list[int] = []
    for n, kk, ss, dd in zip(size, k, s, d, strict=True):
        total = max((-(-n // ss) - 1) * ss + dd * (kk - 1) + 1 - n, 0)
        out += [total // 2, total - total // 2]
    return tuple(out)


def _check_5d(fn: str, x: Tensor) -> None:
    if x.ndim != 5:
        raise ValueError(f"{fn}: the input must be (N, C, D, H, W), got shape {x.shape}")
    if not x.dtype.is_float:
        raise TypeError(f"{fn}: the input must be a float Tensor, got {x.dtype}")


def conv3d(input, weight, bias=None, stride=1, pad_mode: str = "valid", padding=0, dilation=1,  # noqa: A002
           groups: int = 1) -> Tensor:
    """``ops.conv3d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, groups=1)``:
    3-D cross-correlation of (N, C, D, H, W) with an (O, C / groups, kd, kh, kw) weight, plus ``bias``.
    ``pad_mode`` 'valid', 'same' (output ceil(in / stride)) or 'pad' (``padding``: an int, 3 or 6 ints)."""
    fn = "conv3d"
    x, w = as_tensor(input), as_tensor(weight)
    _check_5d(fn, x)
    if w.ndim != 5:
        raise ValueError(f"{fn}: weight must be (O, C / groups, kd, kh, kw), got shape {w.shape}")
    n, c, depth, h, wd = x.shape
    o, cg, kd, kh, kw = w.shape
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or c % groups or o % groups \
            or cg * groups != c:
        raise ValueError(f"{fn}: groups={groups!r} must divide the {c} input and {o} output channels, with "
                         f"weight axis 1 = C / groups (got {cg})")
    s, d = triple(fn, "stride", stride), triple(fn, "dilation", dilation)
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{fn}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    p = pads6(fn, padding)
    if pad_mode != "pad" and any(p):
        raise ValueError(f"{fn}: padding={padding!r} needs pad_mode='pad' (got {pad_mode!r})")
    if pad_mode == "same":
        p = same_pads((depth, h, wd), (kd, kh, kw), s, d)
    if any(p):
        x = pad_pairs(fn, x, [[0, 0], [0, 0], [p[0], p[1]], [p[2], p[3]], [p[4], p[5]]])
    dp = x.shape[2]
    od = (dp - d[0] * (kd - 1) - 1) // s[0] + 1
    if od < 1:
        raise ValueError(f"{fn}: the kernel depth {kd} (dilation {d[0]}) exceeds the padded input depth {dp}")
    # index[t, j] = the input depth that window t reads at kernel offset j
    index = np.arange(od)[:, None] * s[0] + np.arange(kd)[None, :] * d[0]
    slabs = apply("Gather", {"axis": 2}, [x, Tensor(index.astype(np.int64))])   # (N, C, OD, KD, H', W')
    hp, wp = x.shape[3], x.shape[4]
    slabs = A.reshape(A.transpose(slabs, (0, 2, 1, 3, 4, 5)), (n * od, c * kd, hp, wp))
    y = conv2d(slabs, A.reshape(w, (o, cg * kd, kh, kw)), None, (s[1], s[2]), "valid", 0, (d[1], d[2]), groups)
    y = A.transpose(A.reshape(y, (n, od, o, y.shape[2], y.shape[3])), (0, 2, 1, 3, 4))
    if bias is not None:
        y = M.add(y, A.reshape(M._cast(as_tensor(bias), y.dtype), (1, o, 1, 1, 1)))
    return y


def _out_len(n: int, k: int, s: int, d: int, pb: int, pa: int, ceil_mode: bool) -> int:
    span = n + pb + pa - d * (k - 1) - 1
    if span < 0:
        raise ValueError(f"pooling: the window ({k}, dilation {d}) exceeds the padded axis ({n + pb + pa})")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + pb:  # the last window must start inside the input or its head pad
        out -= 1
    return out


def _windows(k: int, s: int, d: int, out: int) -> np.ndarray:
    """(out, k) positions, relative to the start of the padded axis, of every window's elements."""
    return np.arange(out)[:, None] * s + np.arange(k)[None, :] * d


def pool_axis(x: Tensor, axis: int, k: int, s: int, d: int, pb: int, pa: int, out: int, use_max: bool,
               fill: float) -> Tensor:
    idx = _windows(k, s, d, out)
    need = int(idx.max()) + 1 - (x.shape[axis] + pb)  # ceil_mode windows may read past the tail padding
    pairs = [[0, 0] for _ in range(x.ndim)]
    pairs[axis] = [pb, max(pa, need, 0)]
    if any(pairs[axis]):
        x = pad_pairs("pool", x, pairs, "constant", fill)
    g = apply("Gather", {"axis": axis}, [x, Tensor(idx.astype(np.int64))])   # axis -> (out, k)
    return M.amax(g, axis + 1) if use_max else M.sum(g, axis + 1)


def _pool_args(fn: str, x, kernel_size, stride, padding, dilation, ceil_mode, pad_mode: str = "pad"):
    t = as_tensor(x)
    _check_5d(fn, t)
    k = triple(fn, "kernel_size", kernel_size)
    s = k if stride is None or stride == 0 else triple(fn, "stride", stride)
    d = triple(fn, "dilation", dilation)
    p = pads6(fn, padding)
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{fn}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if pad_mode == "same":
        p = same_pads(t.shape[2:], k, s, d)
    elif pad_mode == "valid" and any(p):
        raise ValueError(f"{fn}: padding={padding!r} needs pad_mode='pad'")
    for kk, dd, (pb, pa) in zip(k, d, zip(p[::2], p[1::2], strict=True), strict=True):
        if pad_mode == "pad" and max(pb, pa) > (dd * (kk - 1) + 1) // 2:
            raise ValueError(f"{fn}: padding {padding!r} must be at most half the (dilated) kernel size {k}")
    outs = tuple(_out_len(n, kk, ss, dd, p[2 * i], p[2 * i + 1], bool(ceil_mode))
                 for i, (n, kk, ss, dd) in enumerate(zip(t.shape[2:], k, s, d, strict=True)))
    return t, k, s, d, p, outs


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False, *, pad_mode: str = "pad") -> Tensor:
    """``ops.max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)``: 3-D max pooling of (N, C, D, H, W) (stride None: the kernel size; padding an int,
    3 or 6 ints, at most half the kernel). ``return_indices=True`` also returns the int64 flat index of each
    maximum within its (D, H, W) volume (the windowed-argmax composition of pool_argmax)."""
    t, k, s, d, p, outs = _pool_args("max_pool3d", x, kernel_size, stride, padding, dilation, ceil_mode, pad_mode)
    if return_indices:
        return max_pool_nd("max_pool3d", t, 3, k, s, d, list(zip(p[::2], p[1::2], strict=True)), bool(ceil_mode))
    lowest = float(np.finfo(t.dtype.np_dtype).min)
    for i in range(3):
        t = pool_axis(t, 2 + i, k[i], s[i], d[i], p[2 * i], p[2 * i + 1], outs[i], True, lowest)
    return t


def _counts(n: int, k: int, s: int, pb: int, pa: int, out: int, include_pad: bool) -> np.ndarray:
    """How many elements each window of one axis averages: those inside the padded axis (include_pad) or
    inside the input."""
    idx = _windows(k, s, 1, out) - pb
    lo, hi = (-pb, n + pa) if include_pad else (0, n)
    return ((idx >= lo) & (idx < hi)).sum(axis=1)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int = 0, *, pad_mode: str = "pad") -> Tensor:
    """``ops.avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=0)``: 3-D average pooling of (N, C, D, H, W). Each window's sum is divided by
    ``divisor_override`` when non-zero, else by the number of its elements inside the padded input
    (``count_include_pad``) or inside the input."""
    t, k, s, _, p, outs = _pool_args("avg_pool3d", input_x, kernel_size, stride, padding, 1, ceil_mode, pad_mode)
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, int) or divisor_override < 0:
        raise ValueError(f"avg_pool3d: divisor_override must be an int >= 0, got {divisor_override!r}")
    size = t.shape[2:]
    for i in range(3):
        t = pool_axis(t, 2 + i, k[i], s[i], 1, p[2 * i], p[2 * i + 1], outs[i], False, 0.0)
    if divisor_override:
        return M.div(t, float(divisor_override))
    c = [_counts(size[i], k[i], s[i], p[2 * i], p[2 * i + 1], outs[i], bool(count_include_pad)) for i in range(3)]
    div = (c[0][:, None, None] * c[1][None, :, None] * c[2][None, None, :]).astype(t.dtype.np_dtype)
    return M.div(t, Tensor(np.maximum(div, 1)))


def conv1d(input, weight, bias=None, stride: int = 1, pad_mode: str = "valid", padding: int = 0,  # noqa: A002
           dilation: int = 1, groups: int = 1) -> Tensor:
    """``ops.conv1d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, groups=1)``:
    1-D cross-correlation of (N, C, L) with an (O, C / groups, k) weight: Conv2D on the (N, C, 1, L) view."""
    x, w = as_tensor(input), as_tensor(weight)
    if x.ndim != 3 or w.ndim != 3:
        raise ValueError(f"conv1d: input (N, C, L) and weight (O, C / groups, k) are needed, got {x.shape} and "
                         f"{w.shape}")
    pad = padding if isinstance(padding, int) else tuple(padding)
    if isinstance(pad, tuple) and len(pad) == 1:
        pad = pad[0]
    pads = (0, 0, pad, pad) if isinstance(pad, int) else (0, 0, *pad)
    st = stride if isinstance(stride, int) else stride[0]
    dl = dilation if isinstance(dilation, int) else dilation[0]
    y = conv2d(A.expand_dims(x, 2), A.expand_dims(w, 2), None, (1, st), pad_mode, pads, (1, dl), groups)
    y = A.squeeze(y, 2)
    if bias is not None:
        y = M.add(y, A.reshape(M._cast(as_tensor(bias), y.dtype), (1, w.shape[0], 1)))
    return y


__all__ = ["conv1d", "conv3d", "max_pool3d", "avg_pool3d"]
