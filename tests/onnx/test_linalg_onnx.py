"""ONNX ``Det`` imports as the MatrixDeterminant primitive, which exports back to ``Det``; both match
onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import opbuild as ms
import opbuild.onnx
from opbuild import Tensor, nn, ops


def test_det_matches_onnxruntime():
    node = helper.make_node("Det", ["x"], ["y"])
    graph = helper.make_graph([node], "det", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    x = np.random.default_rng(3).standard_normal((2, 3, 3)).astype(np.float32)
    want = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = opbuild.onnx.load(proto).run([x])[0]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


class _DetNet(nn.Cell):
    def construct(self, x):
        return ops.det(x) * 2.0


def test_det_exports_to_onnx_det(tmp_path, graph_mode):
    x = Tensor(np.random.default_rng(4).standard_normal((3, 4, 4)).astype(np.float32))
    net = _DetNet()
    want = net(x).asnumpy()
    path = ms.export(net, x, file_name=str(tmp_path / "det"), file_format="ONNX")
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    assert "Det" in [n.op_type for n in model.graph.node]
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x.asnumpy()})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
