"""Integer and bool activations keep their dtype with MindSpore 2.10's values (truncated toward zero; alpha
cast to the integer dtype; float bounds clipped, then truncated), in PyNative and in a GRAPH_MODE Cell, and
the dtypes MindSpore refuses are refused (fixture recorded by scripts/record_dtype_fixes.py
int_activation_cases). The differences kept are strict xfails (``int_activation_cases.OPEN``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat import int_activation_cases as C
from tests.compat.test_dtype_fixes import _env as _dtype_env
from tests.helpers import FnCell

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" /
                      "int_activations.json").read_text())


def _env() -> dict:
    return _dtype_env(C.SETUP)


def _check(got, want: dict, key: str) -> None:
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"], (key, got.dtype, got.shape)
    np.testing.assert_array_equal(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"]), err_msg=key)


def test_every_case_is_recorded():
    assert set(C.CASES) | {C.graph_key(f, a) for f, a in C.GRAPH} <= set(FIXTURE)
    assert not C.OPEN - set(C.CASES)


@pytest.mark.parametrize("expr", [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason="kept difference"))
                                  if e in C.OPEN else e for e in C.CASES])
def test_matches_mindspore(expr, pynative_mode):
    env, want = _env(), FIXTURE[expr]
    if "error" in want:
        with pytest.raises(TypeError):
            eval(expr, env)  # noqa: S307
        return
    _check(eval(expr, env), want, expr)  # noqa: S307


@pytest.mark.parametrize("fn,args", C.GRAPH)
def test_matches_mindspore_in_graph_mode(fn, args):
    env, want = _env(), FIXTURE[C.graph_key(fn, args)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        if "error" in want:
            with pytest.raises(TypeError):
                FnCell(eval(fn, env))(*[eval(a, env) for a in args])  # noqa: S307
            return
        got = FnCell(eval(fn, env))(*[eval(a, env) for a in args])  # noqa: S307
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _check(got, want, C.graph_key(fn, args))
