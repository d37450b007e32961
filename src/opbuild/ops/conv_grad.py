"""Backward operators of convolution and pooling, and the gradient rules of Conv2D, MaxPool, AvgPool and
GlobalAvgPool (kept here rather than in ops/convolution.py, which is at its size budget; the forward ops' attributes
are reused as they are, already normalized).

As in MindSpore, the backward computations are operators of their own with C kernels:
``Conv2DBackpropInput(dout, weight)`` (the input's cotangent), ``Conv2DBackpropFilter(dout, x)`` (the
weight's), ``MaxPoolGrad(x, y, dout)`` and ``AvgPoolGrad(x, y, dout)``. Their attributes are the forward op's
normalized attributes plus the shape being produced (``input_size`` / ``filter_size``), so a backward kernel
is keyed exactly like its forward one.

The convolution backward ops' ``algo`` attribute is chosen by shape like the forward one's (ops/conv_plan.py;
the CPU's kernels: targets/cpu/kernels/conv_grad.py). float16/bfloat16 compute in float32 (``half_conv`` in
the descriptor, as Conv2D's).

MaxPoolGrad and AvgPoolGrad take float16/bfloat16 too (``half_pool`` in the descriptor, as the forward ops):
x and dout load into float, the gradient accumulates in a float32 image in the kernel's workspace (windows
overlap, so one element may receive several contributions) and each element rounds once at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import FLOATS, HALFS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from . import gradlib as G
from .conv_plan import HALF_CONV, choose, conv_workspace
from .convolution import AVG_POOL_DTYPES, _conv_ref, _pool_ref, _windows, pool_half_attr
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype

_CONV_KEYS = ("out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride", "dilation", "group",
              "data_format")
_POOL_KEYS = ("kernel_size", "strides", "pad_mode", "pad", "ceil_mode", "data_format", "count_include_pad")


def _pool_grad_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    """The forward's normalized attributes; ``half_pool`` follows x's dtype (ops/convolution.py pool_half_attr)."""
    kept = _keep(_POOL_KEYS, None)(attrs, ins)
    return pool_half_attr(kept, ins[0]) if ins else kept


def _pool_grad_workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
    """A half gradient's float32 image (x's size); none for float32/float64."""
    return 4 * ins[0].size if ins and ins[0].dtype in HALFS else 0


def _keep(keys: Sequence[str], extra: str | None):
    """normalize of a backward op: its attributes are a forward node's normalized ones (plus ``extra``)."""

    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        wanted = [k for k in keys if k in attrs] + ([extra] if extra else [])
        missing = [k for k in ("kernel_size", "pad", extra) if k and k not in attrs]
        if missing:
            raise ShapeError("conv/pool backward", f"missing attribute(s) {missing}", list(ins))
        return {k: list(attrs[k]) if isinstance(attrs[k], (list, tuple)) else attrs[k] for k in wanted}

    return normalize


def _conv_backward_normalize(extra: str):
    """normalize of Conv2DBackpropInput/Filter: the forward's attributes, the produced shape, and the
    kernel's ``algo`` chosen from the forward geometry (ops/conv_plan.py ``choose``); the forward's own
    choice is not inherited (the backward GEMMs have other shapes)."""
    keep = _keep(_CONV_KEYS, extra)

    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        out = keep(attrs, ins)
        if len(ins) != 2 or ins[0].rank != 4:
            return out
        dy = ins[0]
        x_shape, w_shape = _forward_shapes(out, ins)
        if len(x_shape) != 4 or len(w_shape) != 4:
            return out
        algo = choose(x_shape, w_shape, dy.shape[2:], {**out, "algo": attrs.get("algo")})
        # Depthwise backward: per-group GEMMs with K or M of 1-3 rows; the direct loops do better.
        out["algo"] = "direct" if algo == "depthwise" else algo
        if dy.dtype in HALFS:
            out["half_conv"] = HALF_CONV
        return out

    return normalize


def _forward_shapes(attrs: dict, ins: Sequence[TensorType]) -> tuple[list[int], list[int]]:
    """(x shape, w shape) of the forward convolution of a backward op."""
    if "input_size" in attrs:
        return list(attrs["input_size"]), list(ins[1].shape)
    return list(ins[1].shape), list(attrs["filter_size"])


def _sized_infer(op: str, key: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(op, ins, FLOATS + HALFS)
        return [TensorType(tuple(int(d) for d in attrs[key]), dt)]

    return infer


def _input_shapes(attrs: dict, ins: Sequence[TensorType]) -> tuple[Sequence[int], Sequence[int]]:
    """(x shape, w shape) of the forward convolution of a Conv2DBackpropInput."""
    return attrs["input_size"], ins[1].shape


def _filter_shapes(attrs: dict, ins: Sequence[TensorType]) -> tuple[Sequence[int], Sequence[int]]:
    """(x shape, w shape) of the forward convolution of a Conv2DBackpropFilter."""
    return ins[1].shape, attrs["filter_size"]


def _backprop_workspace(shapes):
    """The workspace of a convolution backward op on the forward geometry ``shapes(attrs, ins)`` (none when
    there is nothing to compute; ops/conv_plan.py otherwise)."""

    def workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
        dy, other = ins
        out = outs[0]
        if out.size == 0 or dy.size == 0 or other.size == 0:
            return 0
        x_shape, w_shape = shapes(attrs, ins)
        return conv_workspace(attrs, (x_shape, w_shape, dy.shape), dy.dtype, (dy.size, other.size, out.size))

    return workspace


def _vjp_reference(fn, argnum: int, shape: Sequence[int], *args) -> np.ndarray:
    """The exact VJP of the linear map ``fn`` in argument ``argnum`` (a NumPy oracle for the kernels):
    ``<fn(..., e_i, ...), dy>`` for every basis element ``e_i``; small shapes only (tests)."""
    dy = args[-1]
    out = np.zeros(int(np.prod(shape)), np.float64)
    for i in range(out.size):
        e = np.zeros(out.size)
        e[i] = 1
        call = list(args[:-1])
        call.insert(argnum, e.reshape(shape))
        out[i] = np.sum(fn(*call) * dy)
    return out.reshape(shape)


def _conv_attrs(attrs: dict) -> dict:
    return {k: attrs[k] for k in _CONV_KEYS if k in attrs}


@defop(infer=_sized_infer("Conv2DBackpropInput", "input_size"),
       normalize=_conv_backward_normalize("input_size"), n_inputs=2, scenario="backward",
       workspace=_backprop_workspace(_input_shapes),
       reference=lambda attrs, dy, w: _vjp_reference(lambda x, w_: _conv_ref(_conv_attrs(attrs), x, w_), 0,
                                                     attrs["input_size"], w, dy))
class Conv2DBackpropInput(Primitive):
    """``Conv2DBackpropInput(...)(dout, weight)``: the cotangent of Conv2D's input (a transposed
    convolution). Attributes: the Conv2D's (normalized) plus ``input_size`` (N, C, H, W)."""


@defop(infer=_sized_infer("Conv2DBackpropFilter", "filter_size"),
       normalize=_conv_backward_normalize("filter_size"), n_inputs=2, scenario="backward",
       workspace=_backprop_workspace(_filter_shapes),
       reference=lambda attrs, dy, x: _vjp_reference(lambda w_, x_: _conv_ref(_conv_attrs(attrs), x_, w_), 0,
                                                     attrs["filter_size"], x, dy))
class Conv2DBackpropFilter(Primitive):
    """``Conv2DBackpropFilter(...)(dout, x)``: the cotangent of Conv2D's weight. Attributes: the Conv2D's
    (normalized) plus ``filter_size`` (O, C / group, KH, KW)."""


def _pool_grad_reference(avg: bool):
    forward = _pool_ref(avg)

    def reference(attrs: dict, x: np.ndarray, y: np.ndarray, dy: np.ndarray) -> np.ndarray:
        if avg:  # linear in x: the exact VJP
            return _vjp_reference(lambda x_: forward(attrs, x_), 0, x.shape, dy.astype(np.float64))
        # max: route each window's gradient to its first maximum, found with NumPy on the padded windows
        (kh, kw), stride = attrs["kernel_size"], attrs["strides"]
        t, b, left, right = attrs["pad"]
        _, _, oh, ow = dy.shape
        eb = max(0, (oh - 1) * stride[0] + kh - (x.shape[2] + t + b))
        er = max(0, (ow - 1) * stride[1] + kw - (x.shape[3] + left + right))
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, b + eb), (left, right + er)),
                    constant_values=-np.inf)
        win = _windows(xp, (kh, kw), stride, (1, 1))[:, :, :oh, :ow]
        flat = win.reshape(win.shape[:4] + (-1,)).argmax(axis=-1)
        out = np.zeros(xp.shape)
        for (nn, cc, r, q), f in np.ndenumerate(flat):
            out[nn, cc, r * stride[0] + f // kw, q * stride[1] + f % kw] += dy[nn, cc, r, q]
        return out[:, :, t:t + x.shape[2], left:left + x.shape[3]]

    return reference


def _pool_grad_infer(op: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(ins[0].shape, same_dtype(op, ins, AVG_POOL_DTYPES))]

    return infer


@defop(infer=_pool_grad_infer("MaxPoolGrad"), reference=_pool_grad_reference(False),
       normalize=_pool_grad_normalize, n_inputs=3, scenario="backward", workspace=_pool_grad_workspace)
class MaxPoolGrad(Primitive):
    """``MaxPoolGrad(...)(x, y, dout)``: MaxPool's input cotangent; each window's gradient goes to its first
    maximum (row-major). ``y`` (the forward output) is taken for MindSpore's signature."""


@defop(infer=_pool_grad_infer("AvgPoolGrad"), reference=_pool_grad_reference(True),
       normalize=_pool_grad_normalize, n_inputs=3, scenario="backward", workspace=_pool_grad_workspace)
class AvgPoolGrad(Primitive):
    """``AvgPoolGrad(...)(x, y, dout)``: AvgPool's input cotangent, each window's gradient shared by the
    pixels it averaged (the forward's divisor)."""


# ---- gradient rules of the forward ops (declared in ops/convolution.py) --------------------------------

@grad_rule("Conv2D")
def _conv_grad(attrs: dict, ins: Sequence[Any], outs: Sequence[Any], douts: Sequence[Any]) -> list:
    x, w = ins
    dy = douts[0]
    fwd = {k: v for k, v in attrs.items() if k != "algo"}  # the backward ops choose their own algorithm
    dx = apply("Conv2DBackpropInput", {**fwd, "input_size": list(x.shape)}, [dy, w])
    dw = apply("Conv2DBackpropFilter", {**fwd, "filter_size": list(w.shape)}, [dy, x])
    return [dx, dw]


@grad_rule("Conv2DBackpropInput")
def _conv_backprop_input_grad(attrs: dict, ins: Sequence[Any], outs: Sequence[Any], douts: Sequence[Any]) -> list:
    # dx = Conv2D's input VJP of (dy, w), linear in each: its cotangent g goes back through Conv2D itself
    # (for dy) and through Conv2D's weight VJP with g in the input's place (for w): the transposed conv's rule.
    dy, w = ins
    g = douts[0]
    fwd = {k: v for k, v in attrs.items() if k not in ("algo", "input_size", "half_conv")}
    ddy = apply("Conv2D", fwd, [g, w])
    dw = apply("Conv2DBackpropFilter", {**fwd, "filter_size": list(w.shape)}, [dy, g])
    return [ddy, dw]


@grad_rule("MaxPool")
def _max_pool_grad(attrs, ins, outs, douts):
    return [apply("MaxPoolGrad", attrs, [ins[0], outs[0], douts[0]])]


@grad_rule("AvgPool")
def _avg_pool_grad(attrs, ins, outs, douts):
    return [apply("AvgPoolGrad", attrs, [ins[0], outs[0], douts[0]])]


@grad_rule("GlobalAvgPool")
def _global_avg_pool_grad(attrs, ins, outs, douts):
    x = ins[0]
    hw = x.shape[2] * x.shape[3]
    return [G.broadcast_to(G.div(douts[0], float(hw)), x.shape)]


PRIMITIVES = {"Conv2DBackpropInput": Conv2DBackpropInput, "Conv2DBackpropFilter": Conv2DBackpropFilter}
