"""Conv1d against a NumPy cross-correlation written here (same weights), in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(9)


def conv1d_ref(x, w, b, stride, pads, dilation, group):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads))
    o, cg, k = w.shape
    out_len = (x.shape[2] - dilation * (k - 1) - 1) // stride + 1
    y = np.zeros((x.shape[0], o, out_len))
    og = o // group
    for oc in range(o):
        g = oc // og
        for t in range(out_len):
            window = x[:, g * cg:(g + 1) * cg, t * stride:t * stride + dilation * (k - 1) + 1:dilation]
            y[:, oc, t] = (window * w[oc]).sum((1, 2))
    return y if b is None else y + b.reshape(1, -1, 1)


@pytest.mark.parametrize("kw,pads", [
    ({"kernel_size": 3, "pad_mode": "valid"}, (0, 0)),
    ({"kernel_size": 3, "pad_mode": "pad", "padding": (2, 1), "stride": 2, "has_bias": True}, (2, 1)),
    ({"kernel_size": 2, "pad_mode": "pad", "padding": 1, "dilation": 2, "group": 2}, (1, 1)),
    ({"kernel_size": 3}, (1, 1)),  # 'same', stride 1: one cell each side
])
def test_conv1d_matches_numpy(mode, kw, pads):
    layer = nn.Conv1d(4, 6, **kw)
    assert layer.weight.shape == (6, 4 // kw.get("group", 1), 1, kw["kernel_size"])  # MindSpore's 4-D
    x = RNG.standard_normal((2, 4, 9)).astype(np.float32)
    b = layer.bias.asnumpy() if kw.get("has_bias") else None
    want = conv1d_ref(x, layer.weight.asnumpy()[:, :, 0].astype(np.float64), b, kw.get("stride", 1), pads,
                      kw.get("dilation", 1), kw.get("group", 1))
    np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_conv1d_errors():
    with pytest.raises(ShapeError, match="Conv1d: expects a rank-3 input"):
        nn.Conv1d(4, 2, 3)(ms.Tensor(np.zeros((1, 4, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="requires pad_mode='pad'"):
        nn.Conv1d(4, 2, 3, padding=1)
    with pytest.raises(ValueError, match="must be divisible by group"):
        nn.Conv1d(4, 3, 3, group=2)
