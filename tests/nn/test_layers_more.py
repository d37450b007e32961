"""The activations, padding, channel-dropout and adaptive-pooling functions and layers where MindSpore 2.10
gives no usable reference on the CPU (random draws, arguments its CPU kernels refuse, its wrong SeLU gradient):
compared with PyTorch, checked by their statistics, and their argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(11)
X = RNG.uniform(-3, 3, (3, 4, 6)).astype(np.float32)


def _value_and_grad(ours, theirs, x: np.ndarray) -> None:
    got = ours(Tensor(x))
    t = torch.tensor(x, requires_grad=True)
    want = theirs(t)
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=2e-5, atol=2e-6)
    want.sum().backward()
    g = ms.grad(lambda v: ours(v).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_selu_gradient_matches_torch() -> None:
    # MindSpore 2.10's CPU SeLU gradient is wrong for negative inputs (negative values); torch's is the
    # derivative, scale * alpha * exp(x).
    _value_and_grad(ops.selu, F.selu, X)
    _value_and_grad(nn.SeLU(), F.selu, X)


def test_elu_other_alpha_matches_torch() -> None:
    # MindSpore's CPU Elu kernel accepts alpha=1.0 only; opbuild computes any alpha.
    _value_and_grad(lambda v: ops.elu(v, 0.7), lambda v: F.elu(v, 0.7), X)


@pytest.mark.parametrize("out", [3, 4, 5])
def test_adaptive_pool1d_uneven_windows_match_torch(out) -> None:
    # MindSpore's adaptive 1-D pools need the length divisible by the output size; the window rule is torch's.
    x = RNG.uniform(-1, 1, (2, 3, 7)).astype(np.float32)
    _value_and_grad(lambda v: ops.adaptive_avg_pool1d(v, out), lambda v: F.adaptive_avg_pool1d(v, out), x)
    _value_and_grad(lambda v: ops.adaptive_max_pool1d(v, out), lambda v: F.adaptive_max_pool1d(v, out), x)


def test_adaptive_pool3d_uneven_windows_match_torch() -> None:
    x = RNG.uniform(-1, 1, (1, 2, 5, 7, 3)).astype(np.float32)
    _value_and_grad(lambda v: nn.AdaptiveAvgPool3d((2, 3, None))(v),
                    lambda v: F.adaptive_avg_pool3d(v, (2, 3, 3)), x)
    _value_and_grad(lambda v: nn.AdaptiveMaxPool3d((3, 4, 2))(v), lambda v: F.adaptive_max_pool3d(v, (3, 4, 2)), x)


def test_rrelu_draws_slopes_in_range_at_every_call() -> None:
    x = -np.abs(RNG.uniform(0.5, 2, (64, 64))).astype(np.float32)
    layer = nn.RReLU(0.1, 0.3)
    a, b = layer(Tensor(x)).asnumpy() / x, layer(Tensor(x)).asnumpy() / x
    assert a.min() >= 0.1 - 1e-6 and a.max() <= 0.3 + 1e-6
    assert abs(a.mean() - 0.2) < 0.01 and not np.allclose(a, b)
    pos = np.abs(x)
    np.testing.assert_array_equal(ops.rrelu(Tensor(pos)).asnumpy(), pos)


@pytest.mark.parametrize(("fn", "shape"), [(ops.dropout1d, (8, 16, 5)), (ops.dropout2d, (8, 16, 3, 4)),
                                           (ops.dropout3d, (4, 16, 2, 3, 2))])
def test_channel_dropout_zeroes_whole_channels(fn, shape) -> None:
    x = np.ones(shape, np.float32)
    y = fn(Tensor(x), 0.25).asnumpy().reshape(shape[0], shape[1], -1)
    per_channel = y[:, :, 0]
    assert np.all(y == per_channel[:, :, None])  # a channel is all kept or all zero
    assert set(np.unique(per_channel)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.1 < (per_channel == 0).mean() < 0.4
    np.testing.assert_array_equal(fn(Tensor(x), 0.25, training=False).asnumpy(), x)
    layer = nn.Dropout2d(0.5)
    z = np.ones((2, 3, 4, 4), np.float32)
    np.testing.assert_array_equal(layer(Tensor(z)).asnumpy(), z)  # inference: the identity
    layer.set_train()
    assert set(np.unique(layer(Tensor(z)).asnumpy())) <= {0.0, 2.0}


def test_bad_arguments_get_clear_errors() -> None:
    x = Tensor(X)
    with pytest.raises(ValueError, match="reflect padding of axis 2 must be at most 5"):
        ops.pad(x, (6, 0), "reflect")
    with pytest.raises(ValueError, match="mode must be one of"):
        ops.pad(x, (1, 1), "mirror")
    with pytest.raises(ValueError, match="value is only for mode 'constant'"):
        ops.pad(x, (1, 1), "replicate", 2.0)
    with pytest.raises(ValueError, match="must hold 2 to 4 ints"):
        nn.ReflectionPad2d((1, 2, 3))
    with pytest.raises(ValueError, match="rank 3 or 4"):
        nn.ReflectionPad2d(1)(Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError, match="at least 2 axes"):
        nn.ZeroPad2d(1)(Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="even size"):
        ops.glu(Tensor(np.ones((3, 5), np.float32)))
    with pytest.raises(ValueError, match="min_val .* must not exceed max_val"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(TypeError, match="float16/float32/float64"):
        ops.softsign(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="divisible by 4"):
        ops.pixel_shuffle(Tensor(np.ones((1, 6, 2, 2), np.float32)), 2)
    with pytest.raises(ValueError, match="output_size must hold positive ints"):
        ops.adaptive_avg_pool2d(Tensor(np.ones((1, 2, 4, 4), np.float32)), (0, 2))
    with pytest.raises(ValueError, match="p must be a float in"):
        nn.Dropout1d(1.5)


@pytest.mark.parametrize(("layer", "torch_layer", "shape"), [
    (nn.InstanceNorm1d, torch.nn.InstanceNorm1d, (2, 3, 7)),
    (nn.InstanceNorm3d, torch.nn.InstanceNorm3d, (2, 3, 2, 3, 4))])
def test_instance_norm_matches_torch(layer, torch_layer, shape) -> None:
    # MindSpore 2.10 has no InstanceNorm kernel on the CPU.
    x = RNG.uniform(-2, 2, shape).astype(np.float32)
    ours = layer(3, eps=1e-3, gamma_init=Tensor(np.array([0.5, 1.0, 2.0], np.float32)),
                 beta_init=Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
    theirs = torch_layer(3, eps=1e-3, affine=True)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor([0.5, 1.0, 2.0]))
        theirs.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    _value_and_grad(ours, theirs, x)


def test_embedding_matches_torch() -> None:
    # MindSpore 2.10 has no CPU kernel for ops.embedding.
    ids = np.array([[0, 5, 1], [3, 3, 2]], np.int32)
    w = RNG.uniform(-1, 1, (6, 4)).astype(np.float32)
    _value_and_grad(lambda t: ops.embedding(Tensor(ids), t), lambda t: F.embedding(torch.tensor(ids).long(), t), w)
    got = ops.embedding(Tensor(ids), Tensor(w), max_norm=0.9).asnumpy()
    want = F.embedding(torch.tensor(ids).long(), torch.tensor(w.copy()), max_norm=0.9).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="padding_idx"):
        ops.embedding(Tensor(ids), Tensor(w), padding_idx=0)
    with pytest.raises(NotImplementedError, match="max_norm"):
        nn.EmbeddingLookup(6, 4, max_norm=1.0)


def _patches_reference(x: np.ndarray, k, s, d, same: bool) -> np.ndarray:
    """TensorFlow's extract_image_patches in NCHW: out[n, (i * kw + j) * C + c, oh, ow]."""
    n, c, h, w = x.shape
    pads = []
    for size, kk, ss, dd in zip((h, w), k, s, d):
        total = max((-(-size // ss) - 1) * ss + dd * (kk - 1) + 1 - size, 0) if same else 0
        pads.append((total // 2, total - total // 2))
    xp = np.pad(x, ((0, 0), (0, 0), *pads))
    oh = (xp.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, k[0] * k[1] * c, oh, ow), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            patch = xp[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
            out[:, (i * k[1] + j) * c:(i * k[1] + j + 1) * c] = patch
    return out


@pytest.mark.parametrize(("k", "s", "d", "padding"), [((2, 2), (1, 1), (1, 1), "valid"),
                                                      ((3, 2), (2, 1), (1, 2), "same")])
def test_nn_unfold_matches_image_patches(k, s, d, padding) -> None:
    # MindSpore 2.10 has no CPU ExtractImagePatches kernel: the reference is the layout its documentation gives.
    x = RNG.uniform(-1, 1, (2, 3, 6, 5)).astype(np.float32)
    layer = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *d, 1], padding)
    np.testing.assert_array_equal(layer(Tensor(x)).asnumpy(), _patches_reference(x, k, s, d, padding == "same"))


def test_roll_layer_matches_numpy() -> None:
    # MindSpore 2.10 has no CPU Roll kernel.
    np.testing.assert_array_equal(nn.Roll(2, 1)(Tensor(X)).asnumpy(), np.roll(X, 2, 1))
    np.testing.assert_array_equal(nn.Roll((1, -2), (0, 2))(Tensor(X)).asnumpy(), np.roll(X, (1, -2), (0, 2)))
    with pytest.raises(NotImplementedError, match="axis=None"):
        nn.ClipByNorm(1)
    with pytest.raises(NotImplementedError, match="norm_type=2.0"):
        ops.clip_by_norm(Tensor(X), 1.0, 1.0)


def test_documented_call_forms() -> None:
    """Forms MindSpore's own examples use: constant pads of any rank, CTCLoss on one unbatched sequence,
    FocalLoss with an integer weight, conv1d with a 1-tuple padding."""
    x4 = RNG.uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(nn.ConstantPad1d((1, 2), 0.5)(Tensor(x4)).asnumpy(),
                                  np.pad(x4, ((0, 0), (0, 0), (0, 0), (1, 2)), constant_values=0.5))
    lp = np.log(np.full((5, 3), 1 / 3, np.float32))
    t, il, tl = np.array([1, 2], np.int32), np.array([5], np.int32), np.array([2], np.int32)
    single = nn.CTCLoss(reduction="none")(Tensor(lp), Tensor(t), Tensor(il), Tensor(tl)).asnumpy()
    batched = nn.CTCLoss(reduction="none")(Tensor(lp[:, None]), Tensor(t[None]), Tensor(il), Tensor(tl)).asnumpy()
    np.testing.assert_allclose(single, batched)
    logits, labels = Tensor(RNG.uniform(-1, 1, (3, 2)).astype(np.float32)), Tensor(np.array([[0], [1], [1]], np.int32))
    np.testing.assert_allclose(nn.FocalLoss(Tensor(np.array([1, 2])))(logits, labels).asnumpy(),
                               nn.FocalLoss(Tensor(np.array([1.0, 2.0], np.float32)))(logits, labels).asnumpy())
    x, w = Tensor(X[:, :, :5]), Tensor(RNG.uniform(-1, 1, (2, 4, 3)).astype(np.float32))
    np.testing.assert_allclose(ops.conv1d(x, w, pad_mode="pad", padding=(1,)).asnumpy(),
                               ops.conv1d(x, w, pad_mode="pad", padding=1).asnumpy())


def test_get_activation_knows_mindspores_names() -> None:
    expected = {"relu6": nn.ReLU6, "softmin": nn.Softmin, "softmax2d": nn.Softmax2d, "logsoftmax": nn.LogSoftmax,
                "rrelu": nn.RReLU, "tanhshrink": nn.Tanhshrink, "hardtanh": nn.Hardtanh, "fast_gelu": nn.FastGelu,
                "softsign": nn.Softsign, "logsigmoid": nn.LogSigmoid, "softshrink": nn.SoftShrink,
                "hshrink": nn.HShrink}
    for name, cls in expected.items():
        assert type(nn.get_activation(name)) is cls, name
    x = Tensor(X)
    np.testing.assert_allclose(nn.get_activation("logsoftmax")(x).asnumpy(), ops.log_softmax(x, -1).asnumpy())
