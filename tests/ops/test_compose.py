"""Compositions written once (ops/compose): the tanh form of GeLU is one function whichever API builds it
(functional, nn layer, ONNX importer), and the Softmax/LogSoftmax/LayerNorm decompositions the reduction
fusion uses compute what the primitives with hand-written kernels compute."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.onnx
import opbuild.ops as ops
from opbuild import nn
from opbuild.ops import compose
from opbuild.passes.reduce_fusion import _RecipeBuilder

_SRC = Path(ms.__file__).parent


def _gelu_tanh_numpy(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def test_the_gelu_tanh_coefficient_is_written_once():
    """The cubic coefficient appears as a number in exactly one module of the package: the composition."""
    holders = sorted(str(p.relative_to(_SRC)) for p in _SRC.rglob("*.py")
                     if any(isinstance(n, ast.Constant) and n.value == 0.044715 for n in ast.walk(ast.parse(
                         p.read_text()))))
    assert holders == ["ops/compose/activations.py"]


def test_gelu_tanh_is_the_same_from_the_functional_api_and_the_layer(pynative_mode):
    """Op by op (PyNative: no fusion pass in between) every API gives the composition's bits."""
    x = np.linspace(-6, 6, 97, dtype=np.float32)
    functional = ops.gelu(ms.Tensor(x), approximate="tanh").asnumpy()
    layer = nn.GELU(approximate=True)(ms.Tensor(x)).asnumpy()
    composed = compose.gelu_tanh(compose.TENSORS, ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(functional, composed)
    np.testing.assert_array_equal(layer, composed)
    np.testing.assert_allclose(composed, _gelu_tanh_numpy(x.astype(np.float64)), rtol=2e-6, atol=2e-6)


def test_gelu_tanh_from_the_onnx_importer_is_the_composition(monkeypatch):
    """The importer builds Gelu(approximate='tanh') by calling the composition (with its graph builder)."""
    from onnx import TensorProto, helper

    from opbuild.frontends.onnx_ops import elementwise as onnx_elementwise

    calls = []
    real = onnx_elementwise.gelu_tanh
    monkeypatch.setattr(onnx_elementwise, "gelu_tanh", lambda b, x: calls.append(b) or real(b, x))
    node = helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 5])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32) * 3
    (got,) = opbuild.onnx.load(model).run([x])
    assert calls == [onnx_elementwise.GRAPH]
    np.testing.assert_allclose(got, _gelu_tanh_numpy(x.astype(np.float64)), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("shape, axes", [((3, 7), [1]), ((2, 3, 8), [2]), ((2, 3, 8), [1, 2])])
def test_softmax_decompositions_agree_with_the_primitives(shape, axes):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32) * 4
    if axes == [len(shape) - 1]:
        np.testing.assert_allclose(compose.softmax(compose.TENSORS, ms.Tensor(x), axes).asnumpy(),
                                   ops.Softmax(axis=-1)(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(compose.log_softmax(compose.TENSORS, ms.Tensor(x), axes).asnumpy(),
                                   ops.LogSoftmax(axis=-1)(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    e = np.exp(x - x.max(axis=tuple(axes), keepdims=True))
    np.testing.assert_allclose(compose.softmax(compose.TENSORS, ms.Tensor(x), axes).asnumpy(),
                               e / e.sum(axis=tuple(axes), keepdims=True), rtol=1e-5, atol=1e-7)


def test_layer_norm_decomposition_agrees_with_the_primitive():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 8)).astype(np.float32)
    g, b = rng.standard_normal((6, 8)).astype(np.float32), rng.standard_normal((6, 8)).astype(np.float32)
    y, _, _ = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)(
        ms.Tensor(x), ms.Tensor(g), ms.Tensor(b))
    got = compose.layer_norm(compose.TENSORS, ms.Tensor(x), ms.Tensor(g), ms.Tensor(b), [1, 2], 1e-5)
    np.testing.assert_allclose(got.asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-5)


def test_the_fusion_recipe_is_built_by_the_same_composition():
    """The recipe builder of the reduction fusion records the composition's applications in order."""
    members: list[tuple[str, dict, list]] = []

    def add(op: str, attrs: dict, args: list) -> str:
        members.append((op, attrs, args))
        return f"t{len(members) - 1}"

    out = compose.layer_norm(_RecipeBuilder(add), "i0", "i1", "i2", range(1, 3), 1e-5)
    assert out == "t8"
    assert [m[0] for m in members] == ["ReduceMean", "Sub", "Square", "ReduceMean", "Add", "Rsqrt", "Mul", "Mul",
                                       "Add"]
    assert members[4][2] == ["t3", 1e-5] and members[0][1] == {"axis": [1, 2], "keep_dims": True}
