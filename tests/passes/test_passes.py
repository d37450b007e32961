"""Graph passes (src/opbuild/passes): constant folding, dead-code elimination, the pipeline's identity, and
what they change in a real build (kernels built, outputs)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.tensor import Tensor
from opbuild.passes import DEFAULT_PIPELINE, ConstantFolding, DeadCodeElimination, GraphPass, Pipeline, evaluate


def _trace(fn, *args):
    graph, _ = trace.trace(fn, [Tensor(a) for a in args])
    return graph


def test_fold_replaces_constant_subgraphs_and_keeps_parameter_nodes():
    """Nodes over plain constant Tensors are evaluated (their result becomes a capture); nodes over a
    Parameter are not, since set_data may change it between calls."""
    const = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    weight = ms.Parameter(np.array([1.0, 1.0, 1.0], np.float32), name="w")
    square, add, mul = ops.Square(), ops.Add(), ops.Mul()

    def fn(x):
        c = add(square(const), const)          # foldable: constants only
        return mul(add(x, c), square(weight))  # not foldable: depends on x and on a Parameter

    graph = ConstantFolding().run(_trace(fn, np.ones(3, np.float32)))
    assert [n.op for n in graph.nodes] == ["Add", "Square", "Mul"]
    folded = [t.asnumpy() for v, t in graph.captures if v.name.startswith("folded:")]
    np.testing.assert_array_equal(folded[-1], np.array([2.0, 6.0, 12.0], np.float32))


def test_fold_leaves_large_results_to_their_kernel():
    big = Tensor(np.ones(1000, np.float32))
    graph = ConstantFolding(max_elements=100).run(_trace(lambda x: ops.Add()(x, ops.Square()(big)),
                                                         np.ones(1000, np.float32)))
    assert [n.op for n in graph.nodes] == ["Square", "Add"]


def test_dce_drops_unused_nodes_and_captures():
    unused_const = Tensor(np.ones(3, np.float32))
    relu, exp = ops.ReLU(), ops.Exp()

    def fn(x):
        exp(ops.Add()(x, unused_const))  # computed and thrown away
        return relu(x)

    graph = _trace(fn, np.ones(3, np.float32))
    assert [n.op for n in graph.nodes] == ["Add", "Exp", "ReLU"]
    graph = DeadCodeElimination().run(graph)
    assert [n.op for n in graph.nodes] == ["ReLU"]
    assert graph.captures == []
    assert len(graph.inputs) == 1  # the call signature is kept


def test_pipeline_identity_names_every_pass_and_version(monkeypatch):
    monkeypatch.delenv("OPBUILD_FUSION", raising=False)
    assert DEFAULT_PIPELINE.identity == "fold@1:65536,pad_fold@1,dce@1,rowfuse@1:64,fuse@2:64,epilogue@1:64,memplan@2"
    monkeypatch.setenv("OPBUILD_FUSION", "0")
    assert DEFAULT_PIPELINE.identity == ("fold@1:65536,pad_fold@1,dce@1,rowfuse@1:off,fuse@2:off,epilogue@1:off,"
                                         "memplan@2")

    class Renamed(DeadCodeElimination):
        version = 2

    assert Pipeline([Renamed()]).identity == "dce@2"
    with pytest.raises(ValueError, match="each pass once"):
        Pipeline([DeadCodeElimination(), DeadCodeElimination()])
    with pytest.raises(TypeError):
        GraphPass()  # abstract


def test_evaluate_gives_the_kernel_types():
    (out,) = evaluate("Cast", {"dtype": "int32"}, [np.array([1.7, -2.2], np.float64)])
    assert out.dtype == np.int32 and out.tolist() == [1, -2]


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = Tensor(np.array([2.0, 3.0], np.float32))
        self.sq, self.mul, self.exp = ops.Square(), ops.Mul(), ops.Exp()

    def construct(self, x):
        self.exp(x)  # dead
        return self.mul(x, self.sq(self.scale))  # Square of a constant: folded


def test_compiled_graph_builds_only_what_the_passes_leave(tmp_path, monkeypatch):
    """Through the real build: the folded Square and the dead Exp get no kernel; the result is right."""
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    ms.set_context(mode=ms.GRAPH_MODE)
    x = np.array([1.0, -1.0], np.float32)
    out = _Net()(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, x * np.array([4.0, 9.0], np.float32))
    report = ms.build_report()
    assert [k.op for k in report.kernels] == ["Mul"] and report.built == 1
    assert sorted(p.name.split("_")[0] for p in (tmp_path / "rank_0" / "kernel_meta").glob("*.info")) == ["mul"]
