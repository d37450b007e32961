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
    diffs = [f"{case}: MindSpore {want}, opbuild {got[case]}" for case, want in FIXTURE[mode].items()
             if not np.allclose(want["mean"] + want["variance"], got[case]["mean"] + got[case]["variance"],
                                rtol=1e-6, atol=1e-6)]
    assert not diffs, "\n".join(diffs)


def test_the_fixture_tells_the_cases_apart() -> None:
    """The recorded cases differ where the count differs (a fixture of one value everywhere proves nothing)."""
    graph, pynative = FIXTURE["graph"], FIXTURE["pynative"]
    assert graph["same/one_bn"] == graph["value_and_grad/one_bn"] != graph["forward_twice/one_bn"]
    assert pynative["same/one_bn/set_grad"] == graph["same/one_bn"] != pynative["same/one_bn"]
