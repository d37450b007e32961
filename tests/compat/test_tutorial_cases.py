"""opbuild against MindSpore 2.10's recorded results of tests/compat/tutorial_cases.py (the behaviours
MindSpore's tutorials rely on; fixture written by scripts/record_tutorial_cases.py under real MindSpore).
A case MindSpore answered must give the same kinds, dtypes, shapes and values (floats within 1e-5 relative);
a case MindSpore refused must raise."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import opbuild as ms

from ..conftest import execution_mode
from . import tutorial_cases as cases

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "tutorial_cases.json"
RECORDED = json.loads(FIXTURE.read_text())


def _same(expected, got, where="") -> None:
    if isinstance(expected, float) and isinstance(got, float):
        assert math.isclose(expected, got, rel_tol=1e-5, abs_tol=1e-6) or (math.isnan(expected) and
                                                                           math.isnan(got)), where
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(expected) == sorted(got), f"{where}: {expected} != {got}"
        for k in expected:
            _same(expected[k], got[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(expected) == len(got), f"{where}: {expected} != {got}"
        for i, (e, g) in enumerate(zip(expected, got)):
            _same(e, g, f"{where}[{i}]")
    else:
        assert expected == got, f"{where}: {expected!r} != {got!r}"


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_matches_mindspore(name, tmp_path):
    rec = RECORDED[name]
    with execution_mode("pynative"):
        if "error" in rec:
            with pytest.raises(Exception):  # noqa: B017,PT011 - MindSpore's types differ; refusing is the point
                cases.CASES[name](ms, str(tmp_path))
            return
        got = cases.encode(cases.CASES[name](ms, str(tmp_path)), ms)
    _same(rec["value"], json.loads(json.dumps(got)), name)


def test_graph_print_of_other_objects_prints_at_trace_time(capsys):
    # The graph's print takes str, numbers, sequences and Tensors; a print with anything else (a dict here)
    # stays Python's print, at trace time, rather than failing the trace.
    @ms.jit
    def f(x):
        print("state", {"k": 1}, x)
        return x + 1

    out = f(ms.tensor([1.0, 2.0]))
    assert out.asnumpy().tolist() == [2.0, 3.0]
    assert "state {'k': 1}" in capsys.readouterr().out
