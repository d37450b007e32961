"""The functional API over integer, bool and float16 inputs: every call of tests/compat/int_dtype_cases.py gives
MindSpore 2.10's values, dtype and shape, or raises where MindSpore refuses the dtype (fixture recorded by
scripts/record_dtype_fixes.py). The differences not yet resolved are listed in ``int_dtype_cases.OPEN`` and
run as strict xfails, so a fix shows up as an unexpected pass."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat import int_dtype_cases as C

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "int_dtypes.json").read_text())


def _check(got, want, expr: str) -> None:
    if isinstance(want, list):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), expr
        for g, w in zip(got, want):
            _check(g, w, expr)
        return
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"], (expr, got.dtype, got.shape)
    atol = 1e-3 if want["dtype"] == "Float16" else 1e-6  # float16 kernels differ within its epsilon
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"], np.float64),
                               rtol=1e-3, atol=atol, err_msg=expr)


CALLS = [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason="open difference (int_dtype_cases.OPEN)"))
         if e in C.OPEN else e for e in C.CASES]


def test_open_differences_are_cases():
    assert sorted(C.OPEN - set(C.CASES)) == []


@pytest.mark.parametrize("expr", CALLS)
def test_matches_mindspore(expr, pynative_mode):
    env: dict = {"ms": ms, "np": np}
    exec(C.SETUP, env)  # noqa: S102 - the repository's own case list
    want = FIXTURE[expr]
    if isinstance(want, dict) and "error" in want:
        with pytest.raises((TypeError, ValueError)):  # MindSpore refuses the dtype; so must opbuild
            eval(expr, env)  # noqa: S307
        return
    _check(eval(expr, env), want, expr)  # noqa: S307
