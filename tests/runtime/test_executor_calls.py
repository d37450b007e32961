"""The executor's per-call work (runtime/executor.py): captured parameters are re-pointed only when their
array changed (a replaced array is still picked up at the next call, an in-place write is read as is)."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild import nn
from opbuild.runtime.executor import CompiledGraph


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(np.array([1.0, 2.0, 3.0], np.float32), name="w")
        self.b = ms.Parameter(np.array([0.5, 0.5, 0.5], np.float32), name="b")

    def construct(self, x):
        return x * self.w + self.b


def test_unchanged_captures_are_not_patched_again_and_replaced_ones_are(monkeypatch):
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        patched: list[int] = []
        patch = CompiledGraph._patch
        monkeypatch.setattr(CompiledGraph, "_patch",
                            staticmethod(lambda slots, address: (patched.append(address), patch(slots, address))))
        net = Affine()
        x = ms.Tensor(np.array([1.0, 1.0, 1.0], np.float32))
        np.testing.assert_allclose(net(x).asnumpy(), [1.5, 2.5, 3.5])
        first = len(patched)
        assert first >= 3  # the input and both parameters
        patched.clear()
        np.testing.assert_allclose(net(x).asnumpy(), [1.5, 2.5, 3.5])
        assert len(patched) == first - 2  # only the input: both parameters kept their arrays
        net.w.asnumpy()[:] = [2.0, 2.0, 2.0]  # an in-place write: same array, same address
        np.testing.assert_allclose(net(x).asnumpy(), [2.5, 2.5, 2.5])
        patched.clear()
        net.b.set_data(np.array([1.0, 0.0, -1.0], np.float32))  # a new array: re-pointed at the next call
        np.testing.assert_allclose(net(x).asnumpy(), [3.0, 2.0, 1.0])
        assert net.b.asnumpy().ctypes.data in patched
    finally:
        ms.set_context(mode=mode)
