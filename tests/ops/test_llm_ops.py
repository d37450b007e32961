"""MindSpore's fused large-model operators (ops/api/llm_attention.py, llm_fused.py, ms_prim_classes_llm.py):
``flash_attention_score``/``FlashAttentionScore``, ``prompt_flash_attention``, ``incre_flash_attention``,
``rotary_position_embedding``, ``add_rms_norm``, ``add_layer_norm`` and ``RmsNorm``.

MindSpore 2.10 implements these on Ascend only, so its CPU build cannot record fixtures for them: they are
checked against PyTorch (CPU), ``scaled_dot_product_attention`` with the equivalent boolean masks and GQA and
rotary embeddings written from the documented formula, forward in PyNative and GRAPH_MODE and gradients against
torch autograd."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops

torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of the Ascend-only fused operators")
F = torch.nn.functional
RNG = np.random.default_rng(7)


def _r(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _run(fn, *arrays):
    """fn(*Tensors) as a Cell's construct (traced under GRAPH_MODE); outputs as NumPy."""
    class Net(ms.nn.Cell):
        def construct(self, *xs):
            return fn(*xs)

    out = Net()(*(ms.Tensor(a) for a in arrays))
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


class _mode:
    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self):
        self.old = ms.get_context("mode")
        ms.set_context(mode=ms.GRAPH_MODE if self.name == "graph" else ms.PYNATIVE_MODE)

    def __exit__(self, *exc):
        ms.set_context(mode=self.old)


def _to_bnsd(x: np.ndarray, layout: str, n: int) -> torch.Tensor:
    t = x if isinstance(x, torch.Tensor) else torch.from_numpy(x)
    if layout == "BSH":
        return t.reshape(*t.shape[:2], n, -1).transpose(1, 2)
    if layout == "SBH":
        return t.reshape(*t.shape[:2], n, -1).permute(1, 2, 0, 3)
    return t.transpose(1, 2) if layout == "BSND" else t


def _from_bnsd(t: torch.Tensor, layout: str) -> np.ndarray:
    b, n, s, d = t.shape
    if layout == "BSH":
        t = t.transpose(1, 2).reshape(b, s, n * d)
    elif layout == "SBH":
        t = t.permute(2, 0, 1, 3).reshape(s, b, n * d)
    elif layout == "BSND":
        t = t.transpose(1, 2)
    return t.detach().numpy()


def _qkv(layout: str, b: int, n1: int, n2: int, s1: int, s2: int, d: int):
    shapes = {"BSH": ((b, s1, n1 * d), (b, s2, n2 * d)), "SBH": ((s1, b, n1 * d), (s2, b, n2 * d)),
              "BSND": ((b, s1, n1, d), (b, s2, n2, d)), "BNSD": ((b, n1, s1, d), (b, n2, s2, d))}[layout]
    return _r(*shapes[0]), _r(*shapes[1]), _r(*shapes[1])


def _sdpa(q, k, v, layout, n1, n2, keep=None, scale=None):
    """torch's attention; ``keep`` is torch's boolean mask (True = attend), MindSpore's mask inverted."""
    tq, tk, tv = _to_bnsd(q, layout, n1), _to_bnsd(k, layout, n2), _to_bnsd(v, layout, n2)
    keep = None if keep is None else torch.from_numpy(np.ascontiguousarray(keep))
    return _from_bnsd(F.scaled_dot_product_attention(tq, tk, tv, attn_mask=keep, scale=scale, enable_gqa=True),
                      layout)


@pytest.mark.parametrize("layout", ["BSH", "SBH", "BSND", "BNSD"])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_flash_attention_score_layouts_and_gqa(layout, mode):
    b, n1, n2, s1, s2, d = 2, 4, 2, 5, 7, 8
    q, k, v = _qkv(layout, b, n1, n2, s1, s2, d)
    mask = RNG.random((b, 1, s1, s2)) < 0.3
    mask[..., 0] = False  # every row keeps a key: torch gives NaN for a fully masked row
    with _mode(mode):
        got = _run(lambda x, y, z, m: ops.flash_attention_score(x, y, z, n1, attn_mask=m, scalar_value=d ** -0.5,
                                                                input_layout=layout), q, k, v, mask)
    np.testing.assert_allclose(got, _sdpa(q, k, v, layout, n1, n2, ~mask, d ** -0.5), rtol=1e-5, atol=1e-5)


def _causal(s1: int, s2: int, right_down: bool, pre: int = 1 << 30, nxt: int = 0) -> np.ndarray:
    """torch-style keep mask of the band -pre <= j - i - shift <= nxt (shift s2 - s1 anchored bottom right)."""
    d = np.arange(s2)[None] - np.arange(s1)[:, None] - (s2 - s1 if right_down else 0)
    return (d <= nxt) & (d >= -pre)


@pytest.mark.parametrize(("sparse_mode", "pre", "nxt", "keep"), [
    (2, 2147483647, 2147483647, _causal(6, 9, False)),
    (3, 2147483647, 2147483647, _causal(6, 9, True)),
    (4, 2, 1, _causal(6, 9, True, 2, 1)),
])
def test_flash_attention_score_sparse_modes(sparse_mode, pre, nxt, keep):
    """Modes 2-4 build their causal/band mask from the shapes (Ascend's compressed 2048x2048 mask is optional)."""
    q, k, v = _qkv("BNSD", 1, 2, 2, 6, 9, 16)
    with _mode("graph"):
        got = _run(lambda x, y, z: ops.flash_attention_score(
            x, y, z, 2, input_layout="BNSD", sparse_mode=sparse_mode, pre_tokens=pre, next_tokens=nxt), q, k, v)
    np.testing.assert_allclose(got, _sdpa(q, k, v, "BNSD", 2, 2, keep, 1.0), rtol=1e-5, atol=1e-5)


def test_flash_attention_score_mode0_band_and_prefix():
    q, k, v = _qkv("BNSD", 2, 2, 1, 6, 6, 8)
    none = np.zeros((6, 6), bool)
    got = ops.flash_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), 2, attn_mask=ms.Tensor(none),
                                    input_layout="BNSD", pre_tokens=2, next_tokens=0).asnumpy()
    np.testing.assert_allclose(got, _sdpa(q, k, v, "BNSD", 2, 1, _causal(6, 6, False, 2, 0), 1.0), atol=1e-5)
    got = ops.flash_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), 2, prefix=[3, 1], input_layout="BNSD",
                                    sparse_mode=5).asnumpy()
    keep = np.stack([_causal(6, 6, True) | (np.arange(6) < n)[None] for n in (3, 1)])[:, None]
    np.testing.assert_allclose(got, _sdpa(q, k, v, "BNSD", 2, 1, keep, 1.0), atol=1e-5)


def test_flash_attention_score_primitive_outputs():
    """softmax_max/softmax_sum are the rows' score maximum and sum of exp(score - max), repeated over 8."""
    b, n, s1, s2, d = 2, 2, 3, 5, 4
    q, k, v = _qkv("BSH", b, n, n, s1, s2, d)
    with _mode("graph"):
        mx, total, unused, out = _run(lambda x, y, z: ops.FlashAttentionScore(n, scale_value=0.5)(x, y, z), q, k, v)
    scores = 0.5 * _to_bnsd(q, "BSH", n) @ _to_bnsd(k, "BSH", n).transpose(-1, -2)
    want_max = scores.amax(-1, keepdim=True)
    assert mx.shape == total.shape == (b, n, s1, 8) and mx.dtype == np.float32 and unused.shape == ()
    np.testing.assert_allclose(mx, want_max.expand(b, n, s1, 8).numpy(), rtol=1e-5)
    np.testing.assert_allclose(total, (scores - want_max).exp().sum(-1, keepdim=True).expand(b, n, s1, 8).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(out, _sdpa(q, k, v, "BSH", n, n, None, 0.5), rtol=1e-5, atol=1e-5)


def test_flash_attention_score_tnd_varlen():
    """TND packs batches of lengths (2, 4) / (3, 5) along T; sparse_mode 3 is causal from the bottom right."""
    lq, lk, n1, n2, d = (2, 4), (3, 5), 4, 2, 8
    q, k, v = _r(sum(lq), n1, d), _r(sum(lk), n2, d), _r(sum(lk), n2, d)
    got = ops.flash_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), n1, actual_seq_qlen=[2, 6],
                                    actual_seq_kvlen=[3, 8], input_layout="TND", sparse_mode=3).asnumpy()
    want, qa, ka = [], 0, 0
    for sq, sk in zip(lq, lk):
        seg = (x[None].transpose(0, 2, 1, 3) for x in (q[qa:qa + sq], k[ka:ka + sk], v[ka:ka + sk]))
        want.append(_sdpa(*seg, "BNSD", n1, n2, _causal(sq, sk, True), 1.0)[0].transpose(1, 0, 2))
        qa, ka = qa + sq, ka + sk
    np.testing.assert_allclose(got, np.concatenate(want), rtol=1e-5, atol=1e-5)


def test_flash_attention_score_grad_matches_torch():
    b, n1, n2, s, d = 2, 4, 2, 5, 8
    q, k, v = _qkv("BSH", b, n1, n2, s, s, d)
    dy = _r(b, s, n1 * d)

    def loss(x, y, z):
        out = ops.flash_attention_score(x, y, z, n1, scalar_value=d ** -0.5, sparse_mode=2)
        return (out * ms.Tensor(dy)).sum()

    with _mode("graph"):
        got = ms.grad(loss, grad_position=(0, 1, 2))(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v))
    tq, tk, tv = (torch.from_numpy(a).requires_grad_() for a in (q, k, v))
    out = F.scaled_dot_product_attention(_to_bnsd(tq, "BSH", n1), _to_bnsd(tk, "BSH", n2),
                                         _to_bnsd(tv, "BSH", n2), is_causal=True, scale=d ** -0.5, enable_gqa=True)
    (out.transpose(1, 2).reshape(b, s, n1 * d) * torch.from_numpy(dy)).sum().backward()
    for g, t in zip(got, (tq, tk, tv)):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_flash_attention_score_float16():
    q, k, v = (a.astype(np.float16) for a in _qkv("BNSD", 1, 2, 2, 4, 4, 16))
    got = ops.flash_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), 2, input_layout="BNSD",
                                    scalar_value=0.25)
    assert got.dtype == ms.float16
    want = _sdpa(*(a.astype(np.float32) for a in (q, k, v)), "BNSD", 2, 2, None, 0.25)
    np.testing.assert_allclose(got.asnumpy().astype(np.float32), want, rtol=2e-3, atol=2e-3)


def test_flash_attention_score_refuses_bad_input():
    q, k, v = (ms.Tensor(a) for a in _qkv("BSH", 1, 2, 2, 3, 3, 4))
    with pytest.raises(NotImplementedError, match="dropout"):
        ops.flash_attention_score(q, k, v, 2, keep_prob=0.9)
    with pytest.raises(ValueError, match="input_layout"):
        ops.flash_attention_score(q, k, v, 2, input_layout="NSD")
    with pytest.raises(ValueError, match="sparse_mode"):
        ops.flash_attention_score(q, k, v, 2, sparse_mode=6)
    with pytest.raises(ValueError, match="heads"):
        ops.flash_attention_score(q, k, v, 3)
    with pytest.raises(TypeError, match="attn_mask"):
        ops.flash_attention_score(q, k, v, 2, attn_mask=ms.Tensor(np.zeros((3, 3), np.float32)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("layout", ["BSH", "BNSD"])
def test_prompt_flash_attention_gqa_lengths(layout, mode):
    b, n1, n2, s, d = 2, 4, 1, 6, 8
    q, k, v = _qkv(layout, b, n1, n2, s, s, d)
    causal = ~_causal(s, s, False)  # MindSpore's mask: True masks out
    with _mode(mode):
        got = _run(lambda x, y, z, m: ops.prompt_flash_attention(
            x, y, z, m, actual_seq_lengths=[6, 4], actual_seq_lengths_kv=[6, 4], num_heads=n1, scale_value=0.3,
            input_layout=layout, num_key_value_heads=n2), q, k, v, causal)
    keep = np.stack([_causal(s, s, False) & (np.arange(s) < n)[None] for n in (6, 4)])[:, None]
    keep[1, :, 4:, 0] = True  # rows past the prompt: keep torch finite, they are checked to be 0 below
    want = _sdpa(q, k, v, layout, n1, n2, keep, 0.3)
    rows = _to_bnsd(got, layout, n1).numpy()
    np.testing.assert_array_equal(rows[1, :, 4:], 0)
    want_b = _to_bnsd(want, layout, n1).numpy()
    np.testing.assert_allclose(rows[:, :, :4], want_b[:, :, :4], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rows[0], want_b[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_incre_flash_attention_decoding_step(mode):
    b, n1, n2, s, d = 2, 4, 2, 7, 8
    q, k, v = _r(b, 1, n1 * d), _r(b, s, n2 * d), _r(b, s, n2 * d)
    mask = np.zeros((b, 1, 1, s), bool)
    mask[0, ..., 2] = True
    with _mode(mode):
        got = _run(lambda x, y, z, m: ops.incre_flash_attention(
            x, [y], [z], m, actual_seq_lengths=[7, 5], num_heads=n1, scale_value=d ** -0.5, num_key_value_heads=n2),
            q, k, v, mask)
    keep = ~mask & (np.arange(s) < np.array([7, 5])[:, None]).reshape(b, 1, 1, s)
    np.testing.assert_allclose(got, _sdpa(q, k, v, "BSH", n1, n2, keep, d ** -0.5), rtol=1e-5, atol=1e-5)
    with pytest.raises(NotImplementedError, match="block_table"):
        ops.incre_flash_attention(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), block_table=ms.Tensor(np.zeros((2, 1))),
                                  num_heads=n1)


def _torch_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mode: int) -> torch.Tensor:
    if mode == 0:
        x1, x2 = x.chunk(2, -1)
        rot = torch.cat([-x2, x1], -1)
    else:
        rot = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    return x * cos + rot * sin


@pytest.mark.parametrize("rope_mode", [0, 1])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_rotary_position_embedding(rope_mode, mode):
    x = _r(2, 3, 5, 8)
    ang = RNG.random((1, 1, 5, 8)).astype(np.float32) * 6
    cos, sin = np.cos(ang), np.sin(ang)
    with _mode(mode):
        got = _run(lambda a, c, s: ops.rotary_position_embedding(a, c, s, rope_mode), x, cos, sin)
    want = _torch_rope(*(torch.from_numpy(a) for a in (x, cos, sin)), rope_mode).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    dy = _r(*x.shape)
    with _mode(mode):
        g = ms.grad(lambda a: (ops.rotary_position_embedding(a, ms.Tensor(cos), ms.Tensor(sin), rope_mode)
                               * ms.Tensor(dy)).sum())(ms.Tensor(x))
    tx = torch.from_numpy(x).requires_grad_()
    (_torch_rope(tx, torch.from_numpy(cos), torch.from_numpy(sin), rope_mode) * torch.from_numpy(dy)).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="mode"):
        ops.rotary_position_embedding(ms.Tensor(x), ms.Tensor(cos), ms.Tensor(sin), 2)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_add_rms_norm_and_rms_norm_class(mode):
    x1, x2, gamma = _r(3, 4, 16), _r(3, 4, 16), _r(16)
    with _mode(mode):
        y, rstd, xs = _run(lambda a, b, g: ops.add_rms_norm(a, b, g, 1e-5), x1, x2, gamma)
        y2, rstd2 = _run(lambda a, g: ops.RmsNorm(1e-5)(a, g), x1 + x2, gamma)
    tx = torch.from_numpy(x1 + x2)
    want_rstd = torch.rsqrt(tx.pow(2).mean(-1, keepdim=True) + 1e-5)
    np.testing.assert_allclose(xs, x1 + x2, rtol=1e-6)
    np.testing.assert_allclose(rstd, want_rstd.numpy(), rtol=1e-5)
    np.testing.assert_allclose(y, (tx * want_rstd * torch.from_numpy(gamma)).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2, y, rtol=1e-6)
    np.testing.assert_allclose(rstd2, rstd, rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_add_layer_norm(mode):
    x1, x2, gamma, beta = _r(2, 3, 10), _r(2, 3, 10), _r(10), _r(10)
    with _mode(mode):
        y, mean, rstd, xs = _run(lambda a, b, g, be: ops.add_layer_norm(a, b, g, be, 1e-5), x1, x2, gamma, beta)
    tx = torch.from_numpy(x1 + x2)
    want = F.layer_norm(tx, (10,), torch.from_numpy(gamma), torch.from_numpy(beta), 1e-5)
    np.testing.assert_allclose(y, want.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean, tx.mean(-1, keepdim=True).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, torch.rsqrt(tx.var(-1, unbiased=False, keepdim=True) + 1e-5).numpy(), rtol=1e-5)
    np.testing.assert_allclose(xs, x1 + x2, rtol=1e-6)
    g = ms.grad(lambda a: (ops.add_layer_norm(a, ms.Tensor(x2), ms.Tensor(gamma), ms.Tensor(beta))[0]).sum())(
        ms.Tensor(x1))
    ta = torch.from_numpy(x1).requires_grad_()
    F.layer_norm(ta + torch.from_numpy(x2), (10,), torch.from_numpy(gamma), torch.from_numpy(beta)).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), ta.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("layout", ["BSH", "BNSD_BSND"])
def test_fused_infer_attention_score_prompt_with_lse(layout, mode):
    b, n1, n2, s1, s2, d = 2, 4, 2, 5, 6, 8
    q, k, v = _qkv("BSH" if layout == "BSH" else "BNSD", b, n1, n2, s1, s2, d)
    with _mode(mode):
        out, lse = _run(lambda x, y, z: ops.fused_infer_attention_score(
            x, y, z, num_heads=n1, num_key_value_heads=n2, scale=0.4, sparse_mode=3, input_layout=layout,
            softmax_lse_flag=True), q, k, v)
    keep = _causal(s1, s2, True)
    src = "BSH" if layout == "BSH" else "BNSD"
    want = _sdpa(q, k, v, src, n1, n2, keep, 0.4)
    want = want if layout == "BSH" else want.transpose(0, 2, 1, 3)  # BNSD in, BSND out
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    tk = _to_bnsd(k, src, n2).repeat_interleave(n1 // n2, 1)
    scores = 0.4 * _to_bnsd(q, src, n1) @ tk.transpose(-1, -2)
    scores = scores.masked_fill(~torch.from_numpy(keep), float("-inf"))
    np.testing.assert_allclose(lse, torch.logsumexp(scores, -1, keepdim=True).numpy(), rtol=1e-5, atol=1e-5)


def test_fused_infer_attention_score_decoding_step():
    """Query length 1: the (B, S) mask and the kv lengths apply; the sparse mode does not."""
    b, n, s, d = 2, 2, 6, 4
    q, k, v = _r(b, 1, n * d), _r(b, s, n * d), _r(b, s, n * d)
    mask = np.zeros((b, s), bool)
    mask[1, 0] = True
    out, lse = ops.fused_infer_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), atten_mask=ms.Tensor(mask),
                                               actual_seq_lengths_kv=[6, 3], num_heads=n, sparse_mode=3)
    keep = (~mask & (np.arange(s) < np.array([6, 3])[:, None])).reshape(b, 1, 1, s)
    np.testing.assert_allclose(out.asnumpy(), _sdpa(q, k, v, "BSH", n, n, keep, 1.0), rtol=1e-5, atol=1e-5)
    assert lse.shape == (1,) and not lse.asnumpy().any()
    with pytest.raises(NotImplementedError, match="antiquant_scale"):
        ops.fused_infer_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), antiquant_scale=ms.Tensor(q))


@pytest.mark.parametrize("pse_type", [0, 1])
def test_speed_fusion_attention_pse_types(pse_type):
    b, n, s, d = 1, 2, 4, 8
    q, k, v = _qkv("BSND", b, n, n, s, s, d)
    pse = _r(b, n, s, s)
    out, mx, total, _, seed, offset, numels = ops.speed_fusion_attention(
        ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), n, "BSND", pse=ms.Tensor(pse), scale=0.5, pse_type=pse_type,
        sparse_mode=2)
    bias = torch.from_numpy(pse) * (0.5 if pse_type == 1 else 1.0)
    keep = torch.from_numpy(_causal(s, s, False))
    tq, tk, tv = (_to_bnsd(a, "BSND", n) for a in (q, k, v))
    want = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=bias.masked_fill(~keep, float("-inf")), scale=0.5)
    np.testing.assert_allclose(out.asnumpy(), _from_bnsd(want, "BSND"), rtol=1e-5, atol=1e-5)
    assert mx.shape == total.shape == (b, n, s, 8)
    assert int(seed.asnumpy()) == int(offset.asnumpy()) == int(numels.asnumpy()) == 0
    with pytest.raises(NotImplementedError, match="pse_type 2"):
        ops.speed_fusion_attention(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), n, "BSND", pse_type=2)


def _torch_permute(tokens: torch.Tensor, idx: np.ndarray, keep: int):
    """Megatron's definition: a stable sort of the flattened expert ids; each copy's row in the output."""
    flat = torch.from_numpy(idx.reshape(-1).astype(np.int64))
    order = torch.argsort(flat, stable=True)
    topk = 1 if idx.ndim == 1 else idx.shape[1]
    return tokens.index_select(0, order // topk)[:keep], torch.argsort(order).to(torch.int32)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_moe_token_permute_and_unpermute(mode):
    n, topk, hidden, experts = 6, 2, 4, 3
    tokens = _r(n, hidden)
    idx = np.stack([RNG.permutation(experts)[:topk] for _ in range(n)]).astype(np.int32)
    probs = RNG.random((n, topk)).astype(np.float32)
    with _mode(mode):
        permuted, sorted_idx = _run(lambda t, i: ops.moe_token_permute(t, i, 10), tokens, idx)
        back = _run(lambda p, s, w: ops.moe_token_unpermute(p, s, w), permuted, sorted_idx, probs)
    want_p, want_s = _torch_permute(torch.from_numpy(tokens), idx, 10)
    np.testing.assert_array_equal(permuted, want_p.numpy())
    np.testing.assert_array_equal(sorted_idx, want_s.numpy())
    assert sorted_idx.dtype == np.int32
    # the two copies past row 10 were dropped: they add nothing back
    kept = (want_s.numpy() < 10).reshape(n, topk)
    np.testing.assert_allclose(back, (tokens[:, None] * (probs * kept)[..., None]).sum(1), rtol=1e-6, atol=1e-6)
    order = ms.Tensor(want_s.numpy())
    g = ms.grad(lambda t: ops.moe_token_unpermute(ops.moe_token_permute(t, ms.Tensor(idx))[0], order,
                                                  ms.Tensor(probs)).sum())(ms.Tensor(tokens))
    np.testing.assert_allclose(g.asnumpy(), np.broadcast_to(probs.sum(1, keepdims=True), tokens.shape), rtol=1e-6)


def test_moe_token_permute_documented_example():
    """The example of MindSpore's documentation: one expert per token."""
    tokens = np.array([[1] * 3, [7] * 3, [2] * 3, [1] * 3, [2] * 3, [3] * 3], np.float32)
    permuted, sorted_idx = ops.moe_token_permute(ms.Tensor(tokens), ms.Tensor(np.array([5, 0, 3, 1, 2, 4], np.int32)))
    np.testing.assert_array_equal(permuted.asnumpy()[:, 0], [7, 1, 2, 2, 3, 1])
    np.testing.assert_array_equal(sorted_idx.asnumpy(), [5, 0, 3, 1, 2, 4])
    with pytest.raises(ValueError, match="padded_mode"):
        ops.moe_token_permute(ms.Tensor(tokens), ms.Tensor(np.zeros(6, np.int32)), padded_mode=True)


def _routing_reference(x: np.ndarray, idx: np.ndarray, cap: int, experts: int):
    """moe_init_routing_v2's drop/pad definition by loops: each expert's first ``cap`` copies in (row, k) order."""
    n, k = idx.shape
    out = np.zeros((experts, cap, x.shape[1]), x.dtype)
    row_idx = np.full(n * k, -1, np.int32)
    fill = np.zeros(experts, int)
    for e in range(experts):
        for i in np.flatnonzero(idx.reshape(-1) == e):
            if fill[e] < cap:
                out[e, fill[e]] = x[i // k]
                row_idx[i] = e * cap + fill[e]
            fill[e] += 1
    return out, row_idx, np.bincount(idx.reshape(-1), minlength=experts).astype(np.int32)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_moe_init_routing_v2(mode):
    x, idx = _r(7, 4), RNG.integers(0, 3, (7, 2)).astype(np.int32)
    with _mode(mode):
        dropped = _run(lambda a, i: ops.moe_init_routing_v2(a, i, 0, 3, 3, 1, 0, True), x, idx)
        dropless = _run(lambda a, i: ops.moe_init_routing_v2(a, i, 5, 0, 3, 0, 1, False), x, idx)
    for got, want in zip(dropped, _routing_reference(x, idx, 3, 3)):
        np.testing.assert_array_equal(got, want)
    want_p, want_s = _torch_permute(torch.from_numpy(x), idx, 5)  # dropless routing is moe_token_permute's
    np.testing.assert_array_equal(dropless[0], want_p.numpy())
    np.testing.assert_array_equal(dropless[1], want_s.numpy())
    np.testing.assert_array_equal(dropless[2], np.cumsum(np.bincount(idx.reshape(-1), minlength=3)))
    g = ms.grad(lambda a: ops.moe_init_routing_v2(a, ms.Tensor(idx), 0, 3, 3, 1, 0, False)[0].sum())(ms.Tensor(x))
    kept = (_routing_reference(x, idx, 3, 3)[1] >= 0).reshape(7, 2).sum(1, keepdims=True)
    np.testing.assert_array_equal(g.asnumpy(), np.broadcast_to(kept, x.shape).astype(np.float32))


def test_moe_init_routing_v2_documented_example():
    """The drop/pad example of MindSpore's documentation (capacity 2, three experts)."""
    x = np.array([[0.1, 0.2, 0.3], [0.2, 0.7, 0.8], [0.3, 0.3, 0.5]], np.float32)
    idx = np.array([[0, 1, 1], [2, 1, 1], [0, 0, 0]], np.int32)
    out, row_idx = ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 3, 2, 3, 1, 0, False)
    np.testing.assert_array_equal(out.asnumpy(), [[x[0], x[2]], [x[0], x[0]], [x[1], np.zeros(3, np.float32)]])
    np.testing.assert_array_equal(row_idx.asnumpy(), [0, 2, 3, 4, -1, -1, 1, -1, -1])
    with pytest.raises(ValueError, match="expert_capacity"):
        ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 3, 0, 3, 1, 0, False)


_LLAMA_BLOCK = '''
import json, sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops
from mindspore.ops.operations.nn_ops import FlashAttentionScore

ms.set_context(mode=ms.GRAPH_MODE)


class Attention(nn.Cell):
    """A MindFormers-style block: RmsNorm, rotary embedding, causal GQA flash attention, add_rms_norm."""

    def __init__(self, heads, kv_heads, dim):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, dim
        self.norm = ops.RmsNorm(1e-6)
        self.fa = FlashAttentionScore(heads, scale_value=dim ** -0.5, next_tokens=0, input_layout="BNSD",
                                      sparse_mode=2)

    def construct(self, x, wq, wk, wv, cos, sin, gamma):
        b, s, _ = x.shape
        h, _ = self.norm(x, gamma)
        q = ops.reshape(ops.matmul(h, wq), (b, s, self.heads, self.dim)).transpose(0, 2, 1, 3)
        k = ops.reshape(ops.matmul(h, wk), (b, s, self.kv_heads, self.dim)).transpose(0, 2, 1, 3)
        v = ops.reshape(ops.matmul(h, wv), (b, s, self.kv_heads, self.dim)).transpose(0, 2, 1, 3)
        q = ops.rotary_position_embedding(q, cos, sin, 0)
        k = ops.rotary_position_embedding(k, cos, sin, 0)
        out = self.fa(q, k, v)[3].transpose(0, 2, 1, 3).reshape(b, s, self.heads * self.dim)
        y, _, _ = ops.add_rms_norm(x, out, gamma)
        return y


arrays = np.load(sys.argv[1])
net = Attention(4, 2, 8)
y = net(*(ms.Tensor(arrays[n]) for n in ("x", "wq", "wk", "wv", "cos", "sin", "gamma")))
print(json.dumps(y.asnumpy().tolist()))
'''


def test_mindformers_style_block_runs_unmodified(tmp_path):
    """MindSpore source (``import mindspore``, ``ops.operations.nn_ops.FlashAttentionScore``) run under the
    ``opbuild run --as-mindspore`` import hook in GRAPH_MODE, against the same block in torch."""
    b, s, heads, kv_heads, dim = 2, 6, 4, 2, 8
    hidden = heads * dim
    arrays = {"x": _r(b, s, hidden), "wq": _r(hidden, hidden) / 4, "wk": _r(hidden, kv_heads * dim) / 4,
              "wv": _r(hidden, kv_heads * dim) / 4, "gamma": _r(hidden)}
    ang = np.arange(s, dtype=np.float32)[:, None] * (0.5 ** np.arange(dim // 2, dtype=np.float32))[None]
    ang = np.concatenate([ang, ang], -1)[None, None]
    arrays["cos"], arrays["sin"] = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    np.savez(tmp_path / "in.npz", **arrays)
    (tmp_path / "block.py").write_text(_LLAMA_BLOCK)
    out = subprocess.run([sys.executable, "-m", "opbuild", "run", "--as-mindspore", str(tmp_path / "block.py"),
                          str(tmp_path / "in.npz")], capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    got = np.array(__import__("json").loads(out.stdout.strip().splitlines()[-1]), np.float32)

    t = {n: torch.from_numpy(a) for n, a in arrays.items()}

    def rms(v):
        return v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6) * t["gamma"]

    h = rms(t["x"])
    q = (h @ t["wq"]).view(b, s, heads, dim).transpose(1, 2)
    k = (h @ t["wk"]).view(b, s, kv_heads, dim).transpose(1, 2)
    v = (h @ t["wv"]).view(b, s, kv_heads, dim).transpose(1, 2)
    q, k = (_torch_rope(a, t["cos"], t["sin"], 0) for a in (q, k))
    att = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True).transpose(1, 2).reshape(b, s, -1)
    np.testing.assert_allclose(got, rms(t["x"] + att).numpy(), rtol=1e-4, atol=1e-4)
