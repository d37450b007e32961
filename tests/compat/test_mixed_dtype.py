"""``ops.Select()(cond, x, y)`` with branches of different dtypes promotes both to their common type, as
MindSpore 2.10 does in both modes: each program of tests/compat/mixed_dtype_cases.py against MindSpore's
recorded ``str(result)`` (scripts/record_mixed_dtype.py), run as is (PyNative) and traced in a Cell."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from tests.compat._util import same_printed
from tests.compat.mixed_dtype_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" /
                      "mixed_dtype.json").read_text())


def test_fixture_covers_every_case_and_records_mindspore_2_10():
    assert FIXTURE["_meta"]["mindspore"] == "2.10.0"
    assert sorted(n for n in FIXTURE if n != "_meta") == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_mindspore(name, pynative_mode):
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    got = str(env["result"])
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"


class _Both(nn.Cell):
    def construct(self, c, x, y):
        return ms.ops.Select()(c, x, y), ms.ops.Select()(c, y, x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_select_matches_mindspore(name):
    env = {"ms": ms, "np": np}
    exec(CASES[name].split("result =")[0], env)  # noqa: S102 - the inputs c, x, y of the program
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        a, b = _Both()(env["c"], env["x"], env["y"])
    finally:
        ms.set_context(mode=old)
    got = str(tuple((str(t.dtype), t.asnumpy().astype(np.float64).round(4).tolist()) for t in (a, b)))
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"
