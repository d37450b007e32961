"""Constant folding keeps 0-d constants 0-d: ``broadcast_to`` of a folded scalar to ``()`` (which
mindspore.numpy's linspace/geomspace over tensor bounds build) evaluates in GRAPH_MODE as in PyNative."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild import nn, ops
from opbuild.passes.fold import evaluate


def test_evaluate_passes_0d_constants_as_0d():
    (out,) = evaluate("BroadcastTo", {"shape": []}, [np.asarray(np.float32(2.0))])
    assert out.shape == () and out == np.float32(2.0)


def test_broadcast_of_a_folded_scalar_in_graph_mode(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return ops.broadcast_to(ops.log(ms.Tensor(np.float32(2.0))), ()) + x

    got = Net()(ms.Tensor(np.zeros(3, np.float32))).asnumpy()
    np.testing.assert_allclose(got, np.full(3, np.log(2.0), np.float32), rtol=1e-6)
