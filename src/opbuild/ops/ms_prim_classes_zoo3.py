"""Primitive classes of ``mindspore.ops`` that MindSpore 2.10's CPU has no kernel for, provided here from their
documented definitions (the fifth table; see ms_prim_classes.py for the pattern): ``TripletMarginLoss``,
``MultilabelMarginLoss``, ``SparseGatherV2``, ``ScatterNonAliasingAdd``, ``DepthwiseConv2dNative``,
``ConfusionMatrix``, ``MatrixExp``, ``Quantile``, ``ExtractImagePatches``, ``Dilation2D`` and ``FloatStatus``
(GPU only in MindSpore). Checked against torch/NumPy in tests/compat/test_prims_more.py. The Ascend overflow-flag
primitives (``NPUAllocFloatStatus``, ``NPUGetFloatStatus``, ``NPUClearFloatStatus``) construct, so model code
that builds them on every device imports, and refuse to run, as MindSpore's CPU does."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .api import quantiles
from .ms_prim_classes import REQUIRED, make_primitive
from .ms_prim_classes_zoo import _scalar
from .primitive import Primitive


def _triplet(a: dict, x: Any, positive: Any, negative: Any, margin: Any) -> Tensor:
    return F.triplet_margin_loss(x, positive, negative, float(_scalar(margin)), a["p"], a["eps"], a["swap"],
                                 a["reduction"])


def _multilabel_margin(a: dict, x: Any, target: Any) -> tuple:
    """The loss and ``is_target``: 1.0 at each row's target classes (those before the row's first -1)."""
    x, target = as_tensor(x), as_tensor(target)
    valid = F.cumprod(F.cast(F.not_equal(target, -1), "int32"), -1)
    onehot = F.one_hot(F.clamp(F.cast(target, "int32"), 0, None), x.shape[-1], Tensor(np.float32(1)),
                       Tensor(np.float32(0)))
    is_target = F.amax(onehot * F.expand_dims(F.cast(valid, "float32"), -1), -2)
    return F.multilabel_margin_loss(x, target, a["reduction"]), F.cast(is_target, x.dtype)


def _scatter_non_aliasing_add(a: dict, x: Any, indices: Any, updates: Any) -> Tensor:
    out = F.tensor_scatter_add(x, indices, updates)
    return F.assign(x, out) if hasattr(x, "requires_grad") and hasattr(x, "name") else out


def _depthwise(a: dict, x: Any, weight: Any, bias: Any = None) -> Tensor:
    """Each input channel convolved with its ``channel_multiplier`` filters: weight (K, C, kh, kw) -> output
    channel c * K + k, as a grouped convolution."""
    x, w = as_tensor(x), as_tensor(weight)
    k, c = w.shape[:2]
    if k != a["channel_multiplier"] or c != x.shape[1]:
        raise ValueError(f"DepthwiseConv2dNative: weight shape {w.shape} must be (channel_multiplier="
                         f"{a['channel_multiplier']}, C={x.shape[1]}, kh, kw)")
    w = F.reshape(F.transpose(w, (1, 0, 2, 3)), (c * k, 1, *w.shape[2:]))
    pad = a["pad"]
    pad = tuple(pad) if isinstance(pad, (list, tuple)) else pad
    return F.conv2d(x, w, bias, a["stride"], a["pad_mode"].lower(), pad, a["dilation"], c)


def _confusion_matrix(a: dict, labels: Any, predictions: Any, weights: Any = None) -> Tensor:
    n = a["num_classes"]
    labels, predictions = F.cast(as_tensor(labels), "int32"), F.cast(as_tensor(predictions), "int32")
    lv, pv = labels.asnumpy(), predictions.asnumpy()
    if lv.size and (min(lv.min(), pv.min()) < 0 or max(lv.max(), pv.max()) >= n):
        raise ValueError(f"ConfusionMatrix: labels and predictions must be in [0, {n})")
    w = F.ones_like(labels) if weights is None else as_tensor(weights)
    flat = F.unsorted_segment_sum(F.cast(w, "float64"), labels * n + predictions, n * n)
    return F.cast(F.reshape(flat, (n, n)), a["dtype"])


def _matrix_exp(a: dict, x: Any) -> Tensor:
    """Scaling and squaring: exp(A) = exp(A / 2**s) ** (2**s), the scaled exponential by a degree-16 Taylor
    sum (its error below 1e-20 for a norm <= 0.5)."""
    x = as_tensor(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"MatrixExp: input must be (..., n, n), got {x.shape}")
    norm = float(np.max(np.abs(x.asnumpy()).sum(-1))) if x.size else 0.0
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    scaled = x / float(2 ** s)
    eye = F.broadcast_to(F.eye(x.shape[-1], dtype=x.dtype), x.shape)
    term, total = eye, eye
    for k in range(1, 17):
        term = F.matmul(term, scaled) / float(k)
        total = total + term
    for _ in range(s):
        total = F.matmul(total, total)
    return total


def _quantile(a: dict, x: Any, q: Any) -> Tensor:
    """``ops.quantile``'s computation (ops/api/quantiles.py) with the primitive's attributes."""
    return quantiles.quantile("Quantile", x, q, a["dim"], a["keep_dims"], a["ignore_nan"])


def _last2(v: Any, what: str) -> tuple[int, int]:
    v = tuple(v) if isinstance(v, (list, tuple)) else (v, v)
    if len(v) not in (2, 4):
        raise ValueError(f"{what} must be an int, or 2 or 4 ints, got {v}")
    return (v[-2], v[-1])


def _windows(x: Tensor, k: tuple, st: tuple, rate: tuple, padding: str, fill: float) -> list[Tensor]:
    """The (kh * kw) strided views of ``x`` (N, C, H, W), one per window offset (i, j) in row order; "SAME"
    pads ``fill`` the TensorFlow way (the odd row/column after)."""
    span = [(kk - 1) * r + 1 for kk, r in zip(k, rate)]
    if padding.upper() == "SAME":
        outs = [math.ceil(n / s) for n, s in zip(x.shape[2:], st)]
        tot = [max((o - 1) * s + sp - n, 0) for o, s, sp, n in zip(outs, st, span, x.shape[2:])]
        x = F.pad(x, (tot[1] // 2, tot[1] - tot[1] // 2, tot[0] // 2, tot[0] - tot[0] // 2), "constant", fill)
    elif padding.upper() != "VALID":
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    outs = [(n - sp) // s + 1 for n, sp, s in zip(x.shape[2:], span, st)]
    if min(outs) < 1:
        raise ValueError(f"the window {tuple(span)} is larger than the (padded) input {x.shape[2:]}")
    n, c = x.shape[:2]
    return [F.strided_slice(x, (0, 0, i * rate[0], j * rate[1]),
                            (n, c, i * rate[0] + (outs[0] - 1) * st[0] + 1, j * rate[1] + (outs[1] - 1) * st[1] + 1),
                            (1, 1, *st)) for i in range(k[0]) for j in range(k[1])]


def _extract_image_patches(a: dict, x: Any) -> Tensor:
    """(N, C, H, W) -> (N, kh * kw * C, OH, OW), channel order (kh, kw, c) with c fastest, as TensorFlow's."""
    x = as_tensor(x)
    k, st = _last2(a["ksizes"], "ksizes"), _last2(a["strides"], "strides")
    pieces = _windows(x, k, st, _last2(a["rates"], "rates"), a["padding"], 0.0)
    return F.reshape(F.stack(pieces, 1), (x.shape[0], len(pieces) * x.shape[1], *pieces[0].shape[2:]))


def _dilation2d(a: dict, x: Any, kernel: Any) -> Tensor:
    """Grayscale morphological dilation: max over the window of x + filter (positions outside ignored)."""
    x, w = as_tensor(x), as_tensor(kernel)
    if w.ndim != 3 or w.shape[0] != x.shape[1]:
        raise ValueError(f"Dilation2D: filter must be (C={x.shape[1]}, kh, kw), got {w.shape}")
    pieces = _windows(x, w.shape[1:], _last2(a["stride"], "stride"), _last2(a["dilation"], "dilation"),
                      a["pad_mode"], float("-inf"))
    taps = F.reshape(w, (w.shape[0], -1))
    out = None
    for t, piece in enumerate(pieces):
        v = piece + F.reshape(F.narrow(taps, 1, t, 1), (1, w.shape[0], 1, 1))
        out = v if out is None else F.maximum(out, v)
    return out


def _float_status(a: dict, x: Any) -> Tensor:
    """[1.] when ``x`` holds a NaN or an infinity, else [0.] (float32, shape (1,))."""
    x = as_tensor(x)
    if not x.dtype.is_float:
        raise TypeError(f"FloatStatus: the input must be a float16/float32/float64 Tensor, got {x.dtype}")
    return F.cast(F.reshape(F.logical_not(F.all(F.isfinite(x))), (1,)), "float32")


def _npu_status(name: str) -> Callable:
    def refuse(a: dict, *args: Any) -> Tensor:
        # MindSpore's CPU refuses these too ("Unsupported op"): they read and clear the overflow flags of
        # Ascend's float unit, which a CPU does not keep.
        raise RuntimeError(f"{name}: reads the Ascend NPU's float overflow flags, which the CPU has not; check "
                           "gradients with ops.FloatStatus or amp.all_finite instead (as MindSpore's GPU path does)")
    return refuse


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "FloatStatus": ((), _float_status, "[1.] if the input holds a NaN or an infinity, else [0.] (float32)."),
    "NPUAllocFloatStatus": ((), _npu_status("NPUAllocFloatStatus"),
                            "Ascend's overflow-flag buffer (constructible; calling it raises, as MindSpore's CPU)."),
    "NPUGetFloatStatus": ((), _npu_status("NPUGetFloatStatus"),
                          "Ascend's overflow flags (constructible; calling it raises, as MindSpore's CPU)."),
    "NPUClearFloatStatus": ((), _npu_status("NPUClearFloatStatus"),
                            "Clears Ascend's overflow flags (constructible; calling it raises, as MindSpore's CPU)."),
    "TripletMarginLoss": ((("p", 2), ("swap", False), ("eps", 1e-6), ("reduction", "mean")), _triplet,
                          "max(d(x, positive) - d(x, negative) + margin, 0) with p-norm distances."),
    "MultilabelMarginLoss": ((("reduction", "mean"),), _multilabel_margin,
                             "The multi-label hinge loss and the 0/1 mask of each row's target classes."),
    "SparseGatherV2": ((), lambda a, x, indices, axis: F.gather(x, indices, int(_scalar(axis))),
                       "Slices of x at indices along axis (``Gather``)."),
    "ScatterNonAliasingAdd": ((), _scatter_non_aliasing_add, "Adds updates into input_x at N-D indices."),
    "DepthwiseConv2dNative": ((("channel_multiplier", REQUIRED), ("kernel_size", REQUIRED), ("mode", 3),
                               ("pad_mode", "valid"), ("pad", 0), ("stride", 1), ("dilation", 1), ("group", 1)),
                              _depthwise, "Depthwise 2-D convolution, ``channel_multiplier`` filters per channel."),
    "ConfusionMatrix": ((("num_classes", REQUIRED), ("dtype", "int32")), _confusion_matrix,
                        "The (num_classes, num_classes) matrix of (weighted) label/prediction counts."),
    "ExtractImagePatches": ((("ksizes", REQUIRED), ("strides", REQUIRED), ("rates", REQUIRED),
                             ("padding", "VALID")), _extract_image_patches,
                            "The (kh, kw) patches of an (N, C, H, W) input as channels (TensorFlow's order)."),
    "Dilation2D": ((("stride", REQUIRED), ("dilation", REQUIRED), ("pad_mode", "SAME"), ("data_format", "NCHW")),
                   _dilation2d, "Grayscale dilation: the window maximum of x + filter."),
    "MatrixExp": ((), _matrix_exp, "The matrix exponential of each square matrix."),
    "Quantile": ((("dim", None), ("keep_dims", False), ("ignore_nan", False)), _quantile,
                 "The q-th quantiles along ``dim`` (linear interpolation)."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
