"""ONNX RandomNormal/RandomUniform(+Like) import as the sampling primitives: the distribution asked for, new
values at every run (as onnxruntime draws), the same sequence for the same ``seed`` attribute in two loads,
moments agreeing with onnxruntime's samples."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper
from scipy import stats

import opbuild as ms
import opbuild.onnx

N = 4000


def _model(op: str, **attrs):
    like = op.endswith("Like")
    node = helper.make_node(op, ["x"] if like else [], ["z"], **attrs)
    add = helper.make_node("Add", ["z", "x"], ["y"])
    graph = helper.make_graph([node, add], "r", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [N])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [N])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


CASES = [("RandomNormal", {"shape": [N], "mean": 1.0, "scale": 2.0}, stats.norm(1.0, 2.0)),
         ("RandomNormalLike", {"mean": -1.0, "scale": 0.5}, stats.norm(-1.0, 0.5)),
         ("RandomUniform", {"shape": [N], "low": -2.0, "high": 3.0}, stats.uniform(-2.0, 5.0)),
         ("RandomUniformLike", {}, stats.uniform(0.0, 1.0))]


@pytest.mark.parametrize("op,attrs,dist", CASES)
def test_random_generators(op, attrs, dist, mode):
    ms.set_seed(2)
    proto = _model(op, **attrs)
    net = opbuild.onnx.load(proto)
    x = np.zeros(N, np.float32)
    a, b = (np.asarray(net.run([x])[0]) for _ in range(2))
    assert a.dtype == np.float32 and a.shape == (N,) and not np.array_equal(a, b)
    assert stats.kstest(a, dist.cdf).pvalue > 1e-3
    want = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert abs(a.mean() - want.mean()) < 8 * dist.std() / np.sqrt(N)
    assert abs(a.std() - want.std()) < 0.1 * dist.std()


def test_seed_attribute_repeats_across_loads(mode):
    proto = _model("RandomNormal", shape=[N], seed=3.0)
    x = np.zeros(N, np.float32)
    nets = [opbuild.onnx.load(proto) for _ in range(2)]
    runs = [[np.asarray(net.run([x])[0]) for _ in range(2)] for net in nets]
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert not np.array_equal(runs[0][0], runs[0][1])  # a seeded node still advances at every run
    first = [runs[0][0]]
    other = np.asarray(opbuild.onnx.load(_model("RandomNormal", shape=[N], seed=4.0)).run([x])[0])
    assert not np.array_equal(first[0], other)


def test_multinomial_draws_by_the_softmax_of_its_logits(mode):
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.05, 0.45]], np.float32)
    node = helper.make_node("Multinomial", ["x"], ["y"], sample_size=N, dtype=TensorProto.INT64, seed=5.0)
    graph = helper.make_graph([node], "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [2, N])])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    logits = np.log(probs) + 3.0  # unnormalised log-probabilities
    net = opbuild.onnx.load(proto)
    a, b = (np.asarray(net.run([logits])[0]) for _ in range(2))
    assert a.dtype == np.int64 and a.shape == (2, N) and not np.array_equal(a, b)
    want = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": logits})[0]
    for row in range(2):
        p = probs[row].astype(np.float64)
        assert stats.chisquare(np.bincount(a[row], minlength=3), p / p.sum() * N).pvalue > 1e-3
        np.testing.assert_allclose(np.bincount(a[row], minlength=3) / N, np.bincount(want[row], minlength=3) / N,
                                   atol=0.04)
