"""Every opbuild layer that has a torch counterpart against torch (CPU, float32) with the SAME weights: torch's
module is built and randomised first, its parameters and buffers are copied into the opbuild cell by name
(opbuild's name -> torch's name: MindSpore's ``gamma``/``beta``/``moving_mean``/``moving_variance``/``w``/
``embedding_table`` become ``weight``/``bias``/``running_mean``/``running_var``/``weight``/``weight``, every
other name is the same), and both run the same input, in GRAPH_MODE and PyNative (the ``mode`` fixture).

Where MindSpore's defaults differ from torch's (LayerNorm's epsilon 1e-7, LeakyReLU's alpha 0.2, GELU's
``approximate=True``, Conv2d's ``pad_mode='same'`` and ``has_bias=False``, BatchNorm's momentum weighing the
old moving statistic) the opbuild side is built with MindSpore's arguments and the torch side is given the
equivalent ones; the comments say which.

Tolerances: float32 on both sides, accumulation order differs: rtol=1e-4, atol=1e-5 for single ops, atol=1e-4
for deep stacks (RNNs, attention, transformer layers)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from tests.helpers import TORCH_MISSING

torch = pytest.importorskip("torch", reason=TORCH_MISSING)

pytestmark = pytest.mark.slow


TOL = {"rtol": 1e-4, "atol": 1e-5}
DEEP = {"rtol": 1e-4, "atol": 1e-4}
RNG = np.random.default_rng(20240)
RENAME = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean", "moving_variance": "running_var",
          "w": "weight", "embedding_table": "weight"}


def _torch_name(name: str) -> str:
    # MindSpore's transformer layers name their feed-forward Dense cells dense1/dense2, torch's linear1/linear2.
    name = name.replace("dense1.", "linear1.").replace("dense2.", "linear2.")
    head, _, last = name.rpartition(".")
    last = RENAME.get(last, last)
    return f"{head}.{last}" if head else last


_NORMS = (torch.nn.modules.batchnorm._NormBase, torch.nn.LayerNorm, torch.nn.GroupNorm)


def _randomize(tmod) -> None:
    """Non-trivial values in every float parameter and buffer (norm scales around 1, variances positive)."""
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for name, t in list(tmod.named_parameters()) + list(tmod.named_buffers()):
            if not t.is_floating_point():
                continue
            r = torch.rand(t.shape, generator=gen)
            if name.endswith("running_var"):
                t.copy_(0.5 + r)
            elif t.dim() == 1 and ("norm" in name or isinstance(tmod, _NORMS)):
                t.copy_(0.5 + r if name.endswith("weight") else r - 0.5)
            else:
                t.copy_((r - 0.5) * 0.8)


def copy_weights(cell, tmod, randomize: bool = True) -> None:
    """Copy torch's parameters and buffers into ``cell`` by name; every opbuild parameter must have its torch
    counterpart of the same shape, and every torch parameter must be used."""
    if randomize:
        _randomize(tmod)
    sd = {k: v for k, v in tmod.state_dict().items() if not k.endswith("num_batches_tracked")}
    used = set()
    for name, p in cell.parameters_and_names():
        if name.endswith("rng_state"):
            continue
        tname = _torch_name(name)
        if isinstance(cell, nn.InstanceNorm2d) and name.startswith("moving_"):
            continue  # MindSpore's InstanceNorm keeps running statistics its forward never reads; torch has none
        assert tname in sd, f"{name} -> {tname} not among torch's {sorted(sd)}"
        # reshape: MindSpore's Conv1d keeps its weight 4-D (out, in, 1, k), torch's is 3-D
        p.set_data(sd[tname].detach().numpy().reshape(p.shape).copy())
        used.add(tname)
    missing = {n for n, _ in tmod.named_parameters()} - used
    assert not missing, f"torch parameters without an opbuild counterpart: {sorted(missing)}"


def _np(out):
    if isinstance(out, (tuple, list)):
        return [_np(o) for o in out]
    return out.asnumpy() if hasattr(out, "asnumpy") else out.detach().numpy()


def _assert_close(a, b, tol):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_close(x, y, tol)
        return
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, **tol)


def check(cell, tmod, *inputs, tol=TOL, copy=True):
    """Copy the weights, run both on ``inputs`` (NumPy arrays), compare every output."""
    if copy:
        copy_weights(cell, tmod)
    tmod.eval()
    cell.set_train(False)
    out = _np(cell(*[ms.Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]))
    with torch.no_grad():
        ref = _np(tmod(*[torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in inputs]))
    _assert_close(out, ref, tol)
    return out


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


# --- Dense and convolutions --------------------------------------------------------------------------------------

def test_dense(mode):
    check(nn.Dense(6, 4), torch.nn.Linear(6, 4), rand(5, 6))
    check(nn.Dense(6, 4, has_bias=False), torch.nn.Linear(6, 4, bias=False), rand(2, 3, 6))


@pytest.mark.parametrize("kw", [
    {"stride": 1, "padding": 0, "dilation": 1, "group": 1},
    {"stride": 2, "padding": 2, "dilation": 1, "group": 1},
    {"stride": 1, "padding": 1, "dilation": 2, "group": 2},
])
def test_conv1d(mode, kw):
    cell = nn.Conv1d(4, 6, 3, pad_mode="pad", has_bias=True, **kw)
    tmod = torch.nn.Conv1d(4, 6, 3, stride=kw["stride"], padding=kw["padding"], dilation=kw["dilation"],
                           groups=kw["group"])
    check(cell, tmod, rand(2, 4, 11))


def test_conv1d_same_and_no_bias(mode):
    # MindSpore's defaults: pad_mode='same', has_bias=False; torch: padding='same', bias=False (stride 1).
    check(nn.Conv1d(3, 5, 4), torch.nn.Conv1d(3, 5, 4, padding="same", bias=False), rand(2, 3, 9))


@pytest.mark.parametrize("kw", [
    {"stride": 1, "padding": 0, "dilation": 1, "group": 1},
    {"stride": 2, "padding": 1, "dilation": 1, "group": 1},
    {"stride": (1, 2), "padding": 2, "dilation": 2, "group": 2},
])
def test_conv2d(mode, kw):
    cell = nn.Conv2d(4, 6, 3, pad_mode="pad", has_bias=True, **kw)
    tmod = torch.nn.Conv2d(4, 6, 3, stride=kw["stride"], padding=kw["padding"], dilation=kw["dilation"],
                           groups=kw["group"])
    check(cell, tmod, rand(2, 4, 9, 10))


def test_conv2d_same_default(mode):
    # MindSpore's default pad_mode='same' (stride 1, even kernel: the extra row/column at the end, as torch's).
    check(nn.Conv2d(3, 4, (2, 4)), torch.nn.Conv2d(3, 4, (2, 4), padding="same", bias=False), rand(1, 3, 7, 8))


@pytest.mark.parametrize("kw", [
    {"stride": 1, "padding": 0, "output_padding": 0, "dilation": 1, "group": 1},
    {"stride": 2, "padding": 1, "output_padding": 1, "dilation": 1, "group": 1},
    {"stride": 2, "padding": 0, "output_padding": 0, "dilation": 2, "group": 2},
])
def test_conv2d_transpose(mode, kw):
    cell = nn.Conv2dTranspose(4, 6, 3, pad_mode="pad", has_bias=True, **kw)
    tmod = torch.nn.ConvTranspose2d(4, 6, 3, stride=kw["stride"], padding=kw["padding"],
                                    output_padding=kw["output_padding"], dilation=kw["dilation"], groups=kw["group"])
    check(cell, tmod, rand(2, 4, 5, 6))


# --- Recurrent layers ---------------------------------------------------------------------------------------------

RNN_CONFIGS = [
    {"num_layers": 1, "bidirectional": False, "batch_first": False, "has_bias": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": False, "has_bias": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True, "has_bias": False},
]


def _rnn_pair(kind, cfg, nonlinearity="tanh"):
    kw = dict(num_layers=cfg["num_layers"], bidirectional=cfg["bidirectional"], batch_first=cfg["batch_first"])
    if kind == "RNN":
        return (nn.RNN(5, 4, nonlinearity=nonlinearity, has_bias=cfg["has_bias"], **kw),
                torch.nn.RNN(5, 4, nonlinearity=nonlinearity, bias=cfg["has_bias"], **kw))
    return (getattr(nn, kind)(5, 4, has_bias=cfg["has_bias"], **kw),
            getattr(torch.nn, kind)(5, 4, bias=cfg["has_bias"], **kw))


@pytest.mark.parametrize("cfg", RNN_CONFIGS)
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_recurrent(mode, kind, cfg):
    cell, tmod = _rnn_pair(kind, cfg)
    x = rand(3, 6, 5) if cfg["batch_first"] else rand(6, 3, 5)
    check(cell, tmod, x, tol=DEEP)
    # with initial states
    states = cfg["num_layers"] * (2 if cfg["bidirectional"] else 1)
    h0 = rand(states, 3, 4)
    hx = (h0, rand(states, 3, 4)) if kind == "LSTM" else h0
    ms_hx = tuple(ms.Tensor(h) for h in hx) if kind == "LSTM" else ms.Tensor(hx)
    t_hx = tuple(torch.from_numpy(h) for h in hx) if kind == "LSTM" else torch.from_numpy(hx)
    out = _np(cell(ms.Tensor(x), ms_hx))
    with torch.no_grad():
        ref = _np(tmod(torch.from_numpy(x), t_hx))
    _assert_close(out, ref, DEEP)


def test_rnn_relu(mode):
    check(*_rnn_pair("RNN", RNN_CONFIGS[1], "relu"), rand(6, 3, 5), tol=DEEP)


# --- Attention and transformer layers ------------------------------------------------------------------------------

@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(mode, batch_first):
    cell = nn.MultiheadAttention(8, 2, batch_first=batch_first)
    tmod = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first)
    q = rand(2, 5, 8) if batch_first else rand(5, 2, 8)
    kv = rand(2, 7, 8) if batch_first else rand(7, 2, 8)
    check(cell, tmod, q, kv, kv, tol=DEEP)  # (output, head-averaged weights)
    # masks: boolean key padding (True = ignored) and an additive float attention mask; per-head weights
    kpm = np.zeros((2, 7), bool)
    kpm[0, 5:] = True
    am = rand(5, 7)
    # positionally: (query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights)
    out = _np(cell(ms.Tensor(q), ms.Tensor(kv), ms.Tensor(kv), ms.Tensor(kpm), True, ms.Tensor(am), False))
    with torch.no_grad():
        ref = _np(tmod(*(torch.from_numpy(a) for a in (q, kv, kv)), key_padding_mask=torch.from_numpy(kpm),
                       attn_mask=torch.from_numpy(am), average_attn_weights=False))
    _assert_close(out, ref, DEEP)


@pytest.mark.parametrize("cfg", [
    {"activation": "relu", "batch_first": False, "norm_first": False},
    {"activation": "gelu", "batch_first": True, "norm_first": True},
])
def test_transformer_encoder_layer(mode, cfg):
    # eval mode, dropout 0: torch may take its fused fast path, the same math.
    cell = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **cfg)
    tmod = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **cfg)
    check(cell, tmod, rand(3, 5, 8), tol=DEEP)


@pytest.mark.parametrize("cfg", [
    {"activation": "relu", "batch_first": False, "norm_first": False},
    {"activation": "gelu", "batch_first": True, "norm_first": True},
])
def test_transformer_decoder_layer(mode, cfg):
    cell = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **cfg)
    tmod = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **cfg)
    tgt, memory = (rand(3, 4, 8), rand(3, 6, 8)) if cfg["batch_first"] else (rand(4, 3, 8), rand(6, 3, 8))
    check(cell, tmod, tgt, memory, tol=DEEP)


def test_transformer_encoder_with_mask(mode):
    cell = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    tmod = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                       enable_nested_tensor=False)
    x, mask = rand(5, 3, 8), rand(5, 5)
    check(cell, tmod, x, tol=DEEP)
    copy = False  # same weights, now with an additive src_mask
    check(cell, tmod, x, mask, copy=copy, tol=DEEP)


# --- Normalisation -------------------------------------------------------------------------------------------------

def test_layer_norm(mode):
    # MindSpore's LayerNorm default epsilon is 1e-7 (torch's 1e-5): given explicitly on both sides.
    check(nn.LayerNorm((6,), epsilon=1e-5), torch.nn.LayerNorm(6, eps=1e-5), rand(3, 4, 6, scale=3.0))
    check(nn.LayerNorm((4, 6), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7),
          torch.nn.LayerNorm((4, 6), eps=1e-7), rand(3, 4, 6, scale=3.0))


def test_group_norm(mode):
    check(nn.GroupNorm(2, 6), torch.nn.GroupNorm(2, 6), rand(3, 6, 4, 5, scale=2.0))


def test_instance_norm2d(mode):
    # MindSpore's InstanceNorm2d normalises with each instance's statistics (affine by default); torch's
    # InstanceNorm2d(affine=True) without running statistics is the same layer.
    check(nn.InstanceNorm2d(3), torch.nn.InstanceNorm2d(3, affine=True), rand(2, 3, 4, 5, scale=2.0))


@pytest.mark.parametrize("kind,shape", [("BatchNorm1d", (6, 4)), ("BatchNorm2d", (4, 4, 3, 5))])
def test_batchnorm_eval(mode, kind, shape):
    check(getattr(nn, kind)(4), getattr(torch.nn, kind)(4), rand(*shape, scale=2.0))


@pytest.mark.parametrize("kind,shape", [("BatchNorm1d", (6, 4)), ("BatchNorm2d", (4, 4, 3, 5))])
def test_batchnorm_train_outputs_and_moving_statistics(mode, kind, shape):
    # MindSpore: moving = moving * momentum + batch * (1 - momentum); torch: running = running * (1 - momentum)
    # + batch * momentum. MindSpore momentum 0.9 is torch momentum 0.1 (both use the unbiased batch variance).
    cell, tmod = getattr(nn, kind)(4, momentum=0.7), getattr(torch.nn, kind)(4, momentum=0.3)
    copy_weights(cell, tmod)
    cell.set_train(True)
    tmod.train()
    for step in range(3):
        x = rand(*shape, scale=2.0) + step
        out = cell(ms.Tensor(x)).asnumpy()
        with torch.no_grad():
            ref = tmod(torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(out, ref, **TOL)
        np.testing.assert_allclose(cell.moving_mean.asnumpy(), tmod.running_mean.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(cell.moving_variance.asnumpy(), tmod.running_var.numpy(), rtol=1e-5, atol=1e-6)
    check(cell, tmod, rand(*shape), copy=False)  # eval afterwards: the updated moving statistics


# --- Activations -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", [
    (lambda: nn.LeakyReLU(), lambda: torch.nn.LeakyReLU(0.2)),  # MindSpore's default alpha is 0.2
    (lambda: nn.LeakyReLU(0.05), lambda: torch.nn.LeakyReLU(0.05)),
    (lambda: nn.ELU(), lambda: torch.nn.ELU()),
    (lambda: nn.ELU(0.5), lambda: torch.nn.ELU(0.5)),
    (lambda: nn.SiLU(), lambda: torch.nn.SiLU()),
    (lambda: nn.HSwish(), lambda: torch.nn.Hardswish()),
    (lambda: nn.HSigmoid(), lambda: torch.nn.Hardsigmoid()),
    (lambda: nn.Mish(), lambda: torch.nn.Mish()),
    (lambda: nn.GELU(), lambda: torch.nn.GELU(approximate="tanh")),  # MindSpore's default approximate=True
    (lambda: nn.GELU(approximate=False), lambda: torch.nn.GELU()),
], ids=["leakyrelu-default", "leakyrelu", "elu", "elu-alpha", "silu", "hswish", "hsigmoid", "mish",
        "gelu-tanh", "gelu-erf"])
def test_activation(mode, pair):
    x = rand(3, 4, 5, scale=3.0)
    x[0, 0, :3] = [-3.0, 3.0, 0.0]  # HSwish/HSigmoid breakpoints
    check(pair[0](), pair[1](), x)


def test_prelu(mode):
    check(nn.PReLU(3), torch.nn.PReLU(3), rand(2, 3, 4, 4))
    check(nn.PReLU(), torch.nn.PReLU(), rand(2, 3, 4))


# --- Pooling, resizing, embedding -----------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(2, 3), 3, (1, 1), (None, 2)])
def test_adaptive_pool2d(mode, size):
    x = rand(2, 3, 7, 9)
    check(nn.AdaptiveAvgPool2d(size), torch.nn.AdaptiveAvgPool2d(size), x)
    check(nn.AdaptiveMaxPool2d(size), torch.nn.AdaptiveMaxPool2d(size), x)


@pytest.mark.parametrize("kw", [{"kernel_size": 3, "stride": 2}, {"kernel_size": 2, "stride": 1}])
def test_pool1d(mode, kw):
    x = rand(2, 3, 10)
    check(nn.MaxPool1d(**kw), torch.nn.MaxPool1d(**kw), x)
    check(nn.AvgPool1d(**kw), torch.nn.AvgPool1d(**kw), x)


def test_pool1d_padded(mode):
    x = rand(2, 3, 10)
    check(nn.MaxPool1d(3, 2, pad_mode="pad", padding=1), torch.nn.MaxPool1d(3, 2, padding=1), x)
    check(nn.AvgPool1d(3, 2, pad_mode="pad", padding=1), torch.nn.AvgPool1d(3, 2, padding=1), x)


@pytest.mark.parametrize("kw", [{"kernel_size": 2, "stride": 2}, {"kernel_size": 3, "stride": (1, 2)}])
def test_pool2d_valid(mode, kw):
    x = rand(2, 3, 7, 8)
    check(nn.MaxPool2d(**kw), torch.nn.MaxPool2d(**kw), x)
    check(nn.AvgPool2d(**kw), torch.nn.AvgPool2d(**kw), x)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_pool2d_padded(mode, count_include_pad):
    x = rand(2, 3, 7, 8)
    check(nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), torch.nn.MaxPool2d(3, 2, padding=1), x)
    check(nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=count_include_pad),
          torch.nn.AvgPool2d(3, 2, padding=1, count_include_pad=count_include_pad), x)


@pytest.mark.parametrize("kw", [
    {"scale_factor": 2.0, "mode": "nearest"},
    {"size": (5, 7), "mode": "nearest"},
    {"scale_factor": 2.0, "mode": "bilinear", "align_corners": False},
    {"scale_factor": 2.0, "mode": "bilinear", "align_corners": True},
    {"size": (5, 9), "mode": "bilinear", "align_corners": False},
    {"size": (5, 9), "mode": "bilinear", "align_corners": True},
])
def test_upsample(mode, kw):
    check(nn.Upsample(**kw), torch.nn.Upsample(**kw), rand(2, 3, 3, 4))


def test_pixel_shuffle(mode):
    check(nn.PixelShuffle(2), torch.nn.PixelShuffle(2), rand(2, 12, 3, 4))


def test_embedding(mode):
    ids = RNG.integers(0, 10, size=(3, 5)).astype(np.int32)
    check(nn.Embedding(10, 4), torch.nn.Embedding(10, 4), ids)
    cell, tmod = nn.Embedding(10, 4, padding_idx=0), torch.nn.Embedding(10, 4, padding_idx=0)
    check(cell, tmod, ids)
