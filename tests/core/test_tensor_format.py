"""Tensors, Parameters and dtypes print as MindSpore 2.10 prints them (fixtures recorded by
scripts/record_tensor_print.py from real MindSpore; documented examples compare printed text)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ob
from tests.core.tensor_print_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "tensor_print.json")
                     .read_text())


def _tensor(expr: str, dtype: str | None):
    arr = eval(expr, {"np": np})  # noqa: S307 - the repository's own case list
    return ob.tensor(arr, dtype=getattr(ob, dtype)) if dtype else ob.Tensor(arr)


@pytest.mark.parametrize("name,expr,dtype", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_mindspore(name, expr, dtype):
    assert repr(_tensor(expr, dtype)) == FIXTURE["tensors"][name]["repr"]


# str() is NumPy's layout on both sides; NumPy 2 (opbuild) writes a 0-d float32 above 1e8 in scientific
# notation where MindSpore's NumPy 1 does not, so that case is left to the repr test.
STR_CASES = [c for c in CASES if c[2] is None and c[0] != "f32_scalar_big"]


@pytest.mark.parametrize("name,expr,dtype", STR_CASES, ids=[c[0] for c in STR_CASES])
def test_str_matches_mindspore(name, expr, dtype):
    assert str(_tensor(expr, dtype)) == FIXTURE["tensors"][name]["str"]


def test_parameter_prints_like_mindspore():
    p = ob.Parameter(ob.Tensor(np.ones((2, 3), np.float32)), name="w")
    q = ob.Parameter(ob.Tensor(np.ones((), np.int32)), name="step", requires_grad=False)
    want = FIXTURE["parameter"]
    assert (repr(p), str(p), repr(q), str([p])) == (want["repr"], want["str"], want["repr_frozen"], want["list"])


def test_dtype_prints_like_mindspore():
    for name, want in FIXTURE["dtype"].items():
        assert (repr(getattr(ob, name)), str(getattr(ob, name))) == (want["repr"], want["str"]), name
