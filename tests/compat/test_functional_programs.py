"""The programs of tests/compat/functional_programs.py on opbuild against MindSpore 2.10's recorded results and
printed output (tests/fixtures/mindspore/functional_programs.json, written by scripts/record_functional.py):
function transforms, gradient hooks, Print, Custom, loops and control flow under gradients."""

from __future__ import annotations

import contextlib
import io
import json
import re
import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from tests.compat import functional_programs as programs
from tests.conftest import execution_mode

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "functional_programs.json"
RECORDED = json.loads(FIXTURE.read_text())
_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+|inf|nan)")


def _encode(value: Any) -> Any:
    if isinstance(value, Tensor):
        a = value.asnumpy()
        return {"tensor": a.astype(np.float64).tolist() if a.dtype.kind in "fiub" else a.tolist(),
                "shape": list(a.shape), "dtype": str(value.dtype)}
    if isinstance(value, (tuple, list)):
        return {"seq": type(value).__name__, "items": [_encode(v) for v in value]}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return {"repr": type(value).__name__}


def _same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, dict) and "tensor" in got, f"{where}: expected a Tensor, got {got!r}"
        assert got["shape"] == want["shape"], f"{where}: shape {got['shape']} != {want['shape']}"
        assert got["dtype"] == want["dtype"], f"{where}: dtype {got['dtype']} != {want['dtype']}"
        np.testing.assert_allclose(np.array(got["tensor"], dtype=np.float64),
                                   np.array(want["tensor"], dtype=np.float64), rtol=2e-5, atol=1e-6,
                                   err_msg=where)
    elif isinstance(want, dict) and "seq" in want:
        assert isinstance(got, dict) and got.get("seq") == want["seq"], f"{where}: {got!r} is not a {want['seq']}"
        assert len(got["items"]) == len(want["items"]), f"{where}: {len(got['items'])} items, {len(want['items'])}"
        for i, (g, w) in enumerate(zip(got["items"], want["items"])):
            _same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


def _same_text(got: str, want: str, where: str) -> None:
    """Printed output: equal outside numbers; numbers equal to 2e-5 relative."""
    assert _NUMBER.sub("#", got) == _NUMBER.sub("#", want), f"{where}: printed\n{got}\nMindSpore printed\n{want}"
    for g, w in zip(_NUMBER.findall(got), _NUMBER.findall(want)):
        np.testing.assert_allclose(float(g), float(w), rtol=2e-5, atol=1e-6, err_msg=where)


@pytest.mark.parametrize("name", sorted(programs.CASES))
def test_matches_mindspore(name, tmp_path):
    want = RECORDED[name]
    path = tmp_path / f"{name}.py"
    path.write_text(programs.CASES[name])
    env = {"ms": ms, "np": np, "ops": ops, "nn": nn, "Tensor": Tensor}
    out = io.StringIO()
    with execution_mode("pynative"):
        if "error" in want:
            kind = want["error"].split(":")[0]
            with pytest.raises(Exception) as info:  # noqa: PT011 - the type is MindSpore's, checked below
                runpy.run_path(str(path), init_globals=env)
            assert type(info.value).__name__ == kind, f"{name}: raised {info.value!r}, MindSpore {want['error']}"
            return
        with contextlib.redirect_stdout(out):
            result = runpy.run_path(str(path), init_globals=env)["result"]
    _same(_encode(result), want["result"], name)
    _same_text(out.getvalue(), want["stdout"], name)


def test_every_program_is_recorded():
    assert set(programs.CASES) <= set(RECORDED), "run scripts/record_functional.py under MindSpore"
