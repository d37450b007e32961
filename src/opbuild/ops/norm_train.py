"""BatchNorm in training mode and its backward, as operators with kernels of their own.

``BatchNormTraining(epsilon, momentum, data_format)(x, scale, bias, mean, variance)`` is what
``ops.BatchNorm(is_training=True)`` applies (ops/norm.py): it normalises with the batch's statistics and also
computes the moving statistics' update with the primitive's convention,
``new = (1 - momentum) * old + momentum * batch`` (nn.BatchNorm2d passes ``1 - its momentum``, MindSpore's
``moving = moving * momentum + batch * (1 - momentum)``); the moving variance takes the batch's unbiased
variance (``m / (m - 1)`` times the biased one, ``m`` the elements per channel) as the CPU and GPU kernels of
MindSpore and torch do, while the output is normalised with the biased one.
Outputs: ``y, batch_mean, batch_variance, save_mean, save_rstd, new_mean, new_variance``. A training kernel
differs from the inference BatchNorm in its op and descriptor, so the two scenarios never share an entry by
mistake, and forward kernels equal in both (convolutions, activations) stay one entry.

``BatchNormGrad(data_format)(dy, x, scale, save_mean, save_rstd) -> (dx, dscale, dbias)`` is the backward.
Statistics accumulate in double per channel; the layout is seen as ``(outer, C, inner)`` (NCHW: inner =
H * W; NHWC and (N, C): inner = 1), so one loop nest serves every layout.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..dtypes import FLOATS
from ..errors import ShapeError
from ..ir import KernelSpec, TensorType
from ..targets.cpu.codegen import ctype
from .norm import _bn_channel_axis, _bn_infer, _bn_normalize, _float_attr
from .primitive import Primitive, apply, defop
from .registry import grad_rule, no_grad, same_dtype


def _train_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    attrs = dict(attrs)
    momentum = _float_attr("BatchNormTraining", "momentum", attrs.pop("momentum", 0.1), ins)
    if momentum > 1:
        raise ShapeError("BatchNormTraining", f"momentum must be in [0, 1], got {momentum!r}", list(ins))
    attrs.pop("is_training", None)
    return {**_bn_normalize(attrs, ins), "momentum": momentum}


def _train_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    (y,) = _bn_infer(attrs, ins)
    c = TensorType(ins[1].shape, y.dtype)
    return [y, c, c, c, c, c, c]


def _layout(k: KernelSpec) -> tuple[int, int, int]:
    """(outer, C, inner) of the input; kept in this module (not norm.py's helpers) because the emitters'
    helpers must live in their own file for the code-generator hash (ops/sources.py) to stay per family."""
    x = k.inputs[1] if k.op == "BatchNormGrad" else k.inputs[0]
    axis = 3 if (x.rank == 4 and k.attrs["data_format"] == "NHWC") else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))


def _loop(outer: int, c: int, inner: int, body: str) -> str:
    """``body`` for every element of channel ``ch`` (index ``i``)."""
    return (f"for (int64_t o = 0; o < {outer}; o++) for (int64_t j = 0; j < {inner}; j++) {{ "
            f"const int64_t i = (o * {c} + ch) * {inner} + j; {body} }}")


def _train_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    ct = ctype(k.inputs[0].dtype)
    m = outer * inner
    mom, eps = k.attrs["momentum"], k.attrs["epsilon"]
    unbias = m / (m - 1) if m > 1 else 1.0
    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        "double s = 0, ss = 0;",
        _loop(outer, c, inner, "s += in0[i];"),
        f"const double mean = s / {m}.0;" if m else "const double mean = NAN;",
        _loop(outer, c, inner, "const double d = in0[i] - mean; ss += d * d;"),
        f"const double var = ss / {m}.0;" if m else "const double var = NAN;",
        f"const double rstd = 1.0 / sqrt(var + {eps!r});",
        "const double a = in1[ch] * rstd, b = in2[ch] - mean * a;",
        _loop(outer, c, inner, f"out0[i] = ({ct})(in0[i] * a + b);"),
        f"out1[ch] = ({ct})mean; out2[ch] = ({ct})var; out3[ch] = ({ct})mean; out4[ch] = ({ct})rstd;",
        f"out5[ch] = ({ct})((1.0 - {mom!r}) * in3[ch] + {mom!r} * mean);",
        f"out6[ch] = ({ct})((1.0 - {mom!r}) * in4[ch] + {mom!r} * var * {unbias!r});",
        "}"])


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
    y = (x64 - bm.reshape(shape)) * (rstd * scale).reshape(shape) + bias.reshape(shape)
    mom = attrs["momentum"]
    unb = bv * (m / (m - 1) if m > 1 else 1.0)
    return y, bm, bv, bm, rstd, (1 - mom) * mean + mom * bm, (1 - mom) * variance + mom * unb


@defop(infer=_train_infer, emit=_train_emit, reference=_train_ref, normalize=_train_normalize, n_inputs=5,
       multi_output=True)
class BatchNormTraining(Primitive):
    """Internal op behind ``ops.BatchNorm(is_training=True)``: ``(x, scale, bias, mean, variance) -> (y,
    batch_mean, batch_variance, save_mean, save_rstd, new_mean, new_variance)`` (see the module docstring)."""


def _grad_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    fmt = attrs.get("data_format", "NCHW")
    if set(attrs) - {"data_format"} or fmt not in ("NCHW", "NHWC"):
        raise ShapeError("BatchNormGrad", f"attributes must be data_format='NCHW'|'NHWC', got {attrs}", list(ins))
    return {"data_format": fmt if ins[1].rank == 4 else "NCHW"}


def _grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("BatchNormGrad", ins, FLOATS)
    dy, x = ins[0], ins[1]
    if dy.shape != x.shape or x.rank not in (2, 4):
        raise ShapeError("BatchNormGrad", "dy and x must have one shape of rank 2 or 4", list(ins))
    c = x.shape[_bn_channel_axis(attrs, x.rank)]
    if any(t.shape != (c,) for t in ins[2:]):
        raise ShapeError("BatchNormGrad", f"scale, save_mean and save_rstd must have shape ({c},)", list(ins))
    return [TensorType(x.shape, dt), TensorType((c,), dt), TensorType((c,), dt)]


def _grad_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    ct = ctype(k.inputs[0].dtype)
    m = outer * inner
    if m == 0:
        return f"for (int64_t ch = 0; ch < {c}; ch++) {{ out1[ch] = 0; out2[ch] = 0; }}"
    # in0 = dy, in1 = x, in2 = scale, in3 = save_mean, in4 = save_rstd
    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        "const double mu = in3[ch], rstd = in4[ch];",
        "double sdy = 0, sdyx = 0;",
        _loop(outer, c, inner, "sdy += in0[i]; sdyx += in0[i] * (in1[i] - mu) * rstd;"),
        f"const double k = in2[ch] * rstd / {m}.0;",
        _loop(outer, c, inner, f"out0[i] = ({ct})(k * ({m}.0 * in0[i] - sdy - (in1[i] - mu) * rstd * sdyx));"),
        f"out1[ch] = ({ct})sdyx; out2[ch] = ({ct})sdy;",
        "}"])


def _grad_ref(attrs: dict, dy, x, scale, save_mean, save_rstd):
    axes, shape = _per_channel(attrs, x)
    m = x.size // max(scale.size, 1)
    xh = (x.astype(np.float64) - save_mean.reshape(shape)) * save_rstd.reshape(shape)
    sdy, sdyx = dy.sum(axis=axes), (dy * xh).sum(axis=axes)
    dx = (scale * save_rstd / m).reshape(shape) * (m * dy - sdy.reshape(shape) - xh * sdyx.reshape(shape))
    return dx, sdyx, sdy


@defop(infer=_grad_infer, emit=_grad_emit, reference=_grad_ref, normalize=_grad_normalize, n_inputs=5,
       multi_output=True, scenario="backward")
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


no_grad("BatchNormGrad")

PRIMITIVES: dict[str, type[Primitive]] = {}  # internal ops: ops.BatchNorm(is_training=True) reaches them
