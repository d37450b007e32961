"""The programs of tests/compat/nn_surface_cases.py against MindSpore 2.10's ``str(result)``
(tests/fixtures/mindspore/nn_surface.json, recorded by scripts/record_nn_surface.py): the same text, or the same
nested numbers within float32 rounding, or the same error type where MindSpore refuses."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opbuild as ms

from .nn_surface_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "nn_surface.json").read_text())


def _value(text: str) -> Any:
    """A recorded ``str(result)`` as Python values (dtype names as strings: ``mindspore.float16`` is
    ``'float16'``, as opbuild's ``Float16`` is)."""
    text = re.sub(r"\b(?:mindspore\.)?([Ff]loat\d+|[Ii]nt\d+|[Bb]ool_?)\b", lambda m: repr(m.group(1).lower()), text)
    return ast.literal_eval(text)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-4, atol=2e-4))
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_mindspore(name: str, pynative_mode) -> None:
    env = {"ms": ms, "np": np}
    want = FIXTURE[name]
    if "error" in want:
        with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
            exec(CASES[name], env)  # noqa: S102 - the repository's own programs
        kind = want["error"].split(":")[0]
        assert kind in {c.__name__ for c in type(info.value).__mro__}, f"{type(info.value).__name__}: {info.value}"
        return
    exec(CASES[name], env)  # noqa: S102
    got = str(env["result"])
    assert got == want["str"] or _close(_value(got), _value(want["str"])), f"{got}\n!= {want['str']}"


def test_fixture_records_mindspore_2_10() -> None:
    assert FIXTURE["_meta"]["mindspore"] == "2.10.0"
    assert set(FIXTURE) - {"_meta"} == set(CASES)
