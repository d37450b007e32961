"""Convolution backward kernels against torch's gradients, and float16/bfloat16 convolutions.

* The depthwise (``groups = C``) backward runs the vectorised ``direct`` kernels of
  targets/cpu/kernels/conv_backward_kernels.py;
  checked against ``torch.nn.functional.conv2d``'s autograd for strides, pads,
  dilations, channel multipliers and asymmetric padding, as single ops and through ``ms.grad`` of a graph.
* Half types: Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter for every algorithm, against NumPy's
  float32 result rounded once to the half type (docs/dtypes.md), the strategy recorded in the descriptor; the
  Conv1d and Conv2dTranspose cells, which run the same ops, under float16.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn
from opbuild.core.ir import TensorType
from opbuild.ops.convolution import _conv_ref
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from tests.helpers import TORCH_MISSING

torch = pytest.importorskip("torch", reason=TORCH_MISSING)
F = torch.nn.functional

pytestmark = pytest.mark.slow

# (x shape, weight shape, stride, padding (top, bottom, left, right), dilation); group = C.
DEPTHWISE = [
    ((2, 6, 9, 10), (6, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),
    ((2, 6, 9, 10), (12, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1)),  # channel multiplier 2, stride 2
    ((1, 4, 11, 13), (4, 1, 3, 3), (2, 1), (0, 0, 0, 0), (2, 2)),
    ((1, 8, 17, 15), (8, 1, 5, 5), (3, 3), (2, 2, 2, 2), (1, 2)),
    ((1, 5, 12, 12), (15, 1, 3, 5), (1, 2), (0, 2, 1, 3), (1, 1)),  # asymmetric pads, multiplier 3
    ((3, 16, 20, 24), (16, 1, 7, 7), (1, 1), (3, 3, 3, 3), (1, 1)),
    ((1, 3, 6, 6), (3, 1, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1)),  # dy 4x4: every tap clipped somewhere
]


def _forward_attrs(x_shape, w_shape, stride, pads, dil, dtype="float32", **extra):
    raw = {"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "pad_mode": "pad", "pad": list(pads),
           "stride": list(stride), "dilation": list(dil), "group": x_shape[1] // w_shape[1], **extra}
    return get("Conv2D").spec(raw, [TensorType(x_shape, dtype), TensorType(w_shape, dtype)]).attrs


def _torch_grads(x, w, dy, stride, pads, dil, group):
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    t, b, left, r = pads
    y = F.conv2d(F.pad(xt, (left, r, t, b)), wt, stride=stride, dilation=dil, groups=group)
    y.backward(torch.tensor(dy))
    return y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-11, "atol": 1e-11}


@pytest.mark.parametrize("x_shape,w_shape,stride,pads,dil", DEPTHWISE)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_depthwise_backward_ops_match_torch(x_shape, w_shape, stride, pads, dil, dtype):
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    fwd = _forward_attrs(x_shape, w_shape, stride, pads, dil, np.dtype(dtype).name)
    # small maps: the channel-vector (one output per group, 8+ channels) or the tiled kernel, faster than the loops
    assert fwd["algo"] == ("dwvec" if w_shape[0] == x_shape[1] >= 8 else "tiled")
    y_shape = apply("Conv2D", fwd, [Tensor(x), Tensor(w)]).shape
    dy = rng.standard_normal(y_shape).astype(dtype)
    _, dx_ref, dw_ref = _torch_grads(x, w, dy, stride, pads, dil, x_shape[1])
    attrs = {k: v for k, v in fwd.items() if k != "algo"}
    name = np.dtype(dtype).name
    spec_in = get("Conv2DBackpropInput").spec({**attrs, "input_size": list(x_shape)},
                                              [TensorType(y_shape, name), TensorType(w_shape, name)])
    assert spec_in.attrs["algo"] == "direct"  # the vectorised loops, not a per-group GEMM
    dx = apply("Conv2DBackpropInput", {**attrs, "input_size": list(x_shape)}, [Tensor(dy), Tensor(w)]).asnumpy()
    dw = apply("Conv2DBackpropFilter", {**attrs, "filter_size": list(w_shape)}, [Tensor(dy), Tensor(x)]).asnumpy()
    np.testing.assert_allclose(dx, dx_ref, **_tol(dtype))
    np.testing.assert_allclose(dw, dw_ref, **_tol(dtype), err_msg="filter gradient")


@pytest.mark.parametrize("x_shape,w_shape,stride,pads,dil", [DEPTHWISE[1], DEPTHWISE[4]])
def test_depthwise_gradients_of_a_graph_match_torch(x_shape, w_shape, stride, pads, dil):
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    conv = ms.ops.Conv2D(w_shape[0], list(w_shape[2:]), pad_mode="pad", pad=tuple(pads), stride=stride,
                         dilation=dil, group=x_shape[1])

    class Net(nn.Cell):
        def construct(self, a, b):
            return (conv(a, b) * conv(a, b)).sum()

    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        dx, dw = ms.grad(Net(), grad_position=(0, 1))(Tensor(x), Tensor(w))
    finally:
        ms.set_context(mode=old)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    t, b, left, r = pads
    y = F.conv2d(F.pad(xt, (left, r, t, b)), wt, stride=stride, dilation=dil, groups=x_shape[1])
    (y * y).sum().backward()
    np.testing.assert_allclose(dx.asnumpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dw.asnumpy(), wt.grad.numpy(), rtol=1e-4, atol=1e-3)


# ---- float16 / bfloat16 ---------------------------------------------------------------------------

HALF = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}

# (x shape, w shape, stride, pads, dilation, algo): one case per algorithm.
HALF_CASES = [
    ((2, 6, 7, 9), (4, 6, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), "gemm"),
    ((2, 6, 9, 10), (6, 1, 3, 3), (2, 1), (1, 1, 1, 1), (1, 1), "depthwise"),
    ((1, 4, 11, 13), (8, 2, 3, 2), (2, 1), (0, 2, 1, 1), (2, 1), "direct"),
    ((2, 3, 12, 12), (5, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 2), "im2col"),
]


def _close_half(got, ref32, dt, scale):
    """One half ulp of the float32 reference rounded once, plus 4 float32 eps x ``scale`` (the magnitude the
    kernel summed: its float32 summation order differs from NumPy's)."""
    assert got.dtype == dt
    want = ref32.astype(dt).astype(np.float32)
    tol = ULP[dt.name] * np.abs(want) + 2.0 ** -24 + 4 * np.finfo(np.float32).eps * scale
    err = np.abs(got.astype(np.float32) - want)
    assert np.all(err <= tol), f"max error {err.max()} (tolerance at worst {tol[err > tol].min()})"


def _abs_conv(attrs, x, w):
    return _conv_ref(attrs, np.abs(x), np.abs(w))


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("x_shape,w_shape,stride,pads,dil,algo", HALF_CASES, ids=[c[-1] for c in HALF_CASES])
def test_half_conv2d_forward_and_backward_round_the_float32_result_once(dt, x_shape, w_shape, stride, pads,
                                                                        dil, algo):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(x_shape).astype(dt), rng.standard_normal(w_shape).astype(dt)
    x32, w32 = x.astype(np.float32), w.astype(np.float32)
    fwd = _forward_attrs(x_shape, w_shape, stride, pads, dil, dt.name, algo=algo)
    assert fwd["algo"] == algo and fwd["half_conv"] == "f32_scratch"
    y = apply("Conv2D", fwd, [Tensor(x), Tensor(w)]).asnumpy()
    _close_half(y, _conv_ref(fwd, x32, w32).astype(np.float32), dt, _abs_conv(fwd, x32, w32))

    dy = rng.standard_normal(y.shape).astype(dt)
    dy32 = dy.astype(np.float32)
    _, dx_ref, dw_ref = _torch_grads(x32, w32, dy32, stride, pads, dil, fwd["group"])
    _, dx_mag, dw_mag = _torch_grads(np.abs(x32), np.abs(w32), np.abs(dy32), stride, pads, dil, fwd["group"])
    attrs = {k: v for k, v in fwd.items() if k != "algo"}
    for op, extra, args, ref, mag in (
            ("Conv2DBackpropInput", {"input_size": list(x_shape)}, [dy, w], dx_ref, dx_mag),
            ("Conv2DBackpropFilter", {"filter_size": list(w_shape)}, [dy, x], dw_ref, dw_mag)):
        spec = get(op).spec({**attrs, **extra}, [TensorType(a.shape, dt.name) for a in args])
        assert spec.attrs["half_conv"] == "f32_scratch", op
        assert spec.outputs[0].dtype == dt.name
        got = apply(op, {**attrs, **extra}, [Tensor(a) for a in args]).asnumpy()
        _close_half(got, ref, dt, mag)


def test_half_and_float32_convolutions_are_different_cache_entries():
    f32 = _forward_attrs((1, 2, 5, 5), (2, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1))
    f16 = _forward_attrs((1, 2, 5, 5), (2, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "float16")
    assert "half_conv" not in f32 and f16["half_conv"] == "f32_scratch"


def test_half_conv_rejects_mixed_dtypes_clearly():
    x = np.ones((1, 1, 4, 4), np.float16)
    with pytest.raises(ms.ShapeError, match="Conv2D"):
        ms.ops.Conv2D(out_channel=1, kernel_size=3)(Tensor(x), Tensor(np.ones((1, 1, 3, 3), np.float32)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_conv1d_and_conv2d_transpose_cells_run_in_float16(mode):
    rng = np.random.default_rng(6)
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        c1 = nn.Conv1d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True).to_float(ms.float16)
        x1 = rng.standard_normal((2, 3, 10)).astype(np.float16)
        y1 = c1(Tensor(x1)).asnumpy()
        ct = nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1).to_float(ms.float16)
        x2 = rng.standard_normal((1, 4, 5, 5)).astype(np.float16)
        y2 = ct(Tensor(x2)).asnumpy()
    finally:
        ms.set_context(mode=old)
    assert y1.dtype == np.float16 and y2.dtype == np.float16
    w1 = c1.weight.asnumpy().astype(np.float16).astype(np.float32).reshape(4, 3, 1, 3)
    b1 = c1.bias.asnumpy().astype(np.float16).astype(np.float32)
    conv = F.conv2d(torch.tensor(x1.astype(np.float32))[:, :, None], torch.tensor(w1), padding=(0, 1))
    ref1 = (conv.numpy().astype(np.float16).astype(np.float32) + b1[None, :, None, None])[:, :, 0]
    np.testing.assert_allclose(y1.astype(np.float32), ref1, rtol=2e-3, atol=2e-3)
    wt = torch.tensor(ct.weight.asnumpy().astype(np.float16).astype(np.float32))
    ref2 = F.conv_transpose2d(torch.tensor(x2.astype(np.float32)), wt, stride=2, padding=1)
    np.testing.assert_allclose(y2.astype(np.float32), ref2.numpy(), rtol=2e-3, atol=2e-3)
