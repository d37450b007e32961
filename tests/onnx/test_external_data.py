"""ONNX external data pointing outside its file (issue 23, point 6): a huge or negative length or offset, or a
length that is not a number, is an OnnxModelError naming the model, not onnx's raw ValueError."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import opbuild.onnx
from opbuild.core.errors import OnnxModelError


def _model_with_external_weight(tmp_path, key: str, value: str):
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "W")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], [w])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    good = tmp_path / "good.onnx"
    onnx.save(proto, str(good), save_as_external_data=True, all_tensors_to_one_file=True, location="w.bin",
              size_threshold=0)
    proto = onnx.load(str(good), load_external_data=False)
    for entry in proto.graph.initializer[0].external_data:
        if entry.key == key:
            entry.value = value
    bad = tmp_path / "bad.onnx"
    onnx.save(proto, str(bad))
    return good, bad


@pytest.mark.parametrize("key, value, message", [
    ("length", "99999999999999999999", "exceeds available data"),
    ("offset", "99999999999999999999", "exceeds file size"),
    ("length", "4000000000", "exceeds available data"),
    ("offset", "-5", "non-negative"),
    ("length", "abc", "invalid literal"),
])
def test_external_data_outside_its_file_is_an_onnx_model_error(tmp_path, key, value, message) -> None:
    good, bad = _model_with_external_weight(tmp_path, key, value)
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(opbuild.onnx.load(good).run([x])[0], x @ np.ones((4, 4), np.float32))
    with pytest.raises(OnnxModelError) as info:
        opbuild.onnx.load(bad)
    text = str(info.value)
    assert "bad.onnx" in text and "external data cannot be read" in text and message in text
    assert "\n" not in text
