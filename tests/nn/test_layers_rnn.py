"""RNN, GRU and LSTM against a NumPy recurrence written here from the formulas (same weights), in both
modes: multi-layer, bidirectional, batch_first, initial states, seq_length; plus parameter names, errors,
and a second process that builds nothing for an LSTM network."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core.errors import ShapeError
from tests.conftest import run_python

pytestmark = pytest.mark.slow

RNG = np.random.default_rng(3)
TOL = {"rtol": 1e-4, "atol": 1e-5}


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One time step of the textbook formulas, in float64."""
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "GRU":
        (ir, iz, in_), (hr, hz, hn) = np.split(gi, 3, axis=1), np.split(gh, 3, axis=1)
        r, z = _sig(ir + hr), _sig(iz + hz)
        n = np.tanh(in_ + r * hn)
        return (1 - z) * n + z * h, c
    pre = gi + gh
    return (np.tanh(pre) if mode == "tanh" else np.maximum(pre, 0)), c


def reference(mode, net, x, h0=None, c0=None, lengths=None):
    """Output and final states of ``net`` (its own weights) for time-major x (T, B, I)."""
    p = {n: v.asnumpy().astype(np.float64) for n, v in net.parameters_and_names()}
    steps, batch, _ = x.shape
    dirs, hs = net.num_directions, net.hidden_size
    zeros = np.zeros((net.num_layers * dirs, batch, hs))
    h0 = zeros if h0 is None else h0.astype(np.float64)
    c0 = zeros if c0 is None else c0.astype(np.float64)
    lengths = np.full(batch, steps) if lengths is None else lengths
    inp, hn, cn = x.astype(np.float64), [], []
    for k in range(net.num_layers):
        outs = []
        for d, sfx in enumerate(["", "_reverse"][:dirs]):
            w = [p.get(f"{n}_l{k}{sfx}", 0.0) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            h, c = h0[k * dirs + d].copy(), c0[k * dirs + d].copy()
            out = np.zeros((steps, batch, hs))
            for b in range(batch):  # each sequence on its own, over its own length
                hb, cb = h[b:b + 1], c[b:b + 1]
                order = range(lengths[b] - 1, -1, -1) if d == 1 else range(lengths[b])
                for t in order:
                    hb, cb = _step(mode, inp[t, b:b + 1], hb, cb, *w)
                    out[t, b] = hb[0]
                h[b], c[b] = hb[0], cb[0]
            outs.append(out)
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, axis=2)
    return inp, np.stack(hn), np.stack(cn)


CONFIGS = [
    {"num_layers": 1},
    {"num_layers": 2, "bidirectional": True},
    {"num_layers": 2, "batch_first": True, "has_bias": False},
]


def _make(kind, **kw):
    if kind == "LSTM":
        return nn.LSTM(3, 4, **kw), "LSTM"
    if kind == "GRU":
        return nn.GRU(3, 4, **kw), "GRU"
    return nn.RNN(3, 4, nonlinearity=kind, **kw), kind


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "tanh", "relu"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=["1layer", "2layer-bidir", "batch_first-nobias"])
def test_recurrent_matches_numpy(mode, kind, cfg):
    net, ref_mode = _make(kind, **cfg)
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)  # (T, B, I)
    n_states = net.num_layers * net.num_directions
    h0 = RNG.standard_normal((n_states, 2, 4)).astype(np.float32)
    c0 = RNG.standard_normal((n_states, 2, 4)).astype(np.float32)
    feed = np.transpose(x, (1, 0, 2)).copy() if net.batch_first else x
    if kind == "LSTM":
        out, (h_n, c_n) = net(ms.Tensor(feed), (ms.Tensor(h0), ms.Tensor(c0)))
    else:
        out, h_n = net(ms.Tensor(feed), ms.Tensor(h0))
    want, want_h, want_c = reference(ref_mode, net, x, h0, c0)
    if net.batch_first:
        want = np.transpose(want, (1, 0, 2))
    np.testing.assert_allclose(out.asnumpy(), want, **TOL)
    np.testing.assert_allclose(h_n.asnumpy(), want_h, **TOL)
    if kind == "LSTM":
        np.testing.assert_allclose(c_n.asnumpy(), want_c, **TOL)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_seq_length_and_default_states(mode, kind):
    net, ref_mode = _make(kind, num_layers=2, bidirectional=True)
    x = RNG.standard_normal((6, 3, 3)).astype(np.float32)
    lengths = np.array([6, 2, 4], np.int32)
    out, state = net(ms.Tensor(x), None, ms.Tensor(lengths))
    h_n = state[0] if kind == "LSTM" else state
    want, want_h, want_c = reference(ref_mode, net, x, lengths=lengths)
    np.testing.assert_allclose(out.asnumpy(), want, **TOL)
    assert np.all(out.asnumpy()[2:, 1] == 0)  # past the end of sequence 1: zeros
    np.testing.assert_allclose(h_n.asnumpy(), want_h, **TOL)
    if kind == "LSTM":
        np.testing.assert_allclose(state[1].asnumpy(), want_c, **TOL)


def test_parameter_names_shapes_and_init():
    net = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    params = dict(net.parameters_and_names())
    assert list(params)[:8] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                                "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]
    assert params["weight_ih_l0"].shape == (20, 3) and params["weight_ih_l1"].shape == (20, 10)
    assert params["weight_hh_l1_reverse"].shape == (20, 5) and params["bias_hh_l1"].shape == (20,)
    bound = 1 / np.sqrt(5)
    assert all(np.all(np.abs(p.asnumpy()) <= bound) for p in params.values())
    assert [n for n, _ in nn.GRU(2, 3, has_bias=False).parameters_and_names()] == ["weight_ih_l0", "weight_hh_l0"]
    assert nn.GRU(2, 3).weight_ih_l0.shape == (9, 2)


def test_recurrent_errors():
    net = nn.LSTM(3, 4)
    with pytest.raises(ShapeError, match="LSTM: expects input_size 3 on axis 2"):
        net(ms.Tensor(np.zeros((2, 1, 5), np.float32)))
    with pytest.raises(ShapeError, match="LSTM: expects a rank-3 input"):
        net(ms.Tensor(np.zeros((2, 3), np.float32)))
    with pytest.raises(ShapeError, match=r"hx must have shape \(1, 1, 4\)"):
        net(ms.Tensor(np.zeros((2, 1, 3), np.float32)),
            (ms.Tensor(np.zeros((2, 1, 4), np.float32)), ms.Tensor(np.zeros((1, 1, 4), np.float32))))
    with pytest.raises(TypeError, match=r"LSTM: hx must be a tuple \(h_0, c_0\)"):
        net(ms.Tensor(np.zeros((2, 1, 3), np.float32)), ms.Tensor(np.zeros((1, 1, 4), np.float32)))
    with pytest.raises(ValueError, match="RNN: nonlinearity must be 'tanh' or 'relu'"):
        nn.RNN(2, 2, nonlinearity="gelu")
    with pytest.raises(ValueError, match="GRU: dropout must be a float in"):
        nn.GRU(2, 2, dropout=1.5)
    with pytest.raises(ValueError, match="GRU: hidden_size must be a positive int"):
        nn.GRU(2, 0)


_LSTM_SCRIPT = textwrap.dedent("""
    import numpy as np
    import opbuild as ms
    from opbuild import nn

    class SentimentNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True)
            self.decoder = nn.Dense(16, 2)

        def construct(self, x):
            out, (h, c) = self.encoder(x)
            return self.decoder(out[:, -1])

    ms.set_context(mode=ms.GRAPH_MODE)
    y = SentimentNet()(ms.Tensor(np.ones((2, 5, 6), np.float32)))
    r = ms.build_report()
    print("shape", y.shape, "built", r.built, "reused", r.reused)
""")


def test_second_process_builds_nothing_for_an_lstm_network(tmp_path):
    env = {"OPBUILD_CACHE_PATH": str(tmp_path)}
    first = run_python(_LSTM_SCRIPT, env=env).stdout
    assert re.search(r"shape \(2, 2\) built [1-9]\d* reused", first), first
    second = run_python(_LSTM_SCRIPT, env=env).stdout
    assert re.search(r"shape \(2, 2\) built 0 reused [1-9]", second), second
