"""ONNX export of the newer op families (frontends/onnx_export_more.py): a network using them exports, passes
the ONNX checker, and onnxruntime and opbuild's own importer reproduce its outputs; ops ONNX lacks at opset 17
are refused with their reason."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import opbuild as ms
import opbuild.onnx
from opbuild import nn, ops
from opbuild.frontends.onnx_export import UnsupportedExportError

ort = pytest.importorskip("onnxruntime")

IDX = ms.Tensor(np.array([[0], [2]], np.int32))
EL_IDX = ms.Tensor(np.array([[1, 0, 3], [2, 2, 0]], np.int64))


class _Net(nn.Cell):
    def construct(self, x):
        a = ops.cumsum(ops.sign(x) * ops.tan(x * 0.3) + ops.atan(x), 1)
        v, i = ops.topk(ops.expm1(x * 0.1) + ops.log1p(ops.abs(x)), 2, dim=1)
        b = ops.tensor_scatter_add(x, IDX, ops.sinh(x[:2]))
        c = ops.tensor_scatter_elements(x, EL_IDX, ops.cosh(x[:2, :3]), axis=1, reduction="add")
        g = ops.grid_sample(ops.reshape(x, (1, 1, 3, 4)), ops.tanh(ops.reshape(x[:, :2], (1, 3, 1, 2))),
                            "bilinear", "border", True)
        return a, v, ops.cast(i, ms.float32), b, c, ops.reshape(g, (3,))


def test_new_families_export_and_round_trip(tmp_path, graph_mode) -> None:
    x = ms.Tensor(np.random.default_rng(0).uniform(-1.5, 1.5, (3, 4)).astype(np.float32))
    net = _Net()
    want = [t.asnumpy() for t in net(x)]
    path = ms.export(net, x, file_name=str(tmp_path / "net"), file_format="ONNX")
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    ops_used = {n.op_type for n in model.graph.node}
    assert {"CumSum", "TopK", "ScatterND", "ScatterElements", "GridSample", "Sign", "Tan", "Atan"} <= ops_used
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.asnumpy()})
    back = opbuild.onnx.load(str(path))(x)
    for w, o, b in zip(want, got, back, strict=True):
        np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.asnumpy(), w, rtol=1e-5, atol=1e-6)


class _Unsupported(nn.Cell):
    def construct(self, x):
        return ops.cumprod(x, 0) + ops.tensor_scatter_max(x, IDX, x[:2])


def test_ops_onnx_lacks_at_opset_17_are_refused(tmp_path, graph_mode) -> None:
    with pytest.raises(UnsupportedExportError) as info:
        ms.export(_Unsupported(), np.ones((3, 4), np.float32), file_name=str(tmp_path / "u"), file_format="ONNX")
    text = str(info.value)
    assert "CumProd" in text and "TensorScatterMax has no ONNX ScatterND reduction at opset 17" in text
