"""Runs the export table of tests/onnx/export_cases.py: each case's graph is exported (checked by the ONNX
checker), run by onnxruntime on the same inputs, and compared with opbuild's own outputs; the case must reach its
op's converter (a case that constant-folded the op away, or applied another one, would prove nothing)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import opbuild as ms
from opbuild.frontends.onnx_export import CONVERTERS, graph_to_onnx, trace_for_export
from tests.helpers import FnCell
from tests.onnx import export_cases as E

ort = pytest.importorskip("onnxruntime")

pytestmark = pytest.mark.slow

PARAMS = [(op, i) for op, cs in sorted(E.CASES.items()) for i in range(len(cs) if isinstance(cs, tuple) else 1)]


def _outs(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


@pytest.mark.parametrize("op,i", PARAMS, ids=[f"{op}-{i}" for op, i in PARAMS])
def test_export(graph_mode, monkeypatch, op, i):
    cs = E.CASES[op]
    c = cs[i] if isinstance(cs, tuple) else cs
    calls = []
    convert = CONVERTERS[op]

    def counted(*args):
        calls.append(1)
        return convert(*args)

    monkeypatch.setitem(CONVERTERS, op, counted)
    tensors = [ms.Tensor(a) for a in c.inputs]
    net = FnCell(c.fn)
    want = [o.asnumpy() for o in _outs(net(*tensors))] if c.expect is None else list(c.expect(*c.inputs))
    graph, regions = trace_for_export(net, tensors)
    model = graph_to_onnx(graph, name=op, regions=regions)
    assert calls, f"the case for {op} never reached {op}'s converter"
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {x.name: c.inputs[int(x.name[1:])] for x in sess.get_inputs()}
    got = sess.run(None, feeds)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=c.rtol, atol=c.atol, err_msg=f"{op}: output {k}")
