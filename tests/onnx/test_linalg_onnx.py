"""ONNX ``Det`` imports as the MatrixDeterminant primitive and matches onnxruntime."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

import opbuild.onnx


def test_det_matches_onnxruntime():
    node = helper.make_node("Det", ["x"], ["y"])
    graph = helper.make_graph([node], "det", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    x = np.random.default_rng(3).standard_normal((2, 3, 3)).astype(np.float32)
    want = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = opbuild.onnx.load(proto).run([x])[0]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
