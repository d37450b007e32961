"""BatchNorm's moving statistics move as often as in MindSpore 2.10 in a train step: once when a gradient
follows a forward of the same network on the same inputs (GRAPH_MODE: the forward is shared in the graph;
PyNative: after a forward of a network marked with set_grad), once per call otherwise
(tests/compat/bn_update_cases.py, recorded by scripts/record_bn_update_count.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms

from . import bn_update_cases

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "bn_update_count.json")
                     .read_text())


@pytest.fixture
def restore_mode():
    mode = ms.get_context("mode")
    yield
    ms.set_context(mode=mode)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_moving_statistics_match_mindspore(mode: str, restore_mode) -> None:
    got = bn_update_cases.run(ms, mode)
    assert set(got) == set(FIXTURE[mode])
    def numbers(d: dict) -> list[float]:
        return d["mean"] + d["variance"] + ([d["loss"], *d["grads"]] if "loss" in d else [])

    diffs = [f"{case}: MindSpore {want}, opbuild {got[case]}" for case, want in FIXTURE[mode].items()
             if len(numbers(want)) != len(numbers(got[case]))
             or not np.allclose(numbers(want), numbers(got[case]), rtol=1e-5, atol=1e-5)]
    assert not diffs, "\n".join(diffs)


def test_the_fixture_tells_the_cases_apart() -> None:
    """The recorded cases differ where the count differs (a fixture of one value everywhere proves nothing)."""
    graph, pynative = FIXTURE["graph"], FIXTURE["pynative"]
    assert graph["same/one_bn"] == graph["value_and_grad/one_bn"] != graph["forward_twice/one_bn"]
    assert pynative["same/one_bn/set_grad"] == graph["same/one_bn"] != pynative["same/one_bn"]


class _WeightNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
        self.bn = ms.nn.BatchNorm1d(3, momentum=0.5)

    def construct(self, x):
        return (self.bn(x * self.w) * x).sum() + (self.w * self.w * x).sum()


class _AssignBetween(ms.nn.Cell):
    """A forward, an assignment to a weight it read, then the gradient on the same inputs."""

    def __init__(self, net):
        super().__init__()
        self.net, self.grad = net, ms.ops.GradOperation(get_by_list=True)
        self.weights = ms.ParameterTuple([net.w])

    def construct(self, x):
        loss = self.net(x)
        ms.ops.assign(self.net.w, self.net.w * 3)
        return loss, self.grad(self.net, self.weights)(x)


def test_a_weight_assigned_between_keeps_the_forwards_apart(restore_mode) -> None:
    """Kept difference (docs/mindspore-compat.md): MindSpore shares the forward anyway and differentiates at the
    old weight; opbuild computes the gradient at the new one (as PyNative's gradient of a net holding it) and
    so runs BatchNorm twice."""
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _WeightNet()
    step = _AssignBetween(net)
    step.set_train()
    grads = step(x)[1]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ref = _WeightNet()
    ref.set_train()
    ref.w.set_data(ms.Tensor(np.full(3, 3.0, np.float32)))
    np.testing.assert_allclose(grads[0].asnumpy(), ms.grad(ref, None, ms.ParameterTuple([ref.w]))(x)[0].asnumpy(),
                               rtol=1e-5)
    # two updates (momentum 0.5): the forward's batch mean at w = 1, then the gradient's at w = 3
    batch = x.asnumpy().mean(axis=0)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), 0.5 * (0.5 * batch) + 0.5 * (3 * batch), rtol=1e-6)
