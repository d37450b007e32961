"""Smoke test of scripts/soak_kill.py, so that it cannot rot: a handful of kills, at random moments and inside
the commit window (through OPBUILD_TEST_COMMIT_HOOK), each followed by a clean run and a verification."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent.parent


def test_soak_kill_quick(tmp_path: Path) -> None:
    out = tmp_path / "soak.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "soak_kill.py"), "--kills", "6", "--procs", "2",
                           "--commit-share", "0.5", "--seed", "0", "--widths", "60", "--out", str(out),
                           "--root", str(tmp_path / "caches")], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SIGKILLs" in proc.stdout and "inside the commit window" in proc.stdout
    result = json.loads(out.read_text())
    summary, trials = result["summary"], result["trials"]
    assert summary["kills"] >= 6 and summary["failed_trials"] == 0 and summary["verify_problems"] == 0
    assert summary["final_cli_verify_rc"] == 0
    assert {t["mode"] for t in trials} == {"random", "commit"}  # both kinds of trial ran
    assert summary["commit_window_kills"] >= 1  # the hook was reached and a worker died inside the window
    assert summary["kills"] == sum(t["kills"] for t in trials)
