"""The cyclic garbage collector is held off while a GRAPH_MODE call traces and compiles a new graph (its
collections walk the whole growing graph again and again; core/gc_pause.py), and restored afterwards, also
when the trace raises, and left off where the caller had turned it off."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops


class _Recorder(nn.Cell):
    def __init__(self, fail: bool = False):
        super().__init__()
        self.seen: list[bool] = []
        self.fail = fail

    def construct(self, x):
        self.seen.append(gc.isenabled())  # runs while the graph is traced
        if self.fail:
            raise ValueError("construct failed")
        return ops.mul(x, 2.0)


@pytest.fixture
def graph_mode():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=old)


def test_collector_is_paused_during_the_trace_and_restored(graph_mode):
    assert gc.isenabled()
    net = _Recorder()
    out = net(Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.full(3, 2.0, np.float32))
    assert net.seen == [False]
    assert gc.isenabled()


def test_collector_is_restored_when_the_trace_raises(graph_mode):
    with pytest.raises(ValueError, match="construct failed"):
        _Recorder(fail=True)(Tensor(np.ones(3, np.float32)))
    assert gc.isenabled()


def test_collector_left_off_when_the_caller_turned_it_off(graph_mode):
    gc.disable()
    try:
        _Recorder()(Tensor(np.ones(3, np.float32)))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_compile_only_pauses_the_collector_too(graph_mode):
    net = _Recorder()
    net.compile(Tensor(np.ones(3, np.float32)))
    assert net.seen == [False]
    assert gc.isenabled()
