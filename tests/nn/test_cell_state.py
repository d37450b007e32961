"""Cell's path access and state mapping (nn/cell_state.py) print what MindSpore 2.10 prints (fixture recorded
by scripts/record_cell_state.py), and refuse bad paths and mismatched mappings clearly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.nn.cell_state_program import run

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "cell_state.json")
                     .read_text())


def test_program_prints_what_mindspore_prints(tmp_path, pynative_mode):
    assert run(ms, str(tmp_path)) == FIXTURE["lines"]


def test_bad_paths_and_mappings_are_refused():
    net = ms.nn.SequentialCell([ms.nn.Dense(2, 3)])
    with pytest.raises(AttributeError, match="no sub-cell 'x'"):
        net.get_sub_cell("0.x")
    with pytest.raises(AttributeError, match="no buffer"):
        net.get_buffer("0.nothing")
    with pytest.raises(RuntimeError, match="missing keys"):
        net.load_state_dict({})
    keys = net.load_state_dict({}, strict=False)
    assert keys.missing_keys == ["0.weight", "0.bias"] and keys.unexpected_keys == []
    with pytest.raises(ValueError, match="shape"):
        net.load_state_dict({"0.weight": np.zeros((2, 2), np.float32), "0.bias": np.zeros(3, np.float32)})


def test_set_inputs_by_name_refuses_unknown_names():
    net = ms.nn.Dense(2, 3)
    with pytest.raises(TypeError, match="not parameters of construct"):
        net.set_inputs(y=ms.Tensor(shape=[None, 2], dtype=ms.float32))
