"""A Parameter made without a name (None, "" or blanks) is named ``Parameter#N`` as in MindSpore 2.10, N counting
such Parameters in the process (a fresh process prints MindSpore's numbers); a Cell attribute renames a
generated name to the attribute's; names are stripped and at most 1024 characters; ``clone`` keeps the name.
tests/core/param_auto_name_program.py runs under opbuild's mindspore alias in a fresh process and is compared
with MindSpore's run of it (scripts/record_param_auto_names.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURE = json.loads((HERE.parent / "fixtures" / "mindspore" / "param_auto_names.json").read_text())


def test_generated_names_are_mindspore_s(tmp_path) -> None:
    env = dict(os.environ, OPBUILD_AS_MINDSPORE="1", OPBUILD_CACHE_PATH=str(tmp_path))
    env["PYTHONPATH"] = str(HERE.parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    run = "import opbuild, runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"
    proc = subprocess.run([sys.executable, "-c", run, str(HERE / "param_auto_name_program.py")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))[7:])
    want = {k: v for k, v in FIXTURE.items() if k != "_meta"}
    assert got == want
