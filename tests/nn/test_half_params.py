"""A float16 input through layers whose parameters are float32 (LayerNorm, GroupNorm, PReLU, ops.layer_norm)
gives MindSpore 2.10's float16 results (tests/nn/half_param_programs.py, recorded by
scripts/record_half_params.py). LayerNorm used to refuse the mix ("inputs must have the same dtype"), GroupNorm
and PReLU answered in float32."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from tests.nn import half_param_programs

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "half_params.json")
                     .read_text())


def _check(case):
    got = half_param_programs.run(ms, nn, ops)[case]
    assert not isinstance(got, str), got
    want = FIXTURE[case]
    if isinstance(want, str):
        # MindSpore's CPU has no kernel for ops.layer_norm (it refuses every input): NumPy in float32 instead
        x = np.random.default_rng(0).random((2, 4)).astype(np.float16).astype(np.float32) * 4 - 2
        ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * 2 + 1
        want = {"dtype": "Float16", "values": ref.ravel().tolist()}
    assert got["dtype"] == want["dtype"]
    np.testing.assert_allclose(got["values"], want["values"], rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("case", sorted(FIXTURE))
def test_matches_mindspore_graph(case, graph_mode):
    _check(case)


@pytest.mark.parametrize("case", sorted(FIXTURE))
def test_matches_mindspore_pynative(case, pynative_mode):
    _check(case)
