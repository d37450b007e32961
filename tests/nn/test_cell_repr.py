"""Cells print as MindSpore 2.10 prints them (``repr``, ``name_cells()``, ``cells()``); fixtures recorded by
scripts/record_cell_repr.py from real MindSpore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opbuild import nn
from tests.nn.cell_repr_cases import build

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "cell_repr.json")
                     .read_text())
CELLS = build(nn)


@pytest.mark.parametrize("name", sorted(FIXTURE["repr"]))
def test_cell_repr_matches_mindspore(name):
    assert repr(CELLS[name]) == FIXTURE["repr"][name]


def test_containers_print_like_mindspore():
    seq = CELLS["Sequential"]
    assert str(seq.name_cells()) == FIXTURE["name_cells"]
    assert str(seq.cells()) == FIXTURE["cells"]


def test_a_subclass_extra_repr_is_used():
    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()

        def extra_repr(self):
            return "scale=2"

    assert repr(Scaled()) == "Scaled(\n  scale=2\n  (act): ReLU()\n)"
