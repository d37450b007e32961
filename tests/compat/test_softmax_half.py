"""float16 Softmax/Softmin/LogSoftmax against MindSpore 2.10 (tests/fixtures/ms_softmax_half.npz, recorded by
scripts/record_softmax_half.py from tests/compat/softmax_half_cases.py): MindSpore rounds each step of float16
Softmax to float16 (``nn.Softmax``'s documented example prints 0.0862 where one rounding gives 0.0861); the
results must be equal, in both modes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

from ..helpers import FnCell
from .softmax_half_cases import CASES, outputs

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "ms_softmax_half.npz")


def test_fixture_is_mindspore_2_10() -> None:
    assert json.loads(bytes(FIXTURE["__meta__"]).decode())["mindspore"] == "2.10.0"


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore_bit_for_bit(name: str, mode: str) -> None:
    fn = CASES[name][0]
    x = Tensor(FIXTURE[f"{name}:in0"])
    if mode == "graph":
        old = ms.get_context("mode")
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = outputs(FnCell(lambda t: fn(ms, ops, nn, t))(x))
        finally:
            ms.set_context(mode=old)
    else:
        got = outputs(fn(ms, ops, nn, x))
    want = FIXTURE[f"{name}:out0"]
    assert got[0].dtype == want.dtype
    np.testing.assert_array_equal(got[0], want)
