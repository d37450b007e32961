"""Gradient rules of the backward ops, for second-order derivatives (``grad`` of a function that calls ``grad``),
as MindSpore's bprops of ReluGrad, SigmoidGrad, TanhGrad, GeLUGrad, ... give them; and AllGather's rule.

These backward maps used to be marked as having no gradient, so differentiating twice through a Sigmoid, a
Tanh, a GeLU or a softmax cross-entropy gave zero instead of the second derivative (through a max pooling it is
refused: MaxPoolGrad has no rule). BatchNormGrad has no rule
yet: autodiff refuses to differentiate through it, naming it, rather than answer zero.
"""

from __future__ import annotations

import math

from ..communication.groups import resolve
from ..communication.management import is_initialized
from . import collective, conv_grad, elementwise, losses, matmul, random_ops, scatters_inplace, slicing  # noqa: F401
from . import gradlib as G
from .primitive import apply
from .registry import grad_rule
from .scatters_grad import gather_nd


def _linear_in_first(op: str):
    """The rule of ``op(dy, x)`` = ``dy`` times a function of ``x`` that is piecewise constant (a mask): the
    same map applied to the cotangent, and no gradient for ``x``."""

    def rule(attrs, ins, outs, douts):
        g = douts[0]
        if g is None:
            return [None, None]
        return [G.unbroadcast(apply(op, dict(attrs), [g, ins[1]]), ins[0].shape), None]

    return rule


for _op in ("ReluGrad", "ReLU6Grad", "DropoutGrad"):
    grad_rule(_op)(_linear_in_first(_op))


@grad_rule("SigmoidGrad")
def _sigmoid_grad_grad(attrs, ins, outs, douts):
    # SigmoidGrad(y, dy) = dy * y * (1 - y)
    y, dy = ins
    g = douts[0]
    if g is None:
        return [None, None]
    d_y = G.mul(G.mul(g, dy), G.sub(G.const(1.0, y), G.mul(y, 2.0)))
    return [G.unbroadcast(d_y, y.shape), G.unbroadcast(apply("SigmoidGrad", {}, [y, g]), dy.shape)]


@grad_rule("TanhGrad")
def _tanh_grad_grad(attrs, ins, outs, douts):
    # TanhGrad(y, dy) = dy * (1 - y^2)
    y, dy = ins
    g = douts[0]
    if g is None:
        return [None, None]
    d_y = G.mul(G.mul(g, dy), G.mul(y, -2.0))
    return [G.unbroadcast(d_y, y.shape), G.unbroadcast(apply("TanhGrad", {}, [y, g]), dy.shape)]


@grad_rule("GeLUGrad")
def _gelu_grad_grad(attrs, ins, outs, douts):
    # GeLUGrad(dy, x) = dy * (Phi(x) + x phi(x)); its x-derivative is dy * phi(x) * (2 - x^2).
    dy, x = ins
    g = douts[0]
    if g is None:
        return [None, None]
    phi = G.mul(G.unary("Exp", G.mul(G.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
    d_x = G.mul(G.mul(g, dy), G.mul(phi, G.sub(G.const(2.0, x), G.mul(x, x))))
    return [G.unbroadcast(apply("GeLUGrad", {}, [g, x]), dy.shape), G.unbroadcast(d_x, x.shape)]


@grad_rule("SparseSoftmaxCrossEntropyWithLogitsGrad")
def _sparse_ce_grad_grad(attrs, ins, outs, douts):
    # (softmax(x) - onehot) / n: the softmax's Jacobian (over the last axis) applied to g, divided by n.
    x = ins[0]
    g = douts[0]
    if g is None:
        return [None, None]
    s = apply("Softmax", {"axis": -1}, [x])
    sg = G.reduce_sum(G.mul(s, g), [len(x.shape) - 1], keep_dims=True)
    return [G.mul(G.mul(s, G.sub(g, sg)), 1.0 / x.shape[0]), None]


@grad_rule("AllGather")
def _all_gather_grad(attrs, ins, outs, douts):
    # Each rank's slice of the sum over ranks of the cotangent (a ReduceScatter, MindSpore's bprop).
    g = douts[0]
    if g is None:
        return [None]
    group = attrs.get("group", "world_group")
    total = apply("AllReduce", {"op": "sum", "scale": 1.0, "group": group}, [g])
    n = ins[0].shape[0]
    rank = resolve(group).rank if is_initialized() else 0
    return [apply("Slice", {"begin": [rank * n, *([0] * (len(g.shape) - 1))], "size": list(ins[0].shape)},
                  [total])]


@grad_rule("AvgPoolGrad")
def _avg_pool_grad_grad(attrs, ins, outs, douts):
    # AvgPoolGrad(x, y, dout) is linear in dout (the transpose of AvgPool): its own transpose is AvgPool.
    g = douts[0]
    return [None, None, None if g is None else apply("AvgPool", dict(attrs), [g])]


@grad_rule("BiasAddGrad")
def _bias_add_grad_grad(attrs, ins, outs, douts):
    # BiasAddGrad sums dout over every axis but the channels': its transpose broadcasts g back along them.
    g = douts[0]
    if g is None:
        return [None]
    return [apply("BiasAdd", {"data_format": attrs["data_format"]}, [G.zeros_like(ins[0]), g])]


def _conv_attrs(attrs: dict) -> dict:
    """The forward Conv2D's attributes inside a backward op's (its output shape and algorithm left out)."""
    return {k: v for k, v in attrs.items() if k not in ("input_size", "filter_size", "algo", "half_conv")}


@grad_rule("Conv2DBackpropFilter")
def _conv_filter_grad_grad(attrs, ins, outs, douts):
    # dw = filter gradient of (dout, x), bilinear: <g, dw> = <conv(x, g), dout>. (Conv2DBackpropInput's rule,
    # Conv2D and this op, is the pools branch's, in ops/conv_grad.py.)
    dout, x = ins
    g = douts[0]
    if g is None:
        return [None, None]
    conv = _conv_attrs(attrs)
    return [apply("Conv2D", conv, [x, g]),
            apply("Conv2DBackpropInput", {**conv, "input_size": list(x.shape)}, [dout, g])]


@grad_rule("StridedSliceGrad")
def _strided_slice_grad_grad(attrs, ins, outs, douts):
    # StridedSliceGrad writes dy into zeros at the slice's positions: its transpose reads the slice back.
    g = douts[0]
    if g is None:
        return [None]
    canon = {k: list(attrs[k]) for k in ("start", "step", "count")}
    return [apply("StridedSlice", {**canon, "shape": list(ins[0].shape)}, [g])]


@grad_rule("ScatterNdUpdateInplace")
def _scatter_nd_update_grad(attrs, ins, outs, douts):
    # MindSpore 2.10's bprop of ScatterNdUpdate: the Parameter gets the whole cotangent (overwritten rows
    # included, as MindSpore gives it), each update the cotangent of the row it wrote.
    g = douts[0]
    if g is None:
        return [None, None, None]
    return [g, None, gather_nd(g, ins[1])]
