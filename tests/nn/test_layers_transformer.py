"""MultiheadAttention and the transformer layers against NumPy formulas written here (same weights), in
both modes: masks (bool and float), key padding, batch_first, kdim/vdim, norm_first, decoder, stacked
encoder; parameter names as MindSpore 2.x; errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(11)
TOL = {"rtol": 2e-4, "atol": 2e-5}


def _p(cell, prefix=""):
    return {n[len(prefix):]: v.asnumpy().astype(np.float64) for n, v in cell.parameters_and_names()
            if n.startswith(prefix)}


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_ref(p, q, k, v, heads, attn_mask=None, kpm=None):
    """Time-major (L, N, E) attention from the formula; masks as additive float arrays."""
    e = q.shape[2]
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    bq, bk, bv = np.split(p["in_proj_bias"], 3)
    qp, kp, vp = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    d = e // heads
    out = np.zeros_like(qp)
    weights = np.zeros((q.shape[1], heads, q.shape[0], k.shape[0]))
    for n in range(q.shape[1]):
        for h in range(heads):
            sl = slice(h * d, (h + 1) * d)
            s = qp[:, n, sl] @ kp[:, n, sl].T / np.sqrt(d)
            if attn_mask is not None:
                s = s + attn_mask
            if kpm is not None:
                s = s + kpm[n][None, :]
            a = _softmax(s)
            weights[n, h] = a
            out[:, n, sl] = a @ vp[:, n, sl]
    return out @ p["out_proj.weight"].T + p["out_proj.bias"], weights


def _ln(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(-1, keepdims=True) + eps) * g + b


def _ff(p, x):
    return np.maximum(x @ p["dense1.weight"].T + p["dense1.bias"], 0) @ p["dense2.weight"].T + p["dense2.bias"]


def encoder_ref(p, x, heads, norm_first=False, mask=None):
    def sa(y):
        return mha_ref({k[10:]: v for k, v in p.items() if k.startswith("self_attn.")}, y, y, y, heads, mask)[0]
    n1 = lambda y: _ln(y, p["norm1.gamma"], p["norm1.beta"])  # noqa: E731
    n2 = lambda y: _ln(y, p["norm2.gamma"], p["norm2.beta"])  # noqa: E731
    if norm_first:
        x = x + sa(n1(x))
        return x + _ff(p, n2(x))
    x = n1(x + sa(x))
    return n2(x + _ff(p, x))


def _t(a):
    return ms.Tensor(np.asarray(a, np.float32) if a.dtype != bool else a)


def test_mha_self_attention_with_masks(mode):
    mha = nn.MultiheadAttention(8, 2)
    mha.in_proj_bias.set_data(RNG.standard_normal(24).astype(np.float32))
    x = RNG.standard_normal((4, 3, 8)).astype(np.float32)
    causal = np.triu(np.ones((4, 4), bool), 1)
    kpm = np.zeros((3, 4), bool)
    kpm[1, 3] = True
    out, w = mha(_t(x), _t(x), _t(x), _t(kpm), True, _t(causal))
    add_mask = np.where(causal, -np.inf, 0.0)
    want, want_w = mha_ref(_p(mha), x.astype(np.float64), x, x, 2, add_mask, np.where(kpm, -np.inf, 0.0))
    np.testing.assert_allclose(out.asnumpy(), want, **TOL)
    np.testing.assert_allclose(w.asnumpy(), want_w.mean(1), **TOL)


def test_mha_batch_first_kdim_vdim_float_mask_all_heads(mode):
    mha = nn.MultiheadAttention(6, 3, kdim=4, vdim=5, batch_first=True)
    q = RNG.standard_normal((2, 3, 6)).astype(np.float32)  # (N, L, E)
    k = RNG.standard_normal((2, 5, 4)).astype(np.float32)
    v = RNG.standard_normal((2, 5, 5)).astype(np.float32)
    fmask = RNG.standard_normal((3, 5)).astype(np.float32)
    out, w = mha(_t(q), _t(k), _t(v), None, True, _t(fmask), False)
    tm = [np.transpose(a, (1, 0, 2)).astype(np.float64) for a in (q, k, v)]
    want, want_w = mha_ref(_p(mha), *tm, 3, attn_mask=fmask)
    np.testing.assert_allclose(out.asnumpy(), np.transpose(want, (1, 0, 2)), **TOL)
    assert w.shape == (2, 3, 3, 5)
    np.testing.assert_allclose(w.asnumpy(), want_w, **TOL)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_numpy(mode, norm_first):
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, norm_first=norm_first)
    x = RNG.standard_normal((5, 2, 8)).astype(np.float32)
    np.testing.assert_allclose(layer(_t(x)).asnumpy(), encoder_ref(_p(layer), x.astype(np.float64), 2, norm_first),
                               **TOL)


def test_transformer_encoder_stack_and_names(mode):
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, nn.LayerNorm((8,)))
    names = [n for n, _ in enc.parameters_and_names()]
    assert names[:6] == ["layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
                         "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
                         "layers.0.dense1.weight", "layers.0.dense1.bias"]
    assert "layers.1.norm2.gamma" in names and names[-2:] == ["norm.gamma", "norm.beta"]
    assert enc.layers[0].dense1.weight is not enc.layers[1].dense1.weight
    enc.layers[1].dense1.weight.set_data(RNG.standard_normal((16, 8)).astype(np.float32))
    x = RNG.standard_normal((2, 4, 8)).astype(np.float32)
    mask = np.triu(np.full((4, 4), -1e9, np.float32), 1)
    y = np.transpose(x, (1, 0, 2)).astype(np.float64)
    for i in range(2):
        y = encoder_ref(_p(enc, f"layers.{i}."), y, 2, mask=mask)
    p = _p(enc)
    want = np.transpose(_ln(y, p["norm.gamma"], p["norm.beta"]), (1, 0, 2))
    np.testing.assert_allclose(enc(_t(x), _t(mask)).asnumpy(), want, **TOL)


def test_decoder_layer_matches_numpy(mode):
    dec = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
    tgt = RNG.standard_normal((4, 2, 8)).astype(np.float32)
    mem = RNG.standard_normal((6, 2, 8)).astype(np.float32)
    p = _p(dec)
    sa = {k[10:]: v for k, v in p.items() if k.startswith("self_attn.")}
    ca = {k[15:]: v for k, v in p.items() if k.startswith("multihead_attn.")}
    x, m = tgt.astype(np.float64), mem.astype(np.float64)
    x = _ln(x + mha_ref(sa, x, x, x, 2)[0], p["norm1.gamma"], p["norm1.beta"])
    x = _ln(x + mha_ref(ca, x, m, m, 2)[0], p["norm2.gamma"], p["norm2.beta"])
    want = _ln(x + _ff(p, x), p["norm3.gamma"], p["norm3.beta"])
    np.testing.assert_allclose(dec(_t(tgt), _t(mem)).asnumpy(), want, **TOL)


def test_attention_errors():
    with pytest.raises(ValueError, match=r"embed_dim \(6\) must be divisible by num_heads \(4\)"):
        nn.MultiheadAttention(6, 4)
    mha = nn.MultiheadAttention(8, 2)
    x = _t(np.zeros((3, 2, 8)))
    with pytest.raises(ShapeError, match="key must be a rank-3 Tensor with 8 features"):
        mha(x, _t(np.zeros((3, 2, 5))), x)
    with pytest.raises(ShapeError, match=r"attn_mask must be \(3, 3\)"):
        mha(x, x, x, None, True, _t(np.zeros((2, 3))))
    with pytest.raises(ValueError, match="activation must be 'relu', 'gelu'"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")
