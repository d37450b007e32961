"""Neural-network functions: ``softmax``, ``conv2d``, pooling, ``layer_norm``, ``dropout``, ``pad`` and the
losses ``cross_entropy`` and ``mse_loss``, with MindSpore 2.x's names and arguments, composed from the
primitives (a loss is a few elementwise and reduction kernels, each cached on its own)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import ALL_FLOATS, DType
from ...core.init_values import op_seed
from ...core.parameter import Parameter
from ...core.tensor import Tensor, as_tensor
from ...core.trace import engine
from ..primitive import apply
from . import array as A
from . import math as M
from .padding import pad_last
from .pool_argmax import max_pool_nd, max_pool_values

IntOrPair = int | Sequence[int]


def softmax(input, axis: int = -1, *, dtype: DType | str | None = None) -> Tensor:
    """``ops.softmax(input, axis=-1, *, dtype=None)``: exp(x) / sum(exp(x)) along ``axis`` (``dtype``
    casts the input first)."""
    x = as_tensor(input)
    if dtype is not None:
        x = M._cast(x, dtype)
    return apply("Softmax", {"axis": axis}, [x])


def log_softmax(logits, axis: int = -1) -> Tensor:
    """``ops.log_softmax(logits, axis=-1)``: log of softmax, computed stably."""
    return apply("LogSoftmax", {"axis": axis}, [as_tensor(logits)])


def _pads4(padding: IntOrPair) -> list[int]:
    """An int, (h, w) or (top, bottom, left, right) padding as four ints."""
    if isinstance(padding, numbers.Integral):
        return [int(padding)] * 4
    p = [int(v) for v in padding]
    if len(p) == 2:
        return [p[0], p[0], p[1], p[1]]
    if len(p) == 4:
        return p
    raise ValueError(f"padding must be an int or a tuple of 2 or 4 ints, got {padding!r}")


def conv2d(input, weight, bias=None, stride: IntOrPair = 1, pad_mode: str = "valid", padding: IntOrPair = 0,
           dilation: IntOrPair = 1, groups: int = 1) -> Tensor:
    """``ops.conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, dilation=1, groups=1)``:
    2-D cross-correlation of an NCHW input with an (out, in / groups, kh, kw) weight, plus ``bias``.
    ``pad_mode`` 'valid', 'same' or 'pad' (then ``padding`` is an int, (h, w) or (top, bottom, left, right))."""
    x, w = as_tensor(input), as_tensor(weight)
    pads = _pads4(padding)
    if any(pads) and pad_mode != "pad":
        raise ValueError(f"conv2d: padding {padding!r} needs pad_mode='pad' (got {pad_mode!r})")
    y = apply("Conv2D", {"out_channel": w.shape[0], "kernel_size": list(w.shape[2:]), "mode": 1,
                         "pad_mode": pad_mode, "pad": pads, "stride": stride if isinstance(stride, int) else
                         list(stride), "dilation": dilation if isinstance(dilation, int) else list(dilation),
                         "group": groups, "data_format": "NCHW"}, [x, w])
    return y if bias is None else apply("BiasAdd", {}, [y, as_tensor(bias)])


def _pool_attrs(kernel_size, stride, padding, ceil_mode) -> dict:
    pads = _pads4(padding)
    ks = kernel_size if isinstance(kernel_size, int) else list(kernel_size)
    st = ks if stride is None else (stride if isinstance(stride, int) else list(stride))
    return {"kernel_size": ks, "strides": st, "pad_mode": "pad" if any(pads) else "valid", "pad": pads,
            "ceil_mode": bool(ceil_mode), "data_format": "NCHW"}


def max_pool2d(x, kernel_size: IntOrPair, stride: IntOrPair | None = None, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, return_indices: bool = False, ceil_mode: bool = False) -> Tensor:
    """``ops.max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: 2-D max pooling of an NCHW input (stride None: the kernel size; padding an int or
    (h, w)). With ``dilation`` or ``return_indices`` it is the windowed-argmax composition of pool_argmax,
    which also returns the int64 flat index of each maximum within its (H, W) plane."""
    if dilation in (1, (1, 1), [1, 1]) and not return_indices:
        return apply("MaxPool", _pool_attrs(kernel_size, stride, padding, ceil_mode), [as_tensor(x)])
    attrs = _pool_attrs(kernel_size, stride, padding, ceil_mode)
    k, s, d = (_pair(v) for v in (attrs["kernel_size"], attrs["strides"], dilation))
    p = attrs["pad"]
    pads = [(p[0], p[1]), (p[2], p[3])]
    if not return_indices:
        return max_pool_values("max_pool2d", x, 2, k, s, d, pads, bool(ceil_mode))
    return max_pool_nd("max_pool2d", x, 2, k, s, d, pads, bool(ceil_mode))


def _pair(v: IntOrPair) -> tuple[int, int]:
    t = (v, v) if isinstance(v, numbers.Integral) else tuple(int(a) for a in v)
    if len(t) != 2 or min(t) < 1:
        raise ValueError(f"max_pool2d: kernel_size, stride and dilation must be positive ints or pairs, got {v!r}")
    return t  # type: ignore[return-value]


def avg_pool2d(input_x, kernel_size: IntOrPair = 1, stride: IntOrPair = 1, padding: IntOrPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None
               ) -> Tensor:
    """``ops.avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: 2-D average pooling of an NCHW input; ``divisor_override`` divides every
    window's sum by that number instead."""
    x = as_tensor(input_x)
    attrs = _pool_attrs(kernel_size, stride, padding, ceil_mode)
    if divisor_override is None:
        return apply("AvgPool", {**attrs, "count_include_pad": bool(count_include_pad)}, [x])
    # sum = average with every padded position counted, times the window area; then the override divides.
    ks = attrs["kernel_size"]
    area = ks * ks if isinstance(ks, int) else ks[0] * ks[1]
    avg = apply("AvgPool", {**attrs, "count_include_pad": True}, [x])
    return M.div(M.mul(avg, float(area)), float(divisor_override))


def layer_norm(input, normalized_shape: Sequence[int], weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """``ops.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5)``: normalise over the
    trailing ``normalized_shape`` axes (biased variance), then scale by ``weight`` and shift by ``bias``."""
    x = as_tensor(input)
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    if tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} does not match the input's trailing axes "
                         f"{x.shape}")
    dt = x.dtype.np_dtype
    g = as_tensor(weight) if weight is not None else Tensor(np.ones(shape, dt))
    b = as_tensor(bias) if bias is not None else Tensor(np.zeros(shape, dt))
    if x.dtype.name in ALL_FLOATS:  # float32 weights with a float16 input, as MindSpore takes them
        g, b = (t if t.dtype == x.dtype or t.dtype.name not in ALL_FLOATS else
                apply("Cast", {"dtype": x.dtype.name}, [t]) for t in (g, b))
    axis = x.ndim - len(shape)
    y, _, _ = apply("LayerNorm", {"begin_norm_axis": axis, "begin_params_axis": axis, "epsilon": eps}, [x, g, b])
    return y


def _dropout_state(seed: int | None) -> Parameter:
    """The generator state of functional dropout calls with this ``seed`` (None: one per session, seeded from
    ``set_seed`` at first use), as MindSpore's stateful random ops keep theirs: a Parameter the compiled graph
    advances in place (Assign) at every call, so each call of a graph draws a fresh mask without retracing.
    The states belong to the session (``Engine.state``), the one holder of process state."""
    states = engine().state("dropout")
    state = states.get(seed)
    if state is None:
        start = op_seed() if seed is None else int(seed)
        state = states.setdefault(seed, Parameter(np.array([start, 0], np.int64), name="dropout_state",
                                                  requires_grad=False))
    return state


def dropout(input, p: float = 0.5, training: bool = True, seed: int | None = None) -> Tensor:
    """``ops.dropout(input, p=0.5, training=True, seed=None)``: zeroes elements with probability ``p`` and
    scales the others by ``1 / (1 - p)`` when ``training``; the identity otherwise. The mask comes from the
    Dropout primitive's kernel and a generator state per ``seed`` (see ``_dropout_state``): repeatable under
    ``set_seed`` or a given ``seed``, different at every call."""
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p!r}")
    x = as_tensor(input)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return apply("ZerosLike", {}, [x])
    state = _dropout_state(seed)
    y, _ = apply("Dropout", {"keep_prob": 1.0 - float(p)}, [x, state])
    apply("Assign", {}, [state, state + Tensor(np.array([0, 1], np.int64))])
    return y


def pad(input_x, padding: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """``ops.pad(input_x, padding, mode='constant', value=None)``: ``padding`` = (left, right) pairs for the
    last axes, last axis first (PyTorch's order); ``mode`` 'constant' (the border is ``value``, None: 0),
    'reflect', 'replicate' or 'circular'; negative padding crops (ops/api/padding.py)."""
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only for mode 'constant', got value={value!r} with mode {mode!r}")
    return pad_last("pad", input_x, padding, mode, value)


def _reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return M.mean(loss)
    if reduction == "sum":
        return M.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def mse_loss(input, target, reduction: str = "mean") -> Tensor:
    """``ops.mse_loss(input, target, reduction='mean')``: (input - target)^2, averaged, summed or kept."""
    d = M.sub(as_tensor(input), target)
    return _reduce_loss(M.mul(d, d), reduction)


def cross_entropy(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``ops.cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)``: cross entropy of logits ``input`` (N, C) or (N, C, d1, ...) with class
    indices (int; ``ignore_index`` entries contribute nothing) or class probabilities (float, input's shape).

    ``weight`` (C,) rescales each class; with indices, 'mean' divides by the summed weights of the counted
    targets (as MindSpore and PyTorch do). ``label_smoothing`` mixes the target with the uniform
    distribution."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"cross_entropy: input must be (N, C) or (N, C, d1, ...), got shape {x.shape}")
    c = x.shape[1]
    logp = log_softmax(x, 1)
    bshape = [1, c] + [1] * (x.ndim - 2)
    w = A.reshape(as_tensor(weight), bshape) if weight is not None else None
    eps = float(label_smoothing)
    t = as_tensor(target)
    if t.dtype.is_float:  # probabilities
        if eps:
            t = M.add(M.mul(t, 1 - eps), eps / c)
        wt = t if w is None else M.mul(t, w)
        loss = M.neg(M.sum(M.mul(wt, logp), 1))
        return _reduce_loss(loss, reduction)
    valid = M._cast(M.ne(t, ignore_index), x.dtype)
    hot = A.one_hot(t, c, Tensor(np.array(1, x.dtype.np_dtype)), Tensor(np.array(0, x.dtype.np_dtype)), 1)
    per_w = valid if w is None else M.mul(M.sum(M.mul(hot, w), 1), valid)
    nll = M.mul(M.neg(M.sum(M.mul(hot, logp), 1)), per_w)
    if eps:
        smooth = M.neg(M.sum(logp if w is None else M.mul(logp, w), 1))
        nll = M.add(M.mul(nll, 1 - eps), M.mul(M.mul(smooth, valid), eps / c))
    if reduction == "mean":
        return M.div(M.sum(nll), M.sum(per_w))
    return _reduce_loss(nll, reduction)


__all__ = ["softmax", "log_softmax", "conv2d", "max_pool2d", "avg_pool2d", "layer_norm", "dropout", "pad",
           "mse_loss", "cross_entropy"]
