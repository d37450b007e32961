"""Focused tests for what running mindcv's transformer models on opbuild turned up (tests/zoo/test_zoo_vit.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops


def test_ops_pad_rejects_nested_pairs_with_a_clear_type_error() -> None:
    """mindcv's volo passes ``ops.pad`` the Pad primitive's nested (before, after) pairs; MindSpore 2.10 raises
    a TypeError naming the flat tuple of ints it wants (recorded in tests/fixtures/mindspore/zoo_vit.json's
    volo_d1 error). opbuild raised an unrelated ``int()`` TypeError from deep inside."""
    x = ms.Tensor(np.ones((1, 2, 3, 3), np.float32))
    with pytest.raises(TypeError, match=r"pad: padding must be a flat tuple or list of ints.*ops\.Pad"):
        ops.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    with pytest.raises(TypeError, match="flat tuple or list of ints"):
        ops.pad(x, [[1, 1]])
    # The flat form and a Tensor of ints still pad (left, right of the last axis first).
    assert ops.pad(x, (1, 1, 2, 0)).shape == (1, 2, 5, 5)
    assert ops.pad(x, ms.Tensor(np.array([1, 1], np.int64))).shape == (1, 2, 3, 5)


def test_conv1d_weight_has_mindspores_four_d_shape() -> None:
    """MindSpore 2.10's nn.Conv1d keeps its weight (out, in // group, 1, k) (it runs Conv2D): mindcv's coat_tiny
    ``aggregate`` Conv1d is recorded (1, 3, 1, 1) (tests/fixtures/mindspore/zoo_vit.json, params_only), and
    MindSpore's checkpoints hold that shape. A Tensor weight_init is given 3-D, as MindSpore checks it."""
    ms.set_seed(5)
    conv = ms.nn.Conv1d(4, 6, 3, group=2, has_bias=True)
    assert conv.weight.shape == (6, 2, 1, 3)
    x = np.random.default_rng(0).standard_normal((2, 4, 7)).astype(np.float32)
    w, b = conv.weight.asnumpy()[:, :, 0], conv.bias.asnumpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))  # 'same', stride 1
    want = np.stack([np.einsum("ncl,ocl->no", xp[:, 2 * (o // 3):2 * (o // 3) + 2, t:t + 3], w[o:o + 1])[:, 0]
                     for o in range(6) for t in range(7)], 1).reshape(2, 6, 7) + b[None, :, None]
    np.testing.assert_allclose(conv(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    given = np.arange(24, dtype=np.float32).reshape(6, 4, 1)
    assert np.array_equal(ms.nn.Conv1d(4, 6, 1, weight_init=ms.Tensor(given)).weight.asnumpy()[:, :, 0], given)
    with pytest.raises(ValueError, match=r"Conv1d: a Tensor weight_init must have shape \(6, 4, 1\)"):
        ms.nn.Conv1d(4, 6, 1, weight_init=ms.Tensor(given[:, :, None]))
