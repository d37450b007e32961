"""``train.FlopsUtilizationCollector`` and ``train.ConvertNetUtils`` against what MindSpore 2.10 printed and
built for the same programs (tests/fixtures/mindspore/train_observers.json, scripts/record_train_observers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild import dataset as ds
from opbuild.train import ConvertNetUtils, FlopsUtilizationCollector, Model

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "mindspore" / "train_observers.json").read_text())


class _ConvNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True)
        self.c2 = nn.Conv2d(3, 4, 3, stride=2, pad_mode="same")
        self.bmm = ops.BatchMatMul()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(16, 5)

    def construct(self, x):
        h = self.c2(self.c1(x.reshape(-1, 2, 6, 6)))
        return self.fc(self.flat(self.bmm(h, h.transpose(0, 1, 3, 2))))


_NETWORKS = {"dense": lambda: nn.Dense(10, 5),
             "two_dense": lambda: nn.SequentialCell([nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5)]),
             "conv_bmm": _ConvNet}


def _train(name: str) -> None:
    rng = np.random.default_rng(0)
    width = 72 if name == "conv_bmm" else 10
    data = {"x": rng.random((64, width)).astype(np.float32), "y": rng.integers(0, 5, (64,)).astype(np.int32)}
    train_dataset = ds.NumpySlicesDataset(data=data, shuffle=False).batch(32)
    net = _NETWORKS[name]()
    crit = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    flops = FlopsUtilizationCollector(train_dataset.get_dataset_size(), computility=10e6)
    Model(network=net, optimizer=opt, loss_fn=crit).train(2, train_dataset, callbacks=[flops])


@pytest.mark.parametrize("name", sorted(_NETWORKS))
def test_flops_collector_prints_mindspores_count(name, graph_mode, capsys):
    _train(name)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "flops" in ln or "per step time" in ln]
    want = FIXTURE["flops"][name]
    assert lines[0] == want["summary"]
    assert [ln.split(" per step time:")[0] for ln in lines[1:]] == want["step_lines"]
    for line in lines[1:]:
        assert " ms mfu:" in line and line.endswith("%") and " hfu:" in line


def test_flops_collector_refuses_pynative_as_mindspore(pynative_mode):
    assert FIXTURE["flops_pynative"].startswith("ValueError")
    with pytest.raises(ValueError, match="GRAPH_MODE only"):
        _train("dense")


def test_flops_collector_checks_its_arguments():
    with pytest.raises(ValueError, match="data_size must be a positive int"):
        FlopsUtilizationCollector(0)
    with pytest.raises(TypeError, match="full_flops must be a bool"):
        FlopsUtilizationCollector(2, full_flops=1)


class _ConvertNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.body = nn.SequentialCell([nn.Dense(4, 6, activation="relu"), nn.Dense(6, 3)])
        self.frozen = nn.Dense(3, 2)
        self.frozen.weight.requires_grad = False
        self.wide_part = nn.Dense(2, 2)

    def construct(self, ids):
        return self.wide_part(self.frozen(self.body(self.emb(ids).sum(1))))


def test_convert_net_utils_builds_mindspores_thor_network():
    net = _ConvertNet()
    ids = Tensor(np.array([[1, 2], [3, 4]], np.int32))
    before = net(ids).asnumpy()
    weight = net.body[0].weight
    ConvertNetUtils().convert_to_thor_net(net)
    assert [[n, type(c).__name__] for n, c in net.cells_and_names()][1:] == FIXTURE["convert_cells"][1:]
    assert [p.name for p in net.get_parameters()] == FIXTURE["convert_params"]
    assert net.body[0].weight is weight  # the parameters are kept, so training goes on from them
    np.testing.assert_array_equal(net(ids).asnumpy(), before)
    np.testing.assert_array_equal(net.emb.matrix_a.asnumpy(), np.bincount([1, 2, 3, 4], minlength=10))


def test_convert_net_utils_refuses_a_trainable_conv2d():
    net = nn.SequentialCell([nn.Conv2d(1, 2, 3)])
    with pytest.raises(NotImplementedError, match="Conv2dThor"):
        ConvertNetUtils().convert_to_thor_net(net)
    net[0].weight.requires_grad = False
    ConvertNetUtils().convert_to_thor_net(net)
    assert type(net[0]) is nn.Conv2d


def test_top_level_names():
    for name in ("SummaryRecord", "SummaryCollector", "FlopsUtilizationCollector", "ConvertNetUtils"):
        assert getattr(ms, name) is getattr(ms.train, name)
