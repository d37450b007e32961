"""Conv2dTranspose, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, MaxPool1d and Upsample against NumPy
references written here (the definitions MindSpore documents), in graph and PyNative mode."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn

RNG = np.random.default_rng(7)
MODES = [ms.GRAPH_MODE, ms.PYNATIVE_MODE]


def _run(cell, x, mode):
    ms.set_context(mode=mode)
    try:
        return cell(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def _conv_transpose_ref(x, w, stride, pads, out_hw, dilation=(1, 1)):
    """Scatter definition: every input pixel adds its weighted kernel into the (padded) output."""
    n, cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    (sh, sw), (dh, dw), (pt, pl) = stride, dilation, pads
    big = np.zeros((n, cout, out_hw[0] + 2 * (kh * dh + sh + pt), out_hw[1] + 2 * (kw * dw + sw + pl)))
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for b in range(kw):
                    big[:, :, i * sh + a * dh, j * sw + b * dw] += np.einsum("nc,co->no", x[:, :, i, j], w[:, :, a, b])
    return big[:, :, pt:pt + out_hw[0], pl:pl + out_hw[1]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad_mode,padding,out_pad,expect_hw", [
    ("same", 0, 0, (8, 10)), ("valid", 0, 0, (9, 11)), ("pad", (1, 0, 1, 1), 0, (8, 9)), ("valid", 0, 1, (10, 12))])
def test_conv2d_transpose(mode, pad_mode, padding, out_pad, expect_hw):
    net = nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode=pad_mode, padding=padding, output_padding=out_pad,
                             has_bias=True, bias_init="normal")
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    got = _run(net, x, mode)
    assert got.shape == (2, 2, *expect_hw)
    w, bias = net.weight.asnumpy(), net.bias.asnumpy()
    pads = {"same": (0, 0) if pad_mode != "same" else None, "valid": (0, 0), "pad": (1, 1)}[pad_mode]
    if pad_mode == "same":  # total = (H - 1) * s + k - H * s, split with the smaller half first
        pads = tuple(max(0, (n - 1) * 2 + 3 - n * 2) // 2 for n in (4, 5))
    want = _conv_transpose_ref(x, w, (2, 2), pads, expect_hw) + bias[None, :, None, None]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert net.weight.shape == (3, 2, 3, 3)


def test_conv2d_transpose_errors():
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2dTranspose(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="output_padding"):
        nn.Conv2dTranspose(3, 4, 3, stride=2, output_padding=1)
    with pytest.raises(ms.ShapeError):
        nn.Conv2dTranspose(3, 4, 3)(ms.Tensor(np.ones((1, 2, 4, 4), np.float32)))


def _adaptive_ref(x, out, fn):
    h, w = x.shape[-2:]
    oh, ow = out
    res = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, he = (i * h) // oh, -(-((i + 1) * h) // oh)
            ws, we = (j * w) // ow, -(-((j + 1) * w) // ow)
            res[..., i, j] = fn(x[..., hs:he, ws:we], axis=(-2, -1))
    return res


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("out", [(3, 4), (2, 5), 1, (None, 3)])
@pytest.mark.parametrize("cls,fn", [(nn.AdaptiveAvgPool2d, np.mean), (nn.AdaptiveMaxPool2d, np.max)])
def test_adaptive_pools(mode, out, cls, fn):
    x = RNG.standard_normal((2, 3, 7, 10)).astype(np.float32)
    got = _run(cls(out), x, mode)
    pair = (out, out) if isinstance(out, int) else (out[0] or 7, out[1] or 10)
    np.testing.assert_allclose(got, _adaptive_ref(x, pair, fn), rtol=1e-5, atol=1e-6)


def test_adaptive_pool_3d_input_and_errors():
    x = RNG.standard_normal((3, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(_run(nn.AdaptiveAvgPool2d(2), x, ms.GRAPH_MODE), _adaptive_ref(x, (2, 2), np.mean),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="output_size"):
        nn.AdaptiveAvgPool2d(0)
    values, index = nn.AdaptiveMaxPool2d(2, return_indices=True)(ms.Tensor(x))
    np.testing.assert_allclose(values.asnumpy(), _adaptive_ref(x, (2, 2), np.max), rtol=1e-6)
    flat = x.reshape(3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, index.asnumpy().reshape(3, -1), 1),
                                  values.asnumpy().reshape(3, -1))


def _pool1d_ref(x, k, s, p, fn, count_include_pad=True):
    length = x.shape[-1]
    padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(p, p)], constant_values=np.nan)
    outs = []
    for start in range(0, length + 2 * p - k + 1, s):
        win = padded[..., start:start + k]
        if fn is np.max:
            outs.append(np.nanmax(win, axis=-1))
        else:
            div = k if count_include_pad else np.sum(~np.isnan(win), axis=-1)
            outs.append(np.nansum(win, axis=-1) / div)
    return np.stack(outs, axis=-1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k,s,p", [(3, 1, 0), (2, 2, 0), (3, 2, 1)])
def test_pool1d(mode, k, s, p):
    x = RNG.standard_normal((2, 3, 9)).astype(np.float32)
    pad_mode = "pad" if p else "valid"
    got = _run(nn.MaxPool1d(k, s, pad_mode=pad_mode, padding=p), x, mode)
    np.testing.assert_allclose(got, _pool1d_ref(x, k, s, p, np.max), rtol=1e-6)
    for include in (True, False):
        got = _run(nn.AvgPool1d(k, s, pad_mode=pad_mode, padding=p, count_include_pad=include), x, mode)
        np.testing.assert_allclose(got, _pool1d_ref(x, k, s, p, np.mean, include), rtol=1e-5, atol=1e-6)


def test_pool1d_unbatched_and_errors():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    np.testing.assert_allclose(_run(nn.MaxPool1d(2, 2), x, ms.GRAPH_MODE), _pool1d_ref(x, 2, 2, 0, np.max))
    with pytest.raises(ValueError, match="pad_mode"):
        nn.MaxPool1d(2, padding=1)
    with pytest.raises(ms.ShapeError):
        nn.AvgPool1d(2)(ms.Tensor(np.ones((1, 2, 3, 4), np.float32)))


def _bilinear_ref(x, oh, ow, align_corners):
    def axis_coords(out, size):
        d = np.arange(out, dtype=np.float64)
        if align_corners:
            return d * (size - 1) / (out - 1) if out > 1 else np.zeros(out)
        return np.clip((d + 0.5) * size / out - 0.5, 0, None)

    h, w = x.shape[-2:]
    res = np.empty(x.shape[:-2] + (oh, ow))
    for i, sy in enumerate(axis_coords(oh, h)):
        y0 = min(int(np.floor(sy)), h - 1)
        y1, fy = min(y0 + 1, h - 1), sy - y0
        for j, sx in enumerate(axis_coords(ow, w)):
            x0 = min(int(np.floor(sx)), w - 1)
            x1, fx = min(x0 + 1, w - 1), sx - x0
            res[..., i, j] = ((1 - fy) * (1 - fx) * x[..., y0, x0] + (1 - fy) * fx * x[..., y0, x1]
                              + fy * (1 - fx) * x[..., y1, x0] + fy * fx * x[..., y1, x1])
    return res


@pytest.mark.parametrize("mode", MODES)
def test_upsample_nearest(mode):
    x = RNG.standard_normal((1, 2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(_run(nn.Upsample(scale_factor=2), x, mode), x.repeat(2, 2).repeat(2, 3))
    got = _run(nn.Upsample(size=(5, 6)), x, mode)
    rows, cols = (np.arange(5) * 3 // 5), (np.arange(6) * 4 // 6)
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size", [(6, 8), (5, 3)])
def test_upsample_bilinear(mode, align_corners, size):
    x = RNG.standard_normal((2, 2, 4, 5)).astype(np.float32)
    got = _run(nn.Upsample(size=size, mode="bilinear", align_corners=align_corners), x, mode)
    np.testing.assert_allclose(got, _bilinear_ref(x, *size, align_corners), rtol=1e-5, atol=1e-6)


def test_upsample_errors():
    with pytest.raises(ValueError, match="exactly one"):
        nn.Upsample()
    with pytest.raises(ValueError, match="mode"):
        nn.Upsample(size=2, mode="bicubic")
    with pytest.raises(ValueError, match="align_corners"):
        nn.Upsample(size=2, align_corners=True)
