"""Normalisations: Softmax, LogSoftmax, BatchNorm (inference form) and LayerNorm.

Statistics of half-type inputs are computed in float32 (as the kernels do: targets/cpu/kernels/
normalization.py) and the references follow the same rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS, BY_NAME
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.parameter import Parameter
from ..core.tensor import Tensor, as_tensor
from .primitive import Primitive, apply, declare
from .registry import OpDef, norm_axis, same_dtype


def _check_attrs(op: str, attrs: dict, allowed: set[str], ins: Sequence[TensorType]) -> None:
    unknown = set(attrs) - allowed
    if unknown:
        raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected {', '.join(sorted(allowed))})",
                         list(ins))


def _float_attr(op: str, name: str, value, ins: Sequence[TensorType]) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ShapeError(op, f"{name} must be a float, got {value!r}", list(ins))
    if not value >= 0:
        raise ShapeError(op, f"{name} must be >= 0, got {value!r}", list(ins))
    return float(value)


# ---- Softmax / LogSoftmax -------------------------------------------------------------------------

def _softmax_normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        _check_attrs(op, attrs, {"axis"}, ins)
        axis = attrs.get("axis", -1)
        if isinstance(axis, (tuple, list)):  # MindSpore accepts a 1-tuple
            if len(axis) != 1:
                raise ShapeError(op, f"axis must be one int (or a 1-tuple), got {axis!r}", list(ins))
            axis = axis[0]
        if ins[0].rank == 0:
            raise ShapeError(op, "input must have rank >= 1", list(ins))
        return {"axis": norm_axis(op, axis, ins[0].rank, ins)}

    return normalize


def _softmax_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(ins[0].shape, same_dtype(op, ins, ALL_FLOATS))]

    return infer


def _in_float32(ref: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The reference of a half type: the float32 result rounded once, as the kernels compute it."""
    def wrapped(attrs: dict, x: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 and x.dtype.kind != "i" and x.dtype.kind != "u":
            return ref(attrs, x.astype(np.float32)).astype(x.dtype)
        return ref(attrs, x)

    return wrapped


@_in_float32
def _softmax_f32_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=attrs["axis"], keepdims=True))
    return e / np.sum(e, axis=attrs["axis"], keepdims=True)


def _softmax_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    """float16 follows MindSpore's CPU kernel, every step a float16 result (x - max, its exponential, their
    sum, the quotient); the other dtypes compute in float32 or float64 and round once."""
    if x.dtype != np.float16:
        return _softmax_f32_ref(attrs, x)
    axis, h = attrs["axis"], np.float16
    z = (x.astype(np.float32) - np.max(x, axis=axis, keepdims=True).astype(np.float32)).astype(h)
    e = np.exp(z.astype(np.float32)).astype(h).astype(np.float32)
    return (e / np.sum(e, axis=axis, keepdims=True).astype(h).astype(np.float32)).astype(h)


@_in_float32
def _log_softmax_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    z = x - np.max(x, axis=attrs["axis"], keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=attrs["axis"], keepdims=True))


def _softmax_init(self, axis: int = -1) -> None:
    Primitive.__init__(self, axis=axis)


Softmax = declare(
    OpDef("Softmax", _softmax_infer("Softmax"), _softmax_ref,
          normalize=_softmax_normalize("Softmax"), n_inputs=1),
    "Softmax(axis=-1)(x): exp(x - max) / sum(exp(x - max)) along ``axis`` (floats).", init=_softmax_init)
LogSoftmax = declare(
    OpDef("LogSoftmax", _softmax_infer("LogSoftmax"), _log_softmax_ref,
          normalize=_softmax_normalize("LogSoftmax"), n_inputs=1),
    "LogSoftmax(axis=-1)(x): (x - max) - log(sum(exp(x - max))) along ``axis`` (floats).", init=_softmax_init)


# ---- BatchNorm (inference) ----------------------------------------------------------------------------

_BN_INPUTS = ("x", "scale", "bias", "mean", "variance")


def _bn_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    _check_attrs("BatchNorm", attrs, {"is_training", "epsilon", "momentum", "data_format"}, ins)
    if attrs.get("is_training", False):
        raise ShapeError("BatchNorm", "the BatchNorm op is the inference form; is_training=True is the "
                                      "BatchNormTraining op, which ops.BatchNorm(is_training=True) applies",
                         list(ins))
    fmt = attrs.get("data_format", "NCHW")
    if fmt not in ("NCHW", "NHWC"):
        raise ShapeError("BatchNorm", f"data_format must be 'NCHW' or 'NHWC', got {fmt!r}", list(ins))
    _float_attr("BatchNorm", "momentum", attrs.get("momentum", 0.1), ins)  # unused by inference; still checked
    # momentum only updates running statistics in training: it does not shape the kernel, so it is dropped.
    # A rank-2 input has its channels last whatever data_format says: one canonical spelling, one kernel.
    return {"epsilon": _float_attr("BatchNorm", "epsilon", attrs.get("epsilon", 1e-5), ins),
            "data_format": fmt if ins[0].rank == 4 else "NCHW"}


def _bn_channel_axis(attrs: dict, rank: int) -> int:
    return 3 if (rank == 4 and attrs["data_format"] == "NHWC") else 1


def _bn_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x = ins[0]
    # x in any float type; scale, bias, mean and variance in x's type or, for a half x, float32 (MindSpore's
    # float16 BatchNorm takes float32 parameters, which mixed precision keeps in float32).
    dt = same_dtype("BatchNorm", ins[:1], ALL_FLOATS)
    allowed = (dt, "float32") if BY_NAME[dt].is_half else (dt,)
    for name, t in zip(_BN_INPUTS[1:], ins[1:]):
        if t.dtype not in allowed:
            raise ShapeError("BatchNorm", f"{name} must be {' or '.join(allowed)} for x of {dt}, got {t.dtype}",
                             list(ins))
    if x.rank not in (2, 4):
        raise ShapeError("BatchNorm", f"x must have rank 2 (N, C) or 4 ({attrs['data_format']}), got rank {x.rank}",
                         list(ins))
    c = x.shape[_bn_channel_axis(attrs, x.rank)]
    for name, t in zip(_BN_INPUTS[1:], ins[1:]):
        if t.shape != (c,):
            raise ShapeError("BatchNorm", f"{name} must have shape ({c},) (the channels of x), got {list(t.shape)}",
                             list(ins))
    return [TensorType(x.shape, dt)]


def _bn_ref(attrs: dict, x, scale, bias, mean, variance) -> np.ndarray:
    shape = [1] * x.ndim
    shape[_bn_channel_axis(attrs, x.ndim)] = -1

    def per_channel(v: np.ndarray) -> np.ndarray:
        return v.reshape(shape)

    out_dtype = x.dtype
    if out_dtype.itemsize == 2:  # half types: the float32 result rounded once
        x, scale, bias, mean, variance = (np.asarray(v, np.float32) for v in (x, scale, bias, mean, variance))
        eps = np.float32(attrs["epsilon"])
        y = (x - per_channel(mean)) / np.sqrt(per_channel(variance) + eps) * per_channel(scale) + per_channel(bias)
        return y.astype(out_dtype)
    eps = x.dtype.type(attrs["epsilon"])
    return (x - per_channel(mean)) / np.sqrt(per_channel(variance) + eps) * per_channel(scale) + per_channel(bias)


def _bn_init(self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1,
             data_format: str = "NCHW") -> None:
    Primitive.__init__(self, is_training=is_training, epsilon=epsilon, momentum=momentum, data_format=data_format)


def _bn_call(self, x, scale, bias, mean, variance):
    if not self.attrs.get("is_training", False):
        # MindSpore's primitive returns five outputs in inference too; its CPU kernel gives zeros of the
        # channel count for the four statistics (no batch statistics are computed), and so does this.
        y = apply("BatchNorm", self.attrs, [x, scale, bias, mean, variance])
        zeros = Tensor(np.zeros(as_tensor(mean).shape, np.float32))
        return y, zeros, zeros, zeros, zeros
    # Training: ops/norm_train.py's kernel normalises with the batch statistics and computes the moving
    # statistics' update, which is written into ``mean``/``variance`` in place when they are Parameters, as
    # MindSpore does (an Assign node in a graph, ops/optim.py: the executor binds its output to the Parameter).
    y, bmean, bvar, save_mean, save_rstd, new_mean, new_var = apply(
        "BatchNormTraining", self.attrs, [x, scale, bias, mean, variance])
    for target, value in ((mean, new_mean), (variance, new_var)):
        if isinstance(target, Parameter):
            apply("Assign", {}, [target, value])
    return y, bmean, bvar, save_mean, save_rstd


BatchNorm = declare(
    OpDef("BatchNorm", _bn_infer, _bn_ref, normalize=_bn_normalize, n_inputs=5, keep_dtype=(1, 2, 3, 4)),
    "BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(x, scale, bias, mean, "
    "variance): y = (x - mean) / sqrt(variance + epsilon) * scale + bias per channel, x of rank 2 (N, C) or "
    "4 (NCHW or NHWC). Inference (is_training=False) returns (y, zeros, zeros, zeros, zeros), MindSpore's five "
    "outputs (its CPU kernel computes no statistics in inference). is_training=True normalises with the batch's "
    "statistics and returns (y, batch_mean, batch_variance, save_mean, save_rstd), and updates mean and "
    "variance (Parameters) to (1 - momentum) * old + momentum * batch statistics, as MindSpore does.",
    init=_bn_init, call=_bn_call)


# ---- LayerNorm -------------------------------------------------------------------------------------

def _ln_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    _check_attrs("LayerNorm", attrs, {"begin_norm_axis", "begin_params_axis", "epsilon"}, ins)
    rank = ins[0].rank
    if rank == 0:
        raise ShapeError("LayerNorm", "x must have rank >= 1", list(ins))
    return {"begin_norm_axis": norm_axis("LayerNorm", attrs.get("begin_norm_axis", 1), rank, ins),
            "begin_params_axis": norm_axis("LayerNorm", attrs.get("begin_params_axis", 1), rank, ins),
            "epsilon": _float_attr("LayerNorm", "epsilon", attrs.get("epsilon", 1e-7), ins)}


def _ln_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("LayerNorm", ins, ALL_FLOATS)
    x = ins[0]
    bna, bpa = attrs["begin_norm_axis"], attrs["begin_params_axis"]
    want = x.shape[bpa:]
    for name, t in zip(("gamma", "beta"), ins[1:]):
        if t.shape != want:
            raise ShapeError("LayerNorm", f"{name} must have shape x.shape[begin_params_axis={bpa}:] = {list(want)}, "
                                          f"got {list(t.shape)}", list(ins))
    stats = TensorType(x.shape[:bna] + (1,) * (x.rank - bna), dt)
    return [TensorType(x.shape, dt), stats, stats]


def _ln_ref(attrs: dict, x, gamma, beta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    axes = tuple(range(attrs["begin_norm_axis"], x.ndim))
    if x.dtype.itemsize == 2:  # half types: the float32 results rounded once
        outs = _ln_ref(attrs, *(np.asarray(v, np.float32) for v in (x, gamma, beta)))
        return tuple(o.astype(x.dtype) for o in outs)
    with np.errstate(all="ignore"):
        mean = np.mean(x, axis=axes, keepdims=True)
        var = np.mean(np.square(x - mean), axis=axes, keepdims=True)
        y = (x - mean) / np.sqrt(var + x.dtype.type(attrs["epsilon"])) * gamma + beta
    return y, mean, var


def _ln_init(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7) -> None:
    Primitive.__init__(self, begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis, epsilon=epsilon)


LayerNorm = declare(
    OpDef("LayerNorm", _ln_infer, _ln_ref, normalize=_ln_normalize, n_inputs=3, multi_output=True),
    "LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(x, gamma, beta) -> (y, mean, variance): "
    "normalises x over axes [begin_norm_axis, rank); gamma and beta have shape x.shape[begin_params_axis:]. "
    "mean and variance (biased) keep the normalised axes with size 1, as in MindSpore <= 2.2 (later versions "
    "return rstd = 1 / sqrt(variance + epsilon) in place of variance).",
    init=_ln_init)


PRIMITIVES: dict[str, type[Primitive]] = {
    "Softmax": Softmax, "LogSoftmax": LogSoftmax, "BatchNorm": BatchNorm, "LayerNorm": LayerNorm}


# ---- gradient rules (composed of primitives) ------------------------------------------------------------

from . import gradlib as G  # noqa: E402
from .registry import grad_rule  # noqa: E402


@grad_rule("Softmax")
def _softmax_grad(attrs, ins, outs, douts):
    # dx = y * (dy - sum(dy * y, axis)), MindSpore's Softmax bprop.
    y, dy = outs[0], douts[0]
    return [G.mul(y, G.sub(dy, G.reduce_sum(G.mul(dy, y), [attrs["axis"]], keep_dims=True)))]


@grad_rule("LogSoftmax")
def _log_softmax_grad(attrs, ins, outs, douts):
    # dx = dy - exp(y) * sum(dy, axis)
    y, dy = outs[0], douts[0]
    return [G.sub(dy, G.mul(G.unary("Exp", y), G.reduce_sum(dy, [attrs["axis"]], keep_dims=True)))]


def _mean(x, axes):
    return apply("ReduceMean", {"axis": tuple(axes), "keep_dims": True}, [x])


@grad_rule("LayerNorm")
def _layer_norm_grad(attrs, ins, outs, douts):
    """LayerNormGrad composed of primitives. Only ``y``'s cotangent is used: mean and variance are
    statistics MindSpore's bprop also ignores (they feed no loss in practice)."""
    x, gamma, _ = ins
    _, mean, var = outs
    dy = douts[0]
    if dy is None:
        return [None, None, None]
    axes = list(range(attrs["begin_norm_axis"], len(x.shape)))
    batch = list(range(len(x.shape) - len(gamma.shape)))  # the axes gamma/beta are broadcast along
    rstd = G.unary("Rsqrt", G.add(var, G.const(attrs["epsilon"], var)))
    xhat = G.mul(G.sub(x, mean), rstd)
    dbeta = G.reduce_sum(dy, batch) if batch else dy
    dxhat_gamma = G.mul(dy, xhat)
    dgamma = G.reduce_sum(dxhat_gamma, batch) if batch else dxhat_gamma
    g = G.mul(dy, gamma)
    dx = G.mul(rstd, G.sub(G.sub(g, _mean(g, axes)), G.mul(xhat, _mean(G.mul(g, xhat), axes))))
    return [dx, dgamma, dbeta]


@grad_rule("BatchNorm")
def _batch_norm_grad(attrs, ins, outs, douts):
    """Inference-form BatchNorm (a network in eval mode being fine-tuned, frozen statistics): ``y = (x -
    mean) * rsqrt(var + eps) * scale + bias`` is affine in x, so ``dx = dy * scale * rstd``, ``dscale =
    sum(dy * xhat)``, ``dbias = sum(dy)`` over every axis but the channel one. The moving mean and variance
    get no cotangent, as in MindSpore's bprop of BatchNorm with is_training=False."""
    x, scale, _, mean, var = ins
    dy = douts[0]
    if dy is None:
        return [None] * 5
    x_dt = x._type.dtype
    if x_dt != mean._type.dtype:  # a half x beside float32 statistics (mixed precision): computed in float32
        x, dy = (apply("Cast", {"dtype": mean._type.dtype}, [t]) for t in (x, dy))
    rank = len(x.shape)
    axis = _bn_channel_axis(attrs, rank)
    shape = [1] * rank
    shape[axis] = x.shape[axis]
    others = [d for d in range(rank) if d != axis]
    rstd = G.unary("Rsqrt", G.add(var, G.const(attrs["epsilon"], var)))
    xhat = G.mul(G.sub(x, G.reshape(mean, shape)), G.reshape(rstd, shape))
    dx = G.mul(dy, G.reshape(G.mul(scale, rstd), shape))
    if x_dt != dx._type.dtype:
        dx = apply("Cast", {"dtype": x_dt}, [dx])
    return [dx, G.reduce_sum(G.mul(dy, xhat), others), G.reduce_sum(dy, others), None, None]
