"""The layer functions of ``mindspore.mint.nn.functional`` with torch's signatures: convolutions (``conv1d``,
``conv2d``, ``conv3d``: ``padding`` an int, a tuple with one value per spatial axis, ``'valid'`` or ``'same'``;
``conv_transpose2d``), pooling (``avg_pool1d/2d/3d``, ``max_pool2d``, ``adaptive_*``, ``max_unpool2d``),
``pad`` (torch's last-axis-first pairs), ``interpolate``/``upsample``, ``grid_sample``, ``fold``/``unfold``,
``pixel_shuffle``, ``embedding`` and ``batch_norm`` (1-D to 3-D batches), each over the ``ops`` function."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import ops as _ops
from ...core.tensor import Tensor, as_tensor
from ...nn.layers._checks import int_tuple
from ...ops.primitive import apply


def _ints(name: str, arg: str, value: Any, n: int, minimum: int = 0) -> tuple[int, ...]:
    """``value`` (an int or ``n`` ints) as ``n`` ints, each at least ``minimum``."""
    return int_tuple(f"mint.nn.functional.{name}", arg, value, n, minimum)


def _conv_padding(name: str, padding: Any, n: int) -> tuple[str, tuple[int, ...]]:
    """(ops pad_mode, one pad per spatial axis) of torch's ``padding`` argument."""
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"mint.nn.functional.{name}: padding must be 'valid', 'same', an int or {n} ints, "
                             f"got {padding!r}")
        return padding, (0,) * n
    pads = _ints(name, "padding", padding, n)
    return ("pad" if any(pads) else "valid"), pads


def _check_conv(name: str, x: Tensor, w: Tensor, nd: int, groups: Any) -> int:
    if x.ndim != nd + 2 or w.ndim != nd + 2:
        raise ValueError(f"mint.nn.functional.{name}: input and weight must be {nd + 2}-D (batched), got "
                         f"{x.ndim}-D and {w.ndim}-D")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1:
        raise ValueError(f"mint.nn.functional.{name}: groups must be a positive int, got {groups!r}")
    if x.shape[1] != w.shape[1] * groups:
        raise ValueError(f"mint.nn.functional.{name}: input has {x.shape[1]} channels, the weight expects "
                         f"{w.shape[1]} x groups {groups}")
    return int(groups)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``: 1-D
    cross-correlation of (N, C, L) with an (O, C / groups, k) weight."""
    x, w = as_tensor(input), as_tensor(weight)
    g = _check_conv("conv1d", x, w, 1, groups)
    mode, pads = _conv_padding("conv1d", padding, 1)
    y = _ops.conv1d(x, w, None, _ints("conv1d", "stride", stride, 1, 1)[0], mode, pads[0],
                    _ints("conv1d", "dilation", dilation, 1, 1)[0], g)
    return y if bias is None else _ops.add(y, _ops.reshape(as_tensor(bias), (-1, 1)))


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``: 2-D
    cross-correlation of (N, C, H, W) with an (O, C / groups, kh, kw) weight (``padding``: (h, w) pads
    on both sides, or 'valid'/'same')."""
    x, w = as_tensor(input), as_tensor(weight)
    g = _check_conv("conv2d", x, w, 2, groups)
    mode, (ph, pw) = _conv_padding("conv2d", padding, 2)
    return _ops.conv2d(x, w, bias, _ints("conv2d", "stride", stride, 2, 1), mode, (ph, ph, pw, pw),
                       _ints("conv2d", "dilation", dilation, 2, 1), g)


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """``conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)``: 3-D
    cross-correlation of (N, C, D, H, W) with an (O, C / groups, kd, kh, kw) weight."""
    x, w = as_tensor(input), as_tensor(weight)
    g = _check_conv("conv3d", x, w, 3, groups)
    mode, pads = _conv_padding("conv3d", padding, 3)
    return _ops.conv3d(x, w, bias, _ints("conv3d", "stride", stride, 3, 1), mode,
                       tuple(p for p in pads for _ in (0, 1)), _ints("conv3d", "dilation", dilation, 3, 1), g)


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,  # noqa: A002
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """``conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
    dilation=1)``: the transposed 2-D convolution of (N, C_in, H, W) with a (C_in, C_out / groups, kh, kw)
    weight; each output axis is (H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1."""
    name = "conv_transpose2d"
    x, w = as_tensor(input), as_tensor(weight)
    if x.ndim != 4 or w.ndim != 4:
        raise ValueError(f"mint.nn.functional.{name}: input and weight must be 4-D, got {x.ndim}-D and {w.ndim}-D")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1 or x.shape[1] != w.shape[0] \
            or w.shape[0] % groups:
        raise ValueError(f"mint.nn.functional.{name}: the weight's first axis ({w.shape[0]}) must be the input's "
                         f"channels ({x.shape[1]}), divisible by groups ({groups!r})")
    s, d = _ints(name, "stride", stride, 2, 1), _ints(name, "dilation", dilation, 2, 1)
    p, op = _ints(name, "padding", padding, 2), _ints(name, "output_padding", output_padding, 2)
    if any(o >= max(si, di) for o, si, di in zip(op, s, d, strict=True)):
        raise ValueError(f"mint.nn.functional.{name}: output_padding {op} must be smaller than the stride or the "
                         f"dilation of its axis")
    size = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (w.shape[2 + i] - 1) + op[i] + 1 for i in range(2)]
    if min(size) < 1:
        raise ValueError(f"mint.nn.functional.{name}: padding {p} leaves no output for an input of {x.shape[2:]}")
    attrs = {"out_channel": x.shape[1], "kernel_size": list(w.shape[2:]), "mode": 1, "pad_mode": "pad",
             "pad": [p[0], p[0] + op[0], p[1], p[1] + op[1]], "stride": list(s), "dilation": list(d),
             "group": int(groups), "data_format": "NCHW",
             "input_size": [x.shape[0], w.shape[1] * int(groups), *size]}
    y = apply("Conv2DBackpropInput", attrs, [x, w])
    return y if bias is None else _ops.add(y, _ops.reshape(as_tensor(bias), (-1, 1, 1)))


# ---- pooling ------------------------------------------------------------------------------------------------
def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """``avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``:
    1-D average pooling of (N, C, L) (stride None: the kernel size)."""
    k = _ints("avg_pool1d", "kernel_size", kernel_size, 1, 1)[0]
    s = k if stride is None else _ints("avg_pool1d", "stride", stride, 1, 1)[0]
    return _ops.avg_pool1d(input, k, s, _ints("avg_pool1d", "padding", padding, 1)[0], bool(ceil_mode),
                           bool(count_include_pad))


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Any = None) -> Tensor:
    """``avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: 2-D average pooling of (N, C, H, W)."""
    k = _ints("avg_pool2d", "kernel_size", kernel_size, 2, 1)
    s = k if stride is None else _ints("avg_pool2d", "stride", stride, 2, 1)
    return _ops.avg_pool2d(input, k, s, _ints("avg_pool2d", "padding", padding, 2), bool(ceil_mode),
                           bool(count_include_pad), divisor_override)


def avg_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Any = None) -> Tensor:
    """``avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: 3-D average pooling of (N, C, D, H, W)."""
    k = _ints("avg_pool3d", "kernel_size", kernel_size, 3, 1)
    s = k if stride is None else _ints("avg_pool3d", "stride", stride, 3, 1)
    p = _ints("avg_pool3d", "padding", padding, 3)
    return _ops.avg_pool3d(input, k, s, tuple(v for v in p for _ in (0, 1)), bool(ceil_mode),
                           bool(count_include_pad), divisor_override or 0)


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,  # noqa: A002
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """``max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
    return_indices=False)``: 2-D max pooling (with ``return_indices``, also the int64 flat index of each
    maximum in its (H, W) plane)."""
    k = _ints("max_pool2d", "kernel_size", kernel_size, 2, 1)
    s = k if stride is None else _ints("max_pool2d", "stride", stride, 2, 1)
    return _ops.max_pool2d(input, k, s, _ints("max_pool2d", "padding", padding, 2),
                           _ints("max_pool2d", "dilation", dilation, 2, 1), bool(return_indices), bool(ceil_mode))


def max_unpool2d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
                 output_size: Any = None) -> Tensor:
    """``max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None)``: the inverse of
    :func:`max_pool2d` with ``return_indices``: zeros but at ``indices``."""
    return _ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def adaptive_avg_pool1d(input: Any, output_size: int) -> Tensor:  # noqa: A002
    """``adaptive_avg_pool1d(input, output_size)``: (N, C, L) average-pooled to ``output_size``."""
    return _ops.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:  # noqa: A002
    """``adaptive_avg_pool2d(input, output_size)``: the last two axes average-pooled to ``output_size``."""
    return _ops.adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Tensor:  # noqa: A002
    """``adaptive_avg_pool3d(input, output_size)``: the last three axes average-pooled to ``output_size``."""
    return _ops.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """``adaptive_max_pool1d(input, output_size, return_indices=False)``: (N, C, L) max-pooled to
    ``output_size`` (with ``return_indices``: also the int64 index of each maximum)."""
    if not return_indices:
        return _ops.adaptive_max_pool1d(input, output_size)
    x = as_tensor(input)
    values, index = _ops.adaptive_max_pool2d(_ops.expand_dims(x, -2), (1, output_size), True)
    return _ops.squeeze(values, -2), _ops.squeeze(index, -2)


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    """``adaptive_max_pool2d(input, output_size, return_indices=False)``: the last two axes max-pooled to
    ``output_size``."""
    return _ops.adaptive_max_pool2d(input, output_size, bool(return_indices))


# ---- shapes, sampling, lookups ------------------------------------------------------------------------------
def pad(input: Any, pad: Sequence[int], mode: str = "constant", value: Any = None) -> Tensor:  # noqa: A002
    """``pad(input, pad, mode='constant', value=None)``: ``pad`` holds (before, after) pairs from the last axis
    backwards; ``mode`` 'constant' (``value``, 0 when None), 'reflect', 'replicate' or 'circular'."""
    return _ops.pad(input, tuple(pad), mode, value)


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
                align_corners: Any = None, recompute_scale_factor: Any = None) -> Tensor:
    """``interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: resize the spatial axes to ``size`` or by ``scale_factor`` (the output
    size floor(in * scale_factor), the sampling grid from that size; 'bicubic' is torch's kernel, A = -0.75)."""
    x = as_tensor(input)
    if scale_factor is not None and size is None and mode not in ("nearest", "area"):
        # ops.interpolate refuses a scale_factor here (MindSpore's ops rule); mint's takes it, as torch's.
        n = x.ndim - 2
        scales = (scale_factor,) * n if isinstance(scale_factor, numbers.Real) else tuple(scale_factor)
        if len(scales) != n:
            raise ValueError(f"mint.nn.functional.interpolate: scale_factor needs {n} values for a {x.ndim}-D "
                             f"input, got {scale_factor!r}")
        size, scale_factor = tuple(int(d * float(s)) for d, s in zip(x.shape[2:], scales, strict=True)), None
    if mode == "bicubic" and x.ndim == 4 and size is not None:
        return _bicubic(x, _ints("interpolate", "size", size, 2, 1), bool(align_corners))
    return _ops.interpolate(x, size, scale_factor, mode, align_corners, recompute_scale_factor)


def _cubic_source(i: int, n_in: int, n_out: int, align_corners: bool) -> float:
    if align_corners:
        return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return (i + 0.5) * n_in / n_out - 0.5


def _cubic_matrix(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """The (n_out, n_in) weights of torch's bicubic resampling of one axis (Keys' kernel with A = -0.75, the
    source index unclamped, the taps clamped to the edge)."""
    a = -0.75
    out = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        src = _cubic_source(i, n_in, n_out, align_corners)
        f = math.floor(src)
        t = src - f
        taps = (((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                ((a + 2) * t - (a + 3)) * t * t + 1,
                ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a)
        for k, w in enumerate(taps):
            out[i, min(max(f - 1 + k, 0), n_in - 1)] += w
    return out


def _bicubic(x: Tensor, size: tuple[int, ...], align_corners: bool) -> Tensor:
    """mint's bicubic resize (torch's, where ``ops.interpolate`` computes MindSpore CPU's TensorFlow-style
    kernel): two matrix products with the per-axis weights."""
    dt = np.dtype(x.dtype.np_dtype)
    wh = Tensor(_cubic_matrix(x.shape[2], size[0], align_corners).astype(dt))
    ww = Tensor(_cubic_matrix(x.shape[3], size[1], align_corners).T.astype(dt))
    return _ops.matmul(_ops.matmul(wh, x), ww)


def upsample(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
             align_corners: Any = None) -> Tensor:
    """``upsample(input, size=None, scale_factor=None, mode='nearest', align_corners=None)``: as
    :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",  # noqa: A002
                align_corners: Any = None) -> Tensor:
    """``grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None)``: ``input``
    sampled at the normalised coordinates of ``grid`` (align_corners None: False)."""
    return _ops.grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:  # noqa: A002
    """``unfold(input, kernel_size, dilation=1, padding=0, stride=1)``: the sliding blocks of (N, C, H, W) as
    columns (N, C * kh * kw, L)."""
    return _ops.unfold(input, kernel_size, dilation, padding, stride)


def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:
    """``fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)``: the columns of
    :func:`unfold` summed back into (N, C, H, W)."""
    return _ops.fold(input, output_size, kernel_size, dilation, padding, stride)


def pixel_shuffle(input: Any, upscale_factor: int) -> Tensor:  # noqa: A002
    """``pixel_shuffle(input, upscale_factor)``: (*, C r^2, H, W) rearranged to (*, C, H r, W r)."""
    return _ops.pixel_shuffle(input, upscale_factor)


def embedding(input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,  # noqa: A002
              norm_type: float = 2.0, scale_grad_by_freq: bool = False) -> Tensor:
    """``embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False)``:
    the rows of ``weight`` that the int indices of ``input`` name."""
    return _ops.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,  # noqa: A002
               training: bool = False, momentum: float = 0.1, eps: float = 1e-05) -> Tensor:
    """``batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
    eps=1e-05)``: axis 1 of an (N, C, ...) input normalised with the running statistics (in training: the
    batch's, and the running ones updated in place); ``weight``/``bias`` None: 1 and 0."""
    x = as_tensor(input)
    if x.ndim < 2 or x.ndim > 5:
        raise ValueError(f"mint.nn.functional.batch_norm: input must be (N, C) to (N, C, D, H, W), got shape "
                         f"{x.shape}")
    c = x.shape[1]
    w = _ops.ones((c,), x.dtype) if weight is None else weight
    b = _ops.zeros((c,), x.dtype) if bias is None else bias
    flat = _ops.reshape(x, (x.shape[0], c, -1)) if x.ndim == 5 else x
    y = _ops.batch_norm(flat, running_mean, running_var, w, b, bool(training), momentum, eps)
    return _ops.reshape(y, x.shape) if x.ndim == 5 else y


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm", "conv1d", "conv2d",
           "conv3d", "conv_transpose2d", "embedding", "fold", "grid_sample", "interpolate", "max_pool2d",
           "max_unpool2d", "pad", "pixel_shuffle", "unfold", "upsample"]
