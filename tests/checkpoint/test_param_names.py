"""Parameter names are MindSpore's (CellList members, cells shared between an attribute and a SequentialCell,
cells added or moved after construction), so MindSpore-written checkpoints load completely; a partial load
names what it left out. Expected names recorded from MindSpore 2.10 by scripts/record_param_names.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.checkpoint import param_name_programs as programs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
EXPECTED = json.loads((FIXTURES / "param_names.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_names_are_mindspore_s(name, tmp_path):
    net = programs.build(ms)[name]()
    want = EXPECTED[name]
    assert [q for q, _ in net.parameters_and_names()] == want["qualified"]
    assert [p.name for _, p in net.parameters_and_names()] == want["param_names"]
    assert [list(p.shape) for _, p in net.parameters_and_names()] == want["shapes"]
    assert [p.requires_grad for _, p in net.parameters_and_names()] == want["requires_grad"]
    assert [n for n, _ in net.cells_and_names()] == want["cells"]
    ms.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    assert list(ms.load_checkpoint(str(tmp_path / "net.ckpt"))) == want["checkpoint"]


@pytest.mark.parametrize("name", ["list", "shared_attr_first"])
def test_mindspore_checkpoints_load_completely(name, graph_mode):
    net = programs.build(ms)[name]()
    params = ms.load_checkpoint(str(FIXTURES / f"params_{name}.ckpt"))
    assert ms.load_param_into_net(net, params) == ([], [])
    x = ms.Tensor(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(4, 2))
    np.testing.assert_allclose(net(x).asnumpy(), np.array(EXPECTED[name]["output"], np.float32), rtol=1e-6)


def test_shared_cell_is_one_module_once():
    net = programs.build(ms)["same_cell_twice"]()
    paths = [p for p, _ in net.cells_and_names()]
    assert paths == ["", "layers", "layers.0", "layers.2"]


def test_partial_load_names_what_it_left_out():
    net = programs.build(ms)["list"]()
    params = ms.load_checkpoint(str(FIXTURES / "params_list.ckpt"))
    params["head.w"] = params.pop("head.weight")
    with pytest.warns(UserWarning, match=r"\['head.weight'\].*matched no parameter: \['head.w'\]"):
        assert ms.load_param_into_net(net, params) == (["head.weight"], ["head.w"])


def test_update_parameters_name_replaces_names():
    net = programs.build(ms)["list"]()
    net.update_parameters_name("net.")
    assert [p.name for p in net.get_parameters()][:2] == ["net.layers.0.weight", "net.layers.0.bias"]


def test_a_parameter_tuple_with_two_parameters_of_one_name_is_refused():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ms.ParameterTuple([ms.Parameter(np.ones(1, np.float32), name="w"),
                                         ms.Parameter(np.ones(1, np.float32), name="w")])

    with pytest.raises(ValueError, match=r"duplicate parameter names \['w'\]"):
        Net()


def test_an_optimizer_holds_the_network_parameters_it_updates():
    net = programs.build(ms)["bare_sequential"]()
    opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    mine = {id(p) for p in opt.get_parameters()}
    assert all(id(p) in mine for p in net.trainable_params())
    assert [p.name for p in opt.parameters] == [p.name for p in net.trainable_params()]
