"""MindSpore 2.x's ``dim``/``keepdim`` Tensor overloads beside the NumPy-style ones (core/tensor_overloads.py):
every call of tests/core/tensor_overload_cases.py gives MindSpore 2.10's values, dtype and shape (fixtures
recorded by scripts/record_tensor_overloads.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.core.tensor_overload_cases import CASES, SETUP

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "tensor_overloads.json")
                     .read_text())
ENV: dict = {"ms": ms, "np": np}
exec(SETUP, ENV)  # noqa: S102 - the repository's own case list


def _check(got, want, expr):
    if isinstance(want, list):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), expr
        for g, w in zip(got, want):
            _check(g, w, expr)
        return
    assert list(got.shape) == want["shape"], expr
    assert str(got.dtype) == want["dtype"], expr
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"]), rtol=1e-3,
                               err_msg=expr)


@pytest.mark.parametrize("expr", CASES)
def test_overload_matches_mindspore(expr, pynative_mode):
    want = FIXTURE[expr]
    if "error" in want:
        with pytest.raises(Exception):  # noqa: B017 - MindSpore raises here; so must opbuild
            eval(expr, ENV)  # noqa: S307
        return
    _check(eval(expr, ENV), want, expr)  # noqa: S307
