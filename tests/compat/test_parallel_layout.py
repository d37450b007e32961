"""``mindspore.parallel.Layout`` against MindSpore 2.10's recorded results (tests/fixtures/mindspore/
parallel_layout.json, scripts/record_parallel_layout.py): every tensor map's dictionary and every refusal, its
type and message, equal; the call returns a copy and leaves the map on the layout, as MindSpore's does."""

import json
from pathlib import Path

import pytest

import opbuild as ms
from opbuild.parallel import Layout
from tests.compat.layout_cases import CASES, run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "parallel_layout.json"
RECORDED = json.loads(FIXTURE.read_text())


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(CASES)


@pytest.mark.parametrize("label", sorted(CASES))
def test_layout_matches_mindspore(label):
    ctor, tensor_map = CASES[label]
    assert run(Layout, ctor, tensor_map) == RECORDED[label]


def test_call_returns_a_copy_and_keeps_the_map():
    layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
    a, b = layout("dp", "mp"), layout("mp",)
    assert a is not layout and b is not a
    assert a.to_dict()["tensor_map"] == (2, 0) and b.to_dict()["tensor_map"] == (0,)
    assert layout.to_dict()["tensor_map"] == (0,)


def test_top_level_name_and_alias_path():
    assert ms.Layout is Layout
    import opbuild.parallel

    assert opbuild.parallel.Layout is Layout
