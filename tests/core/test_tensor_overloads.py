"""MindSpore 2.x's ``dim``/``keepdim`` Tensor overloads beside the NumPy-style ones (core/tensor_overloads.py)
and the whole-data methods (core/tensor_extras.py): every call of tests/core/tensor_overload_cases.py,
tensor_extra_cases.py, tensor_dtype_rule_cases.py, tensor_edge_cases.py, index_bounds_cases.py and
int_input_cases.py gives
MindSpore 2.10's values, dtype and shape, or raises where MindSpore raises (fixtures recorded by
scripts/record_tensor_overloads.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.errors import KernelInputError
from tests.core import (
    index_bounds_cases,
    int_input_cases,
    tensor_dtype_rule_cases,
    tensor_edge_cases,
    tensor_extra_cases,
    tensor_overload_cases,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
SETS = {"overloads": (tensor_overload_cases, json.loads((FIXTURES / "tensor_overloads.json").read_text())),
        "extras": (tensor_extra_cases, json.loads((FIXTURES / "tensor_extras.json").read_text())),
        "dtype_rules": (tensor_dtype_rule_cases, json.loads((FIXTURES / "tensor_dtype_rules.json").read_text())),
        "edges": (tensor_edge_cases, json.loads((FIXTURES / "tensor_edges.json").read_text())),
        "index_bounds": (index_bounds_cases, json.loads((FIXTURES / "index_bounds.json").read_text())),
        "int_inputs": (int_input_cases, json.loads((FIXTURES / "int_inputs.json").read_text()))}
# The error a set's refused calls must raise (others: any): an index out of range is the kernel's report.
ERRORS: dict[str, type[Exception]] = {"index_bounds": KernelInputError}
CALLS = [(name, expr) for name, (cases, _) in SETS.items() for expr in cases.CASES]


def _check(got, want, expr):
    if isinstance(want, dict) and "py" in want:
        assert repr(got) == want["py"], expr
        return
    if isinstance(want, list):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), expr
        for g, w in zip(got, want):
            _check(g, w, expr)
        return
    assert list(got.shape) == want["shape"], expr
    assert str(got.dtype) == want["dtype"], expr
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"]), rtol=1e-3,
                               err_msg=expr)


@pytest.mark.parametrize("name,expr", CALLS, ids=[f"{n}:{e[:50]}" for n, e in CALLS])
def test_call_matches_mindspore(name, expr, pynative_mode):
    cases, fixture = SETS[name]
    env: dict = {"ms": ms, "np": np}
    exec(cases.SETUP, env)  # noqa: S102 - the repository's own case list
    want = fixture[expr]
    if "error" in want:
        with pytest.raises(ERRORS.get(name, Exception)):  # MindSpore raises here; so must opbuild
            eval(expr, env)  # noqa: S307
        return
    _check(eval(expr, env), want, expr)  # noqa: S307
