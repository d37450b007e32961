"""BatchNorm in training mode and its backward, as operators with kernels of their own.

``BatchNormTraining(epsilon, momentum, data_format)(x, scale, bias, mean, variance)`` is what
``ops.BatchNorm(is_training=True)`` applies (ops/normalization.py): it normalises with the batch's statistics and also
computes the moving statistics' update with the primitive's convention,
``new = (1 - momentum) * old + momentum * batch`` (nn.BatchNorm2d passes ``1 - its momentum``, MindSpore's
``moving = moving * momentum + batch * (1 - momentum)``); the moving variance takes the batch's unbiased
variance (``m / (m - 1)`` times the biased one, ``m`` the elements per channel) as the CPU and GPU kernels of
MindSpore and torch do, while the output is normalised with the biased one.
Outputs: ``y, batch_mean, batch_variance, save_mean, save_rstd, new_mean, new_variance``. A training kernel
differs from the inference BatchNorm in its op and descriptor, so the two scenarios never share an entry by
mistake, and forward kernels equal in both (convolutions, activations) stay one entry.

``BatchNormGrad(data_format)(dy, x, scale, save_mean, save_rstd) -> (dx, dscale, dbias)`` is the backward.
Statistics accumulate in double per channel (the CPU's kernels: targets/cpu/kernels/norm_train.py).

Half types (docs/dtypes.md): x (and dy) may be float16 or bfloat16 with scale, bias, mean and variance either
in x's type or all in float32 (MindSpore's float16 BatchNorm; mixed precision keeps them in float32). Every
element is loaded into float, the arithmetic and the accumulation run in double as for float32, and each
output rounds once on store: y and dx to x's type, the per-channel statistics and gradients to the
parameters' type (MindSpore's outputs take scale's type).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS, BY_NAME
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .normalization import _bn_channel_axis, _bn_infer, _bn_normalize, _float_attr
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype


def _train_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    attrs = dict(attrs)
    momentum = _float_attr("BatchNormTraining", "momentum", attrs.pop("momentum", 0.1), ins)
    if momentum > 1:
        raise ShapeError("BatchNormTraining", f"momentum must be in [0, 1], got {momentum!r}", list(ins))
    attrs.pop("is_training", None)
    return {**_bn_normalize(attrs, ins), "momentum": momentum}


def _param_dtype(op: str, x: str, params: Sequence[TensorType], ins: Sequence[TensorType]) -> str:
    """The one dtype of the per-channel inputs: x's, or float32 for a half x (ShapeError otherwise)."""
    allowed = (x, "float32") if BY_NAME[x].is_half else (x,)
    kinds = {t.dtype for t in params}
    if len(kinds) != 1 or not kinds <= set(allowed):
        raise ShapeError(op, f"the per-channel inputs must all be {' or all '.join(allowed)} for x of {x}, got "
                             f"{', '.join(t.dtype for t in params)} (cast them with ops.Cast)", list(ins))
    return kinds.pop()


def _train_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    (y,) = _bn_infer(attrs, ins)
    c = TensorType(ins[1].shape, _param_dtype("BatchNormTraining", y.dtype, ins[1:], ins))
    return [y, c, c, c, c, c, c]


def _per_channel(attrs: dict, x: np.ndarray) -> tuple[tuple[int, ...], list[int]]:
    axis = _bn_channel_axis(attrs, x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    return tuple(d for d in range(x.ndim) if d != axis), shape


def _train_ref(attrs: dict, x, scale, bias, mean, variance):
    axes, shape = _per_channel(attrs, x)
    x64 = x.astype(np.float64)
    bm, bv = x64.mean(axis=axes), x64.var(axis=axes)
    m = x.size // max(scale.size, 1)
    rstd = 1.0 / np.sqrt(bv + attrs["epsilon"])
    y = (x64 - bm.reshape(shape)) * (rstd * scale.astype(np.float64)).reshape(shape) \
        + bias.astype(np.float64).reshape(shape)
    mom = attrs["momentum"]
    unb = bv * (m / (m - 1) if m > 1 else 1.0)
    # Computed in float64 as the kernel is, each output rounded once to its type (y: x's; the rest: scale's).
    stats = (bm, bv, bm, rstd, (1 - mom) * mean.astype(np.float64) + mom * bm,
             (1 - mom) * variance.astype(np.float64) + mom * unb)
    return (y.astype(x.dtype), *(v.astype(scale.dtype) for v in stats))


@defop(infer=_train_infer, reference=_train_ref, normalize=_train_normalize, n_inputs=5,
       multi_output=True, keep_dtype=(1, 2, 3, 4))
class BatchNormTraining(Primitive):
    """Internal op behind ``ops.BatchNorm(is_training=True)``: ``(x, scale, bias, mean, variance) -> (y,
    batch_mean, batch_variance, save_mean, save_rstd, new_mean, new_variance)`` (see the module docstring)."""


def _grad_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    fmt = attrs.get("data_format", "NCHW")
    if set(attrs) - {"data_format"} or fmt not in ("NCHW", "NHWC"):
        raise ShapeError("BatchNormGrad", f"attributes must be data_format='NCHW'|'NHWC', got {attrs}", list(ins))
    return {"data_format": fmt if ins[1].rank == 4 else "NCHW"}


def _grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("BatchNormGrad", ins[:2], ALL_FLOATS)
    pt = _param_dtype("BatchNormGrad", dt, ins[2:], ins)
    dy, x = ins[0], ins[1]
    if dy.shape != x.shape or x.rank not in (2, 4):
        raise ShapeError("BatchNormGrad", "dy and x must have one shape of rank 2 or 4", list(ins))
    c = x.shape[_bn_channel_axis(attrs, x.rank)]
    if any(t.shape != (c,) for t in ins[2:]):
        raise ShapeError("BatchNormGrad", f"scale, save_mean and save_rstd must have shape ({c},)", list(ins))
    return [TensorType(x.shape, dt), TensorType((c,), pt), TensorType((c,), pt)]


def _grad_ref(attrs: dict, dy, x, scale, save_mean, save_rstd):
    axes, shape = _per_channel(attrs, x)
    m = x.size // max(scale.size, 1)
    mu, rstd, g = (v.astype(np.float64) for v in (save_mean, save_rstd, scale))
    dy64 = dy.astype(np.float64)
    xh = (x.astype(np.float64) - mu.reshape(shape)) * rstd.reshape(shape)
    sdy, sdyx = dy64.sum(axis=axes), (dy64 * xh).sum(axis=axes)
    dx = (g * rstd / m).reshape(shape) * (m * dy64 - sdy.reshape(shape) - xh * sdyx.reshape(shape))
    # float64 as the kernel computes, each output rounded once (dx to x's type, the rest to scale's).
    return dx.astype(x.dtype), sdyx.astype(scale.dtype), sdy.astype(scale.dtype)


@defop(infer=_grad_infer, reference=_grad_ref, normalize=_grad_normalize, n_inputs=5,
       multi_output=True, scenario="backward", keep_dtype=(2, 3, 4))
class BatchNormGrad(Primitive):
    """Internal backward op (MindSpore's BatchNormGrad): ``(dy, x, scale, save_mean, save_rstd) -> (dx,
    dscale, dbias)`` of training-mode BatchNorm."""


@grad_rule("BatchNormTraining")
def _bn_train_grad(attrs, ins, outs, douts):
    # Only y's cotangent flows back (the statistics outputs feed the moving averages, not a loss), as in
    # MindSpore's bprop; the moving mean and variance inputs get none.
    if douts[0] is None:
        return [None] * 5
    dx, dscale, dbias = apply("BatchNormGrad", {"data_format": attrs["data_format"]},
                              [douts[0], ins[0], ins[1], outs[3], outs[4]])
    return [dx, dscale, dbias, None, None]


# BatchNormGrad has no rule: a second derivative through training-mode BatchNorm is refused, not zero.

PRIMITIVES: dict[str, type[Primitive]] = {}  # internal ops: ops.BatchNorm(is_training=True) reaches them
