"""ms.export of networks with nn.LSTM, nn.GRU and nn.RNN (issue 23, point 11): each call of a recurrent layer
is written as ONNX LSTM/GRU/RNN nodes (one per layer, both directions in one node), not as its unrolled steps,
and onnxruntime's outputs match the network's, hidden and cell states included; initial states given as inputs
are sliced per layer. A call with ``seq_length`` stays unrolled, and still exports correctly."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import opbuild as ms
from opbuild import nn

ort = pytest.importorskip("onnxruntime")

KINDS = {"LSTM": "LSTM", "GRU": "GRU", "RNN": "RNN"}


class OutOnly(nn.Cell):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def construct(self, x):
        out, _ = self.rnn(x)
        return out


class WithStates(nn.Cell):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def construct(self, x):
        out, state = self.rnn(x)
        return (out, *state) if isinstance(state, tuple) else (out, state)


class GivenStates(nn.Cell):
    """Initial states as network inputs, and the output used further (a Dense head on the last step)."""

    def __init__(self, rnn, hidden):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Dense(hidden, 2)

    def construct(self, x, h0, c0):
        hx = (h0, c0) if isinstance(self.rnn, nn.LSTM) else h0
        out, _ = self.rnn(x, hx)
        return self.head(out[:, -1, :])


class WithLengths(nn.Cell):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def construct(self, x, lengths):
        out, _ = self.rnn(x, None, lengths)
        return out


def _layer(kind: str, **kw):
    ms.set_seed(3)
    return getattr(nn, kind)(4, 3, **kw)


def _export_and_run(net, args, tmp_path):
    want = net(*args)
    want = [w.asnumpy() for w in (want if isinstance(want, tuple) else (want,))]
    path = ms.export(net, *args, file_name=str(tmp_path / "rnn"), file_format="ONNX")
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = {i.name: a.asnumpy() for i, a in zip(sess.get_inputs(), args)}
    got = sess.run(None, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    return [n.op_type for n in model.graph.node]


def _x(batch_first: bool = True) -> ms.Tensor:
    shape = (2, 5, 4) if batch_first else (5, 2, 4)
    return ms.Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True, "batch_first": True},
                                {"has_bias": False, "batch_first": True}],
                         ids=["plain", "2-layer-bidirectional-batch-first", "no-bias"])
@pytest.mark.parametrize("wrap", [OutOnly, WithStates])
def test_recurrent_layers_export_as_onnx_recurrent_nodes(tmp_path, kind, kw, wrap) -> None:
    ops = _export_and_run(wrap(_layer(kind, **kw)), [_x(kw.get("batch_first", False))], tmp_path)
    assert ops.count(KINDS[kind]) == kw.get("num_layers", 1), ops
    assert "MatMul" not in ops and "Sigmoid" not in ops, ops  # nothing left of the unrolled steps


def test_a_relu_rnn_exports_its_activation(tmp_path) -> None:
    ms.set_seed(3)
    ops = _export_and_run(OutOnly(nn.RNN(4, 3, nonlinearity="relu", batch_first=True)), [_x()], tmp_path)
    assert ops.count("RNN") == 1


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_initial_states_given_as_inputs(tmp_path, kind) -> None:
    rnn = _layer(kind, num_layers=2, bidirectional=True, batch_first=True)
    rng = np.random.default_rng(1)
    h0, c0 = (ms.Tensor(rng.standard_normal((4, 2, 3)).astype(np.float32)) for _ in range(2))
    ops = _export_and_run(GivenStates(rnn, 6), [_x(), h0, c0], tmp_path)
    assert ops.count(KINDS[kind]) == 2 and "Slice" in ops


def test_seq_length_stays_unrolled_and_matches(tmp_path) -> None:
    lengths = ms.Tensor(np.array([5, 3], np.int32))
    ops = _export_and_run(WithLengths(_layer("LSTM", batch_first=True)), [_x(), lengths], tmp_path)
    assert "LSTM" not in ops and "MatMul" in ops
