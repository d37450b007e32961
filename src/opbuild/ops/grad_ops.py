"""``mindspore.ops.operations._grad_ops`` (``from mindspore.ops.operations import _grad_ops as G``): the
backward primitives model zoos call in hand-written ``bprop`` methods, for the forward ops opbuild has.

Each takes MindSpore 2.10's inputs in MindSpore's order (some take the forward op's input, some its output;
``SqrtGrad(dy, y)`` but ``SigmoidGrad(y, dy)``) and is computed either from the forward op's derivative in
opbuild's elementwise kernels, when MindSpore passes the forward output, or as the vector-Jacobian product of
opbuild's forward op (its registered gradient kernels), when it passes the input. Checked against MindSpore
in tests/ops/test_grad_ops.py (tests/fixtures/mindspore/grad_ops.json). ``SoftmaxGrad`` and ``SeluGrad``
have no CPU kernel in MindSpore 2.10 (they raise there); opbuild computes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from ..transforms.forward import vjp
from . import functional as F
from . import operations as P
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive

_SELU_SCALE, _SELU_ALPHA = 1.0507009873554805, 1.6732632423543772


def _vjp(fn: Callable, dy: Any, *inputs: Any) -> tuple:
    """The gradients of ``fn(*inputs)`` for the cotangent ``dy`` (opbuild's backward kernels)."""
    _, backward = vjp(fn, *[as_tensor(x) for x in inputs])
    return tuple(backward(as_tensor(dy)))


def _first(fn: Callable) -> Callable:
    """``call(attrs, dy, x)`` -> the gradient of the one-input ``fn`` at x."""
    return lambda a, dy, x: _vjp(fn, dy, x)[0]


def _where_grad(mask_fn: Callable, scale: float = 1.0) -> Callable:
    """``call(attrs, dy, x)`` -> dy * scale where ``mask_fn(attrs, x)`` holds, else 0."""
    def call(a: dict, dy: Any, x: Any) -> Tensor:
        dy = as_tensor(dy)
        return F.select(mask_fn(a, as_tensor(x)), dy * scale if scale != 1.0 else dy, F.zeros_like(dy))
    return call


def _by_output(formula: Callable) -> Callable:
    """``call(attrs, y, dy)`` -> ``formula(y, dy)`` (MindSpore passes the forward output first)."""
    return lambda a, y, dy: formula(as_tensor(y), as_tensor(dy))


def _reduce_to(grad: Tensor, shape: tuple) -> Tensor:
    """``grad`` summed over the axes broadcasting added to ``shape``."""
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(shape) if d == 1 and grad.shape[i + extra] != 1)
    out = F.sum(grad, axes, keepdim=True) if axes else grad
    return F.reshape(out, shape)


def _min_max_grad(is_max: bool) -> Callable:
    """(dx, dy) of Maximum/Minimum: grads to the operand chosen, halved between them on ties, summed to
    each shape. Both are computed whatever ``grad_x``/``grad_y`` say (they only tell which are needed;
    MindSpore's CPU computes both too)."""
    def call(a: dict, x: Any, y: Any, grads: Any) -> tuple:
        x, y, g = as_tensor(x), as_tensor(y), as_tensor(grads)
        win = F.greater(x, y) if is_max else F.less(x, y)
        share_x = F.select(win, F.ones_like(g), F.select(F.equal(x, y), F.ones_like(g) * 0.5, F.zeros_like(g)))
        share_x = F.broadcast_to(share_x, g.shape)
        return _reduce_to(g * share_x, x.shape), _reduce_to(g * (1 - share_x), y.shape)
    return call


def _bias_add_grad(a: dict, dout: Any) -> Tensor:
    dout = as_tensor(dout)
    channel = dout.ndim - 1 if a["data_format"] == "NHWC" else 1
    return F.sum(dout, tuple(i for i in range(dout.ndim) if i != channel))


def _layer_norm_grad(a: dict, x: Any, dy: Any, variance: Any, mean: Any, gamma: Any) -> tuple:
    """(dx, dgamma, dbeta) of LayerNorm from the saved mean and variance as given (epsilon 1e-12, MindSpore
    CPU's): the chain rule through the mean and the variance, so a mean that is not x's own counts too."""
    x, dy, var, mean, gamma = (as_tensor(v) for v in (x, dy, variance, mean, gamma))
    norm_axis, param_axis = a["begin_norm_axis"] % x.ndim, a["begin_params_axis"] % x.ndim
    norm_axes = tuple(range(norm_axis, x.ndim))
    n = float(np.prod(x.shape[norm_axis:]))
    rstd = F.rsqrt(var + 1e-12)
    centred = x - mean
    g = F.reshape(gamma, (1,) * (x.ndim - gamma.ndim) + tuple(gamma.shape))
    dxhat = dy * g
    dvar = F.sum(dxhat * centred, norm_axes, keepdim=True) * (rstd * rstd * rstd * -0.5)
    dmean = (F.sum(dxhat, norm_axes, keepdim=True) * -rstd
             + dvar * F.sum(centred, norm_axes, keepdim=True) * (-2.0 / n))
    dx = dxhat * rstd + dvar * centred * (2.0 / n) + dmean / n
    batch_axes = tuple(range(param_axis))
    return dx, F.sum(dy * centred * rstd, batch_axes), F.sum(dy, batch_axes)


def _pool_grad(kind: str) -> Callable:
    def call(a: dict, x: Any, out: Any, grad: Any) -> Tensor:
        cls = P.MaxPool if kind == "max" else P.AvgPool
        prim = cls(kernel_size=a["kernel_size"], strides=a["strides"], pad_mode=a["pad_mode"],
                   data_format=a["data_format"])
        return _vjp(prim, grad, x)[0]
    return call


def _resize_bilinear_grad(a: dict, grads: Any, image: Any) -> Tensor:
    grads = as_tensor(grads)
    size = tuple(grads.shape[2:])
    prim = P.ResizeBilinearV2(align_corners=a["align_corners"], half_pixel_centers=a["half_pixel_centers"])
    return _vjp(lambda t: prim(t, size), grads, image)[0]


def _resize_nearest_grad(a: dict, grads: Any, size: Any) -> Tensor:
    grads = as_tensor(grads)
    shape = (*grads.shape[:2], *(int(s) for s in size))
    base = Tensor(np.zeros(shape, np.dtype(grads._type.dtype)))
    prim = P.ResizeNearestNeighbor(tuple(grads.shape[2:]), align_corners=a["align_corners"])
    return _vjp(prim, grads, base)[0]


def _slice_grad(a: dict, dy: Any, x: Any, begin: Any, size: Any) -> Tensor:
    return _vjp(lambda t: F.slice(t, tuple(begin), tuple(size)), dy, x)[0]


def _strided_slice_grad(a: dict, dy: Any, shapex: Any, begin: Any, end: Any, strides: Any) -> Tensor:
    dy = as_tensor(dy)
    base = Tensor(np.zeros(tuple(shapex), np.dtype(dy._type.dtype)))
    masks = (a["begin_mask"], a["end_mask"], a["ellipsis_mask"], a["new_axis_mask"], a["shrink_axis_mask"])
    return _vjp(lambda t: F.strided_slice(t, tuple(begin), tuple(end), tuple(strides), *masks), dy, base)[0]


def _mirror_pad_grad(a: dict, dy: Any, paddings: Any) -> Tensor:
    dy = as_tensor(dy)
    pads = np.asarray(as_tensor(paddings).asnumpy() if isinstance(paddings, Tensor) else paddings, np.int64)
    shape = tuple(int(d - lo - hi) for d, (lo, hi) in zip(dy.shape, pads))
    base = Tensor(np.zeros(shape, np.dtype(dy._type.dtype)))
    prim = P.MirrorPad(mode=a["mode"])
    return _vjp(lambda t: prim(t, Tensor(pads)), dy, base)[0]


def _bce_grad(a: dict, x: Any, target: Any, grad_output: Any, weight: Any = None) -> Tensor:
    return _vjp(lambda t: F.binary_cross_entropy(t, as_tensor(target), weight, a["reduction"]), grad_output, x)[0]


def _selu_grad(a: dict, gradient: Any, result: Any) -> Tensor:
    g, y = as_tensor(gradient), as_tensor(result)
    return F.select(F.greater(y, 0.0), g * _SELU_SCALE, g * (y + _SELU_SCALE * _SELU_ALPHA))


_ELEMENTWISE: dict[str, tuple] = {
    "ReluGrad": ((), _where_grad(lambda a, x: F.greater(x, 0.0)), "dy where the ReLU input x > 0."),
    "ReLU6Grad": ((), _where_grad(lambda a, x: F.logical_and(F.greater(x, 0.0), F.less_equal(x, 6.0))),
                  "dy where 0 < x <= 6 (MindSpore's edges)."),
    "SigmoidGrad": ((), _by_output(lambda y, dy: dy * y * (1 - y)), "dy * y * (1 - y), y the sigmoid output."),
    "TanhGrad": ((), _by_output(lambda y, dy: dy * (1 - y * y)), "dy * (1 - y^2), y the tanh output."),
    "SqrtGrad": ((), _by_output(lambda y, dy: dy / (2 * y)), "dy / (2 y), y the sqrt output (first)."),
    "RsqrtGrad": ((), _by_output(lambda y, dy: dy * y * y * y * -0.5), "-dy * y^3 / 2, y the rsqrt output."),
    "ReciprocalGrad": ((), _by_output(lambda y, dy: -dy * y * y), "-dy * y^2, y the reciprocal output."),
    "InvGrad": ((), _by_output(lambda y, dy: -dy * y * y), "-dy * y^2, y the Inv output."),
    "EluGrad": ((), lambda a, dout, out: _elu_grad(as_tensor(dout), as_tensor(out)),
                "dout where the ELU output > 0, else dout * (output + 1)."),
    "GeLUGrad": ((), lambda a, dy, x, y: _vjp(P.GeLU(), dy, x)[0], "dy times GeLU's derivative at x."),
    "FastGeLUGrad": ((), _first(F.fast_gelu), "dy times FastGeLU's derivative at x."),
    "HSwishGrad": ((), lambda a, dy, x: _hswish_grad(as_tensor(dy), as_tensor(x)),
                   "dy * (2x + 3) / 6 for -3 <= x <= 3, dy above, 0 below."),
    "HSigmoidGrad": ((), _where_grad(lambda a, x: F.logical_and(F.greater(x, -3.0), F.less(x, 3.0)), 1 / 6),
                     "dy / 6 where -3 < x < 3."),
    "SoftplusGrad": ((), _first(F.softplus), "gradients * sigmoid(features)."),
    "SiLUGrad": ((), _first(F.silu), "dout times SiLU's derivative at x."),
    "SeluGrad": ((), _selu_grad, "SeLU's gradient from its output."),
    "SoftmaxGrad": ((), _by_output(lambda y, dy: y * (dy - F.sum(dy * y, -1, keepdim=True))),
                    "y * (dy - sum(dy * y, -1)), y the softmax output."),
    "LogSoftmaxGrad": ((("axis", -1),), lambda a, y, g: _log_softmax_grad(as_tensor(y), as_tensor(g), a["axis"]),
                       "grad - exp(y) * sum(grad, axis), y the log-softmax output."),
    "AbsGrad": ((), lambda a, x, dout: as_tensor(dout) * F.sign(as_tensor(x)), "dout * sign(x)."),
    "ACosGrad": ((), lambda a, x, dout: -as_tensor(dout) * F.rsqrt(1 - as_tensor(x) ** 2),
                 "-dout / sqrt(1 - x^2)."),
    "AsinGrad": ((), lambda a, x, dout: as_tensor(dout) * F.rsqrt(1 - as_tensor(x) ** 2),
                 "dout / sqrt(1 - x^2)."),
    "AtanGrad": ((), lambda a, x, dout: as_tensor(dout) / (1 + as_tensor(x) ** 2), "dout / (1 + x^2)."),
    "AcoshGrad": ((), lambda a, out, dout: as_tensor(dout) / F.sinh(as_tensor(out)),
                  "dout / sinh(y), y the acosh output."),
    "AsinhGrad": ((), lambda a, out, dout: as_tensor(dout) / F.cosh(as_tensor(out)),
                  "dout / cosh(y), y the asinh output."),
    "HShrinkGrad": ((("lambd", 0.5),), _where_grad(lambda a, x: F.greater(F.abs(x), a["lambd"])),
                    "gradients where |features| > lambd."),
    "SoftShrinkGrad": ((("lambd", 0.5),), _where_grad(lambda a, x: F.greater(F.abs(x), a["lambd"])),
                       "input_grad where |input_x| > lambd."),
}


def _hswish_grad(dy: Tensor, x: Tensor) -> Tensor:
    # MindSpore's edges: the middle formula holds at both -3 and 3
    middle = F.logical_and(F.greater_equal(x, -3.0), F.less_equal(x, 3.0))
    return F.select(middle, dy * (2 * x + 3) / 6, F.select(F.greater(x, 3.0), dy, F.zeros_like(dy)))


def _elu_grad(dout: Tensor, out: Tensor) -> Tensor:
    return F.select(F.greater(out, 0.0), dout, dout * (out + 1))


def _log_softmax_grad(y: Tensor, grad: Tensor, axis: int) -> Tensor:
    return grad - F.exp(y) * F.sum(grad, axis, keepdim=True)


_COMPOSED: dict[str, tuple] = {
    "BiasAddGrad": ((("data_format", "NCHW"),), _bias_add_grad, "dout summed over all axes but the channel's."),
    "MaximumGrad": ((("grad_x", True), ("grad_y", True)), _min_max_grad(True),
                    "(dx, dy): grads routed to x where x >= y, else to y, summed to each shape."),
    "MinimumGrad": ((("grad_x", True), ("grad_y", True)), _min_max_grad(False),
                    "(dx, dy): grads routed to x where x <= y, else to y, summed to each shape."),
    "SigmoidCrossEntropyWithLogitsGrad": (
        (), lambda a, x, y, dout: as_tensor(dout) * (F.sigmoid(as_tensor(x)) - as_tensor(y)),
        "dout * (sigmoid(x) - y)."),
    "SmoothL1LossGrad": ((("beta", 1.0), ("reduction", "none")),
                         lambda a, p, t, dout: _vjp(lambda v: F.smooth_l1_loss(v, as_tensor(t), a["beta"],
                                                                                a["reduction"]), dout, p)[0],
                         "the SmoothL1Loss gradient of prediction."),
    "SliceGrad": ((), _slice_grad, "dy placed at begin in zeros shaped like x."),
    "StridedSliceGrad": ((("begin_mask", 0), ("end_mask", 0), ("ellipsis_mask", 0), ("new_axis_mask", 0),
                          ("shrink_axis_mask", 0)), _strided_slice_grad,
                         "dy scattered back to the strided slice of zeros shaped shapex."),
    "LayerNormGrad": ((("begin_norm_axis", 1), ("begin_params_axis", 1)), _layer_norm_grad,
                      "(dx, dgamma, dbeta) from x, dy, the saved variance and mean, and gamma."),
    "MaxPoolGrad": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"), ("data_format", "NCHW")),
                    _pool_grad("max"), "grad routed to each window's maximum of x."),
    "AvgPoolGrad": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "VALID"), ("data_format", "NCHW")),
                    _pool_grad("avg"), "grad spread evenly over each window of x."),
    "ResizeBilinearGrad": ((("align_corners", False), ("half_pixel_centers", False)), _resize_bilinear_grad,
                           "grads of a bilinear resize, back to the original image's shape."),
    "ResizeNearestNeighborGrad": ((("align_corners", False), ("half_pixel_centers", False)),
                                  _resize_nearest_grad, "grads of a nearest resize, back to size (H, W)."),
    "DropoutGrad": ((("keep_prob", 0.5),), lambda a, dy, mask: as_tensor(dy) * as_tensor(mask) / a["keep_prob"],
                    "dy * mask / keep_prob."),
    "FlattenGrad": ((), lambda a, x, shape: F.reshape(as_tensor(x), tuple(shape)), "x reshaped to shape."),
    "PReLUGrad": ((), lambda a, dy, x, w: _vjp(F.prelu, dy, x, w), "(dx, dweight) of PReLU."),
    "LogitGrad": ((("eps", -1.0),),
                  lambda a, grad, x: _vjp(lambda t: F.logit(t, None if a["eps"] < 0 else a["eps"]), grad, x)[0],
                  "grad times Logit's derivative at input (0 outside [eps, 1 - eps])."),
    "GluGrad": ((("axis", REQUIRED),), lambda a, grads, x: _vjp(lambda t: F.glu(t, a["axis"]), grads, x)[0],
                "the GLU gradient of x."),
    "BinaryCrossEntropyGrad": ((("reduction", "mean"),), _bce_grad, "the BinaryCrossEntropy gradient of input."),
    "MirrorPadGrad": ((("mode", "REFLECT"),), _mirror_pad_grad, "dy folded back onto the unpadded shape."),
}

PRIMITIVES: dict[str, type[Primitive]] = {
    name: make_primitive(name, params, call, doc)
    for name, (params, call, doc) in {**_ELEMENTWISE, **_COMPOSED}.items()}
for _cls in PRIMITIVES.values():
    _cls.__module__ = __name__
globals().update(PRIMITIVES)
__all__ = sorted(PRIMITIVES)
