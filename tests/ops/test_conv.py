"""Conv2D, MaxPool, AvgPool, GlobalAvgPool / AdaptiveAvgPool2D against NumPy, in PyNative and GRAPH mode.

The references here are written independently of both the kernels and the ops' own ``reference``
functions: padding amounts are computed in the test (TF "same" formula), convolution is an explicit loop
over output positions on a zero-padded array, and pooling follows PyTorch's documented window rules in
plain Python loops. Tolerances: float32 rtol 1e-4, atol 1e-4 * sqrt(taps); float64 rtol 1e-10.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.core.errors import ShapeError
from opbuild.core.trace import trace
from opbuild.runtime.reference import run_reference
from tests.helpers import run_op

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=25, deadline=None)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


run = run_op


def close(out: np.ndarray, ref: np.ndarray, taps: int = 1) -> None:
    assert out.shape == ref.shape, (out.shape, ref.shape)
    if out.dtype == np.float32:
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * math.sqrt(taps))
    else:
        np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12 * math.sqrt(taps))


def same_pads(size: int, k: int, s: int, d: int = 1) -> tuple[int, int]:
    """TF "same": output ceil(size / s), total padding split with the extra pixel at the end."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def ref_conv(x, w, pads, stride, dilation, group):
    """Direct convolution: loop over output pixels, multiply-accumulate the dilated patch (float64)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    t, b, left, r = pads
    xp = np.zeros((n, c, h + t + b, wd + left + r))
    xp[:, :, t:t + h, left:left + wd] = x
    oh = (h + t + b - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    ow = (wd + left + r - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    og = o // group
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * stride[0], j * stride[1]
            patch = xp[:, :, h0:h0 + (kh - 1) * dilation[0] + 1:dilation[0],
                       w0:w0 + (kw - 1) * dilation[1] + 1:dilation[1]]  # n, c, kh, kw
            for g in range(group):
                out[:, g * og:(g + 1) * og, i, j] = np.tensordot(
                    patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og], axes=([1, 2, 3], [1, 2, 3]))
    return out


def pool_out_size(size, k, s, p0, p1, ceil):
    """PyTorch's output size rule, including ceil_mode's "last window starts inside" correction."""
    num = size + p0 + p1 - k
    out = (-(-num // s) if ceil else num // s) + 1
    if ceil and (out - 1) * s >= size + p0:
        out -= 1
    return out


def ref_pool(x, k, s, pads, ceil, kind, count_include_pad=True):
    """Pooling with PyTorch's window rules, as loops: the window [start, start+k) is clipped to the padded
    input for the include-pad divisor and to the real input for the values."""
    n, c, h, w = x.shape
    t, b, left, r = pads
    oh, ow = pool_out_size(h, k[0], s[0], t, b, ceil), pool_out_size(w, k[1], s[1], left, r, ceil)
    out = np.empty((n, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * s[0] - t, j * s[1] - left
            he, we = min(hs + k[0], h + b), min(ws + k[1], w + r)
            padded_count = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            win = x[:, :, hs:he, ws:we].astype(np.float64)
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = padded_count if count_include_pad else (he - hs) * (we - ws)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


def rand(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


# ---- Conv2D ---------------------------------------------------------------------------------------

@st.composite
def conv_cases(draw):
    group = draw(st.integers(1, 3))
    cg = draw(st.integers(1, 3))
    og = draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    h, w = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    mode = draw(st.sampled_from(["valid", "same", "pad"]))
    pad = draw(st.one_of(st.integers(0, 2), st.tuples(*[st.integers(0, 2)] * 4))) if mode == "pad" else 0
    return dict(n=draw(st.integers(1, 2)), group=group, cg=cg, og=og, k=(kh, kw), stride=stride,
                dilation=dilation, hw=(h, w), pad_mode=mode, pad=pad)


@SETTINGS
@given(case=conv_cases(), dtype=st.sampled_from(["float32", "float64"]), mode=st.sampled_from(MODES),
       seed=st.integers(0, 2**16))
def test_conv2d_matches_direct_convolution(case, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    g, (kh, kw), (h, w) = case["group"], case["k"], case["hw"]
    x = rand(rng, (case["n"], g * case["cg"], h, w), dtype)
    wt = rand(rng, (g * case["og"], case["cg"], kh, kw), dtype)
    if case["pad_mode"] == "same":
        pads = same_pads(h, kh, case["stride"][0], case["dilation"][0]) + \
            same_pads(w, kw, case["stride"][1], case["dilation"][1])
    elif case["pad_mode"] == "pad":
        pads = (case["pad"],) * 4 if isinstance(case["pad"], int) else case["pad"]
    else:
        pads = (0, 0, 0, 0)
    conv = ops.Conv2D(g * case["og"], (kh, kw), pad_mode=case["pad_mode"], pad=case["pad"],
                      stride=case["stride"], dilation=case["dilation"], group=g)
    dil = case["dilation"]
    fits = (kh - 1) * dil[0] + 1 <= h + pads[0] + pads[1] and (kw - 1) * dil[1] + 1 <= w + pads[2] + pads[3]
    if not fits:
        with pytest.raises(ShapeError, match=r"Conv2D: kernel extent \d+ along [HW] is larger than the"):
            conv(Tensor(x), Tensor(wt))
        return
    out = run(conv, x, wt, mode=mode)
    ref = ref_conv(x, wt, pads, case["stride"], case["dilation"], g)
    if case["pad_mode"] == "same":
        assert out.shape[2:] == (-(-h // case["stride"][0]), -(-w // case["stride"][1]))
    assert out.dtype == np.dtype(dtype)
    close(out, ref, case["cg"] * kh * kw)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("c,o,group,k,stride,pad_mode", [
    (4, 8, 1, 1, 1, "valid"),  # 1x1 stride 1: direct gemm, no im2col
    (4, 8, 2, 1, 1, "valid"),  # grouped 1x1
    (4, 8, 1, 1, 2, "valid"),  # 1x1 stride 2: im2col path
    (4, 4, 4, 3, 1, "same"),  # depthwise, multiplier 1: direct loop
    (3, 6, 3, 3, 2, "same"),  # depthwise, multiplier 2
    (2, 32, 2, 3, 1, "same"),  # depthwise with 16 outputs per group: gemm path
    (16, 24, 1, 3, 1, "same"),  # a "real" layer: larger gemm
])
def test_conv2d_paths(c, o, group, k, stride, pad_mode, mode):
    rng = np.random.default_rng(5)
    x, w = rand(rng, (2, c, 9, 10), "float32"), rand(rng, (o, c // group, k, k), "float32")
    pads = same_pads(9, k, stride) + same_pads(10, k, stride) if pad_mode == "same" else (0, 0, 0, 0)
    out = run(ops.Conv2D(o, k, pad_mode=pad_mode, stride=stride, group=group), x, w, mode=mode)
    close(out, ref_conv(x, w, pads, (stride, stride), (1, 1), group), c // group * k * k)


@pytest.mark.parametrize("hw,stride,dilation", [(58, 1, 1), (60, 2, 2)])
def test_conv2d_large_image_im2col_in_row_blocks(hw, stride, dilation):
    # C*KH*KW = 576 rows of OW floats per output row: the column matrix is built a block of output rows at
    # a time (ops/conv_plan.py COL_BLOCK_BYTES, MIN_GEMM_N): blocks of 9 or 18 rows, the last one partial.
    rng = np.random.default_rng(10)
    x, w = rand(rng, (2, 64, hw, hw), "float32"), rand(rng, (8, 64, 3, 3), "float32")
    out = run(ops.Conv2D(8, 3, pad_mode="pad", pad=1, stride=stride, dilation=dilation), x, w)
    close(out, ref_conv(x, w, (1, 1, 1, 1), (stride, stride), (dilation, dilation), 1), 576)


def test_conv2d_mindspore_tuple_forms():
    rng = np.random.default_rng(6)
    x, w = rand(rng, (1, 2, 9, 9), "float64"), rand(rng, (3, 2, 2, 3), "float64")
    out = run(ops.Conv2D(3, (2, 3), pad_mode="pad", pad=(1, 0, 2, 1), stride=(1, 1, 2, 1),
                         dilation=(1, 1, 1, 2)), x, w)
    close(out, ref_conv(x, w, (1, 0, 2, 1), (2, 1), (1, 2), 1), 12)


def test_conv2d_same_puts_odd_padding_at_bottom_right():
    # 4x4 input, 2x2 kernel, stride 1, "same": one row/column of padding, after the image (TF/MindSpore).
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2))
    out = run(ops.Conv2D(1, 2, pad_mode="same"), x, w)[0, 0]
    assert out[0, 0] == 0 + 1 + 4 + 5
    assert out[3, 3] == 15  # bottom-right window sees only the last pixel


def test_conv2d_errors_name_op_and_shapes():
    def t(*shape):
        return Tensor(np.ones(shape, np.float32))

    with pytest.raises(ShapeError, match=r"Conv2D: in_channels \(3\).*divisible by group \(2\).*"
                                         r"float32\[1, 3, 5, 5\]"):
        ops.Conv2D(4, 3, group=2)(t(1, 3, 5, 5), t(4, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: weight's dim 1 must be in_channels / group = 4 / 2 = 2, "
                                         r"got 4"):
        ops.Conv2D(4, 3, group=2)(t(1, 4, 5, 5), t(4, 4, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: kernel extent 5 along H is larger than the padded input "
                                         r"\(3 \+ 0 \+ 0 = 3\).*float32\[1, 1, 3, 8\]"):
        ops.Conv2D(1, 5)(t(1, 1, 3, 8), t(1, 1, 5, 5))
    with pytest.raises(ShapeError, match=r"Conv2D: kernel extent 5 along W"):
        ops.Conv2D(1, 3, dilation=2)(t(1, 1, 8, 4), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: kernel_size \[3, 3\] does not match the weight's spatial"):
        ops.Conv2D(1, 3)(t(1, 1, 8, 8), t(1, 1, 2, 2))
    with pytest.raises(ShapeError, match=r"Conv2D: out_channel=2 does not match the weight's first dim 1"):
        ops.Conv2D(2, 3)(t(1, 1, 8, 8), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: x must be 4-D"):
        ops.Conv2D(1, 3)(t(1, 8, 8), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: only data_format='NCHW'"):
        ops.Conv2D(1, 3, data_format="NHWC")(t(1, 8, 8, 1), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: pad_mode must be"):
        ops.Conv2D(1, 3, pad_mode="full")(t(1, 1, 8, 8), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: pad=1 needs pad_mode='pad'"):
        ops.Conv2D(1, 3, pad=1)(t(1, 1, 8, 8), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: stride as a 4-tuple must be \(1, 1, h, w\)"):
        ops.Conv2D(1, 3, stride=(2, 2, 1, 1))(t(1, 1, 8, 8), t(1, 1, 3, 3))
    with pytest.raises(ShapeError, match=r"Conv2D: dtype int32 is not supported"):
        ops.Conv2D(1, 3)(Tensor(np.ones((1, 1, 8, 8), np.int32)), Tensor(np.ones((1, 1, 3, 3), np.int32)))


# ---- pooling --------------------------------------------------------------------------------------

@st.composite
def pool_cases(draw):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    mode = draw(st.sampled_from(["valid", "same", "pad"]))
    pad = tuple(draw(st.integers(0, kk // 2)) for kk in (k[0], k[0], k[1], k[1])) if mode == "pad" else 0
    return dict(k=k, s=s, pad_mode=mode, pad=pad, ceil=draw(st.booleans()) if mode == "pad" else False,
                hw=(draw(st.integers(1, 7)), draw(st.integers(1, 7))), include=draw(st.booleans()))


@SETTINGS
@given(case=pool_cases(), kind=st.sampled_from(["max", "avg"]), dtype=st.sampled_from(["float32", "float64"]),
       mode=st.sampled_from(MODES), seed=st.integers(0, 2**16))
def test_pooling_matches_window_loops(case, kind, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    h, w = case["hw"]
    assume(case["k"][0] <= h + (0 if case["pad_mode"] == "valid" else 2 * case["k"][0]))
    x = rand(rng, (2, 3, h, w), dtype)
    k, s = case["k"], case["s"]
    if case["pad_mode"] == "same":
        pads = same_pads(h, k[0], s[0]) + same_pads(w, k[1], s[1])
    elif case["pad_mode"] == "pad":
        pads = case["pad"]
    else:
        pads = (0, 0, 0, 0)
    common = dict(kernel_size=k, strides=s, pad_mode=case["pad_mode"], pad=case["pad"],
                  ceil_mode=case["ceil"])
    if kind == "max":
        prim = ops.MaxPool(**common)
        include = True
    else:
        prim = ops.AvgPool(**common, count_include_pad=case["include"])
        include = case["include"] and case["pad_mode"] == "pad"  # "same" averages over real pixels (TF)
    if k[0] > h + pads[0] + pads[1] or k[1] > w + pads[2] + pads[3]:
        with pytest.raises(ShapeError, match=r"Pool: kernel extent \d+ along [HW] is larger than the padded"):
            prim(Tensor(x))
        return
    out = run(prim, x, mode=mode)
    close(out, ref_pool(x, k, s, pads, case["ceil"], kind, include), k[0] * k[1])


def test_avgpool_ceil_mode_hand_computed():
    # 5x5 ones, kernel 3, stride 2, pad 1, ceil_mode: 3x3 output; the corner window holds 4 real ones out of
    # 9 padded cells, the edge window 6, the centre 9 (PyTorch gives the same numbers).
    x = np.ones((1, 1, 5, 5), np.float64)
    out = run(ops.AvgPool(3, 2, pad_mode="pad", pad=1, ceil_mode=True), x)[0, 0]
    np.testing.assert_allclose(out, [[4 / 9, 6 / 9, 4 / 9], [6 / 9, 1, 6 / 9], [4 / 9, 6 / 9, 4 / 9]])
    out = run(ops.AvgPool(3, 2, pad_mode="pad", pad=1, ceil_mode=True, count_include_pad=False), x)
    np.testing.assert_allclose(out, np.ones((1, 1, 3, 3)))
    # 4x4 with ceil_mode: the last window hangs off the padding; the divisor counts only padded-input cells.
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    out = run(ops.AvgPool(2, 3, pad_mode="pad", pad=0, ceil_mode=True), x)[0, 0]
    np.testing.assert_allclose(out, [[(0 + 1 + 4 + 5) / 4, (3 + 7) / 2], [(12 + 13) / 2, 15]])


@pytest.mark.parametrize("mode", MODES)
def test_maxpool_never_selects_padding_and_propagates_nan(mode):
    x = -np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)  # all negative: a padded 0 would win
    out = run(ops.MaxPool(3, 1, pad_mode="pad", pad=1), x, mode=mode)
    assert (out < 0).all()
    np.testing.assert_array_equal(out, ref_pool(x, (3, 3), (1, 1), (1, 1, 1, 1), False, "max"))
    out = run(ops.MaxPool(2, 2, pad_mode="same"), x, mode=mode)
    np.testing.assert_array_equal(out, [[[[-1, -3], [-9, -11]]]])
    x[0, 0, 0, 1] = np.nan
    x[0, 0, 3, 3] = -np.inf
    out = run(ops.MaxPool(2, 2), x, mode=mode)
    assert np.isnan(out[0, 0, 0, 0]) and not np.isnan(out[0, 0, 1, 1])
    assert out[0, 0, 1, 1] == -11


def test_pool_errors():
    x = Tensor(np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ShapeError, match=r"MaxPool: kernel extent 5 along H is larger than the padded input"):
        ops.MaxPool(5)(x)
    with pytest.raises(ShapeError, match=r"AvgPool: pad \[2, 2, 2, 2\] must be at most half the kernel"):
        ops.AvgPool(3, pad_mode="pad", pad=2)(x)
    with pytest.raises(ShapeError, match=r"MaxPool: x must be 4-D.*float32\[4, 4\]"):
        ops.MaxPool(2)(Tensor(np.ones((4, 4), np.float32)))
    with pytest.raises(ShapeError, match=r"AvgPool: kernel_size must be >= 1"):
        ops.AvgPool(0)(x)
    with pytest.raises(ShapeError, match=r"MaxPool: strides must be an int or a tuple of 2 ints"):
        ops.MaxPool(2, strides=(1, 2, 3))(x)
    with pytest.raises(ShapeError, match=r"AvgPool: count_include_pad must be a bool"):
        ops.AvgPool(2, count_include_pad="no")(x)


# ---- GlobalAvgPool / AdaptiveAvgPool2D ------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_global_avg_pool(dtype, mode):
    rng = np.random.default_rng(7)
    x = rand(rng, (2, 5, 7, 3), dtype)
    ref = x.astype(np.float64).sum(axis=(2, 3), keepdims=True) / 21
    close(run(ops.GlobalAvgPool(), x, mode=mode), ref, 21)
    close(run(ops.AdaptiveAvgPool2D((1, 1)), x, mode=mode), ref, 21)
    assert run(ops.AdaptiveAvgPool2D(1), x).shape == (2, 5, 1, 1)


def test_adaptive_avg_pool_other_sizes():
    x = np.arange(2 * 3 * 5 * 4, dtype=np.float32).reshape(2, 3, 5, 4)
    y = ops.AdaptiveAvgPool2D((2, None))(Tensor(x)).asnumpy()
    ref = np.stack([x[:, :, 0:3].mean(2), x[:, :, 2:5].mean(2)], 2)  # windows [0, 3) and [2, 5)
    np.testing.assert_allclose(y, ref, rtol=1e-6)
    with pytest.raises(ShapeError, match=r"GlobalAvgPool: x must be 4-D"):
        ops.GlobalAvgPool()(Tensor(np.ones((2, 3, 4), np.float32)))


# ---- a small network through GRAPH_MODE and the reference interpreter -----------------------------

class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(8)
        self.w1 = ms.Parameter(Tensor(rand(rng, (6, 3, 3, 3), "float32")), name="w1")
        self.b1 = ms.Parameter(Tensor(rand(rng, (6,), "float32")), name="b1")
        self.w2 = ms.Parameter(Tensor(rand(rng, (6, 1, 3, 3), "float32")), name="w2")
        self.conv1 = ops.Conv2D(6, 3, pad_mode="same")
        self.conv2 = ops.Conv2D(6, 3, pad_mode="pad", pad=1, stride=2, group=6)
        self.bias = ops.BiasAdd()
        self.pool = ops.MaxPool(2, 2)
        self.gap = ops.AdaptiveAvgPool2D(1)

    def construct(self, x):
        y = self.pool(self.bias(self.conv1(x, self.w1), self.b1))
        return self.gap(self.conv2(y, self.w2))


def test_small_cnn_graph_matches_reference_interpreter(graph_mode):
    net = _Net()
    x = rand(np.random.default_rng(9), (2, 3, 12, 12), "float32")
    out = net(Tensor(x)).asnumpy()
    graph, _ = trace(net.construct, (Tensor(x),))
    (ref,) = run_reference(graph, [x])
    close(out, ref, 27)
    # and against the independent loops of this file
    y = ref_conv(x, net.w1.asnumpy(), same_pads(12, 3, 1) * 2, (1, 1), (1, 1), 1) + \
        net.b1.asnumpy().reshape(1, 6, 1, 1)
    y = ref_pool(y, (2, 2), (2, 2), (0, 0, 0, 0), False, "max")
    y = ref_conv(y, net.w2.asnumpy(), (1, 1, 1, 1), (2, 2), (1, 1), 6).mean(axis=(2, 3), keepdims=True)
    close(out, y, 27)


# ---- algorithm choice (ops/conv_plan.py) ---------------------------------------------------------------

def conv_spec(x_shape, w_shape, **attrs):
    from opbuild.core.ir import TensorType
    from opbuild.ops.registry import get

    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), **attrs},
                              [TensorType(x_shape, "float32"), TensorType(w_shape, "float32")])


@pytest.mark.parametrize("x_shape,w_shape,attrs,algo", [
    ((1, 96, 56, 56), (24, 96, 1, 1), {}, "tiled"),  # MobileNetV2 projection: tiled beats the plain GEMM
    ((1, 96, 56, 56), (96, 1, 3, 3), dict(group=96, pad_mode="same"), "depthwise"),
    ((1, 96, 56, 56), (96, 1, 3, 3), dict(group=96, pad_mode="same", stride=2), "dwvec"),
    ((1, 96, 112, 112), (96, 1, 3, 3), dict(group=96, pad_mode="same", stride=2), "tiled"),  # buffers > L2/2
    ((1, 480, 3, 3), (480, 1, 3, 3), dict(group=480, pad_mode="same"), "dwvec"),  # small maps: channel vectors
    ((1, 32, 24, 24), (32, 1, 7, 7), dict(group=32, pad_mode="same"), "dwvec"),
    ((1, 4, 8, 8), (4, 1, 3, 3), dict(group=4), "tiled"),  # too few channels for a vector of them
    ((1, 3, 8, 8), (4, 3, 3, 3), {}, "tiled"),
    ((1, 512, 3, 3), (512, 512, 1, 1), {}, "dot"),  # 1x1 on the smallest maps: vectors over the channels
    ((1, 64, 56, 56), (64, 64, 3, 3), dict(pad_mode="same"), "tiled"),
    ((1, 64, 56, 56), (64, 64, 1, 1), dict(stride=2), "tiled"),
    ((1, 16, 8, 8), (32, 1, 3, 3), dict(group=16), "tiled"),  # depthwise on a small map, multiplier 2
    ((1, 16, 48, 48), (32, 1, 3, 3), dict(group=16, pad_mode="same"), "depthwise"),  # a large map
    ((1, 8, 28, 28), (64, 1, 3, 3), dict(group=8), "tiled"),
])
def test_conv2d_algorithm_is_chosen_by_shape_and_keyed(x_shape, w_shape, attrs, algo):
    spec = conv_spec(x_shape, w_shape, **attrs)
    assert spec.attrs["algo"] == algo
    again = conv_spec(x_shape, w_shape, **spec.attrs)  # normalizing twice is a no-op
    assert again.attrs == spec.attrs


def test_conv2d_forced_gemm_is_refused_where_it_would_be_wrong():
    spec = conv_spec((1, 4, 6, 6), (4, 4, 3, 3), algo="gemm")
    assert spec.attrs["algo"] != "gemm"
    # dwvec computes one output channel per input channel: a multiplier of 2 or a full convolution is refused
    assert conv_spec((1, 16, 6, 6), (32, 1, 3, 3), group=16, algo="dwvec").attrs["algo"] == "tiled"
    assert conv_spec((1, 4, 6, 6), (4, 4, 3, 3), algo="dwvec").attrs["algo"] == "tiled"
    assert conv_spec((1, 4, 6, 6), (4, 4, 3, 3), algo="im2col").attrs["algo"] == "im2col"


@pytest.mark.parametrize("x_shape,w_shape,attrs,algo", [
    ((1, 96, 56, 56), (24, 96, 1, 1), {}, "gemm"),
    ((1, 3, 8, 8), (4, 3, 3, 3), {}, "direct"),  # 4*27*36 multiply-adds: a BLAS call costs more
    ((1, 64, 56, 56), (64, 64, 3, 3), dict(pad_mode="same"), "im2col"),
    ((1, 64, 56, 56), (64, 64, 1, 1), dict(stride=2), "im2col"),  # strided 1x1: subsampling copy
    ((1, 8, 28, 28), (64, 1, 3, 3), dict(group=8), "im2col"),  # 8 outputs per group: a real GEMM
])
@pytest.mark.parametrize("forced", [None, "tiled", "dwvec", "dot"])
def test_conv_backward_algorithm_is_chosen_without_the_forward_only_tiled_kernel(x_shape, w_shape, attrs, algo,
                                                                                 forced):
    from opbuild.core.ir import TensorType
    from opbuild.ops.registry import get

    forward = conv_spec(x_shape, w_shape, **attrs)
    assert forward.attrs["algo"] == "tiled"
    fwd = {k: v for k, v in forward.attrs.items() if k != "algo"}
    y_shape = forward.outputs[0].shape
    spec = get("Conv2DBackpropInput").spec({**fwd, "input_size": list(x_shape), "algo": forced},
                                           [TensorType(y_shape, "float32"), TensorType(w_shape, "float32")])
    assert spec.attrs["algo"] == algo


FORCED = [
    ((2, 6, 9, 10), (6, 1, 3, 3), dict(group=6, pad_mode="same")),
    ((2, 6, 9, 10), (12, 1, 3, 3), dict(group=6, pad_mode="pad", pad=(1, 0, 2, 1), stride=2)),
    ((1, 4, 11, 13), (8, 2, 3, 2), dict(group=2, pad_mode="pad", pad=(0, 2, 1, 1), stride=(2, 1), dilation=2)),
    ((2, 5, 7, 7), (3, 5, 1, 1), {}),
    ((2, 4, 7, 9), (6, 2, 1, 1), dict(group=2)),
    ((1, 3, 12, 12), (4, 3, 5, 5), dict(pad_mode="same", stride=3, dilation=(1, 2))),
]


def _cases(algos):
    """(shapes, attrs, algo) for every FORCED case an algorithm applies to: gemm only to 1x1 stride-1
    unpadded convolutions (forcing it elsewhere is refused: test above), dwvec only to one input and one
    output channel per group, the others to all."""
    return [(x, w, a, algo) for x, w, a in FORCED for algo in algos
            if (algo != "gemm" or (w[2:] == (1, 1) and a.get("stride", 1) == 1 and not a.get("pad")))
            and (algo != "dwvec" or (w[1] == 1 and w[0] == a.get("group", 1)))]


@pytest.mark.parametrize("x_shape,w_shape,attrs,algo",
                         _cases(["gemm", "depthwise", "direct", "im2col", "tiled", "dwvec"]))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv2d_every_algorithm_matches_the_direct_reference(x_shape, w_shape, attrs, algo, dtype):
    from opbuild.ops.primitive import apply

    rng = np.random.default_rng(11)
    x, w = rand(rng, x_shape, dtype), rand(rng, w_shape, dtype)
    full = {"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "algo": algo, **attrs}
    assert conv_spec(x_shape, w_shape, **full).attrs["algo"] == algo
    out = apply("Conv2D", full, [Tensor(x), Tensor(w)]).asnumpy()
    spec = conv_spec(x_shape, w_shape, **full)
    k = spec.attrs
    ref = ref_conv(x, w, k["pad"], k["stride"], k["dilation"], k["group"])
    close(out, ref, w_shape[1] * w_shape[2] * w_shape[3])


@pytest.mark.parametrize("x_shape,w_shape,attrs,algo", _cases(["gemm", "direct", "im2col"]))
@pytest.mark.parametrize("op", ["Conv2DBackpropInput", "Conv2DBackpropFilter"])
def test_conv_backprop_algorithms_match_the_exact_vjp(x_shape, w_shape, attrs, algo, op):
    from opbuild.core.ir import TensorType
    from opbuild.ops.primitive import apply
    from opbuild.ops.registry import get

    rng = np.random.default_rng(12)
    x, w = rand(rng, x_shape, "float64"), rand(rng, w_shape, "float64")
    fwd = conv_spec(x_shape, w_shape, **{"out_channel": w_shape[0], **attrs}).attrs
    y_shape = run(lambda a, b: apply("Conv2D", fwd, [a, b]), x, w).shape
    dy = rand(rng, y_shape, "float64")
    fwd = {k: v for k, v in fwd.items() if k != "algo"}
    if op == "Conv2DBackpropInput":
        attrs2, args = {**fwd, "input_size": list(x_shape), "algo": algo}, [dy, w]
    else:
        attrs2, args = {**fwd, "filter_size": list(w_shape), "algo": algo}, [dy, x]
    spec = get(op).spec(attrs2, [TensorType(a.shape, "float64") for a in args])
    assert spec.attrs["algo"] == algo
    out = apply(op, attrs2, [Tensor(a) for a in args]).asnumpy()
    ref = get(op).reference(spec.attrs, *args)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)
