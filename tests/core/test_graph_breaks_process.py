"""Graph breaks across processes: a second process reuses every kernel of every piece (it spawns processes,
so it is marked slow)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.conftest import run_python

pytestmark = pytest.mark.slow


def test_a_second_process_reuses_every_piece(tmp_path):
    code = textwrap.dedent("""
        import json, sys
        import numpy as np
        import opbuild as ms
        from tests.core import control_flow_programs as programs
        ms.set_context(mode=ms.GRAPH_MODE)
        net = programs.build(ms)["nested_while_if"]
        y, m = net(ms.Tensor(programs.inputs()["mixed"][0]))
        r = ms.build_report()
        print(json.dumps({"built": r.built, "reused": r.reused, "breaks": len(r.graph_breaks),
                          "y": y.asnumpy().tolist()}))
    """)
    env = {"OPBUILD_CACHE_PATH": str(tmp_path), "OPBUILD_FUSION": "0"}
    repo = Path(__file__).resolve().parents[2]
    first = json.loads(run_python(code, env=env, cwd=repo).stdout.splitlines()[-1])
    second = json.loads(run_python(code, env=env, cwd=repo).stdout.splitlines()[-1])
    assert first["built"] > 0 and first["breaks"] >= 2
    assert second["built"] == 0 and second["reused"] == first["built"] + first["reused"]
    assert second["breaks"] == first["breaks"] and second["y"] == first["y"]
