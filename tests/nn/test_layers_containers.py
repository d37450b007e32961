"""CellList and CellDict: registration, parameter names (as MindSpore's auto_prefix gives them), editing,
use inside a network in both modes, and errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn


def _dense(i: int, o: int) -> nn.Dense:
    return nn.Dense(i, o, weight_init="normal", bias_init="normal")


class Stack(nn.Cell):
    """A network that runs the cells of a CellList in order, as model-zoo code does."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([_dense(4, 5), nn.ReLU(), _dense(5, 3)])
        self.heads = nn.CellDict({"a": _dense(3, 2), "b": _dense(3, 1)})

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.heads["a"](x), self.heads["b"](x)


def test_celllist_celldict_run_and_name_parameters(mode):
    net = Stack()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias",
                     "heads.a.weight", "heads.a.bias", "heads.b.weight", "heads.b.bias"]
    assert [p.name for p in net.get_parameters()] == names
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    p = {n: v.asnumpy().astype(np.float64) for n, v in net.parameters_and_names()}
    h = np.maximum(x @ p["layers.0.weight"].T + p["layers.0.bias"], 0) @ p["layers.2.weight"].T + p["layers.2.bias"]
    a, b = net(ms.Tensor(x))
    np.testing.assert_allclose(a.asnumpy(), h @ p["heads.a.weight"].T + p["heads.a.bias"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.asnumpy(), h @ p["heads.b.weight"].T + p["heads.b.bias"], rtol=1e-4, atol=1e-4)


def test_celllist_editing_renumbers():
    a, b, c = _dense(2, 2), nn.ReLU(), _dense(2, 3)
    cl = nn.CellList([a, b])
    cl.insert(0, c)
    assert len(cl) == 3 and cl[0] is c and cl[1] is a and cl[-1] is b
    assert [n for n, _ in cl.parameters_and_names()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert a.weight.name == "1.weight"
    del cl[0]
    assert list(cl) == [a, b] and a.weight.name == "0.weight"
    cl[1] = c
    assert list(cl) == [a, c]
    assert isinstance(cl[0:1], nn.CellList) and list(cl[0:1]) == [a]
    cl.extend([nn.Identity()])
    assert len(cl) == 3


def test_celldict_editing():
    d = nn.CellDict([("x", nn.ReLU())], y=nn.Identity())
    assert list(d.keys()) == ["x", "y"] and "x" in d and list(d) == ["x", "y"]
    assert str(d.keys()) == "odict_keys(['x', 'y'])"  # MindSpore's OrderedDict view, as printed
    cells = nn.CellList([nn.ReLU()])
    assert cells.append(nn.Tanh()) is None and len(cells) == 2   # MindSpore's append returns None
    seq = nn.SequentialCell([nn.ReLU()])
    assert seq.append(nn.Tanh()) is None and len(seq) == 2
    d.update({"z": nn.Tanh()})
    assert isinstance(d.pop("x"), nn.ReLU) and list(d.keys()) == ["y", "z"]
    d["y"] = nn.Sigmoid()
    assert isinstance(d["y"], nn.Sigmoid) and list(d.keys()) == ["y", "z"]
    d.clear()
    assert len(d) == 0


def test_container_errors():
    with pytest.raises(TypeError, match="CellList: items must be Cells"):
        nn.CellList([nn.ReLU(), 3])
    with pytest.raises(IndexError, match="CellList index 5 out of range"):
        nn.CellList([nn.ReLU()])[5]
    with pytest.raises(KeyError, match="without '.'"):
        nn.CellDict({"a.b": nn.ReLU()})
    with pytest.raises(KeyError, match="shadow"):
        nn.CellDict({"keys": nn.ReLU()})
    with pytest.raises(TypeError, match="cannot be called"):
        nn.CellList([nn.ReLU()])(ms.Tensor(np.zeros(2, np.float32)))
