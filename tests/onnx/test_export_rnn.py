"""ms.export of networks with nn.LSTM, nn.GRU and nn.RNN (issue 23, point 11): the recurrence, unrolled at trace
time, exports as ONNX primitives (the dead parts of the unrolled graph, such as a final cell state nobody
returns, are left out instead of becoming nodes with empty output names, which onnx.checker rejects);
onnxruntime's outputs match the network's, hidden and cell states included."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import opbuild as ms
from opbuild import nn

ort = pytest.importorskip("onnxruntime")


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


def _layer(kind: str, **kw):
    ms.set_seed(3)
    return getattr(nn, kind)(4, 3, **kw)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True, "batch_first": True}],
                         ids=["plain", "2-layer-bidirectional-batch-first"])
@pytest.mark.parametrize("wrap", [OutOnly, WithStates])
def test_recurrent_networks_export_and_match_onnxruntime(tmp_path, kind, kw, wrap) -> None:
    net = wrap(_layer(kind, **kw))
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    want = net(x)
    want = [w.asnumpy() for w in (want if isinstance(want, tuple) else (want,))]
    path = ms.export(net, x, file_name=str(tmp_path / "rnn"), file_format="ONNX")
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    assert all(o for node in model.graph.node for o in node.output)  # no empty output names
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.asnumpy()})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
