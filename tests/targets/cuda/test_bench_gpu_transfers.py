"""Smoke test of benchmarks/bench_gpu_transfers.py on the emulated device: its JSON and table, and the figures
it must show (a resident step downloads the loss only, a write-back step every updated Parameter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import nvrtc_missing
from .host_emulation import gxx

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def test_bench_gpu_transfers_mlp(tmp_path: Path) -> None:
    if gxx() is None or nvrtc_missing():
        pytest.skip(nvrtc_missing() or "no host C++ compiler (g++) to emulate GPU kernels with")
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(tmp_path / "cache"))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "transfers.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_gpu_transfers.py"), "--nets", "mlp",
                           "--steps", "2", "--out", str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "| mlp (MLP 784-256-128-10, batch 8) |" in proc.stdout
    mlp = json.loads(out.read_text())["networks"]["mlp"]
    resident, writeback = mlp["resident"], mlp["writeback"]
    inputs = 8 * 784 * 4 + 8 * 4  # images float32[8, 784], labels int32[8]
    assert resident["per_step"] == {"up": inputs, "down": 4, "dtod": 0}
    # Write-back: the loss and every updated weight and moment (all but the three optimizer scalars: global step,
    # learning rate, momentum).
    assert writeback["per_step"] == {"up": inputs, "down": 4 + resident["parameter_bytes"] - 12, "dtod": 0}
    assert resident["parameter_bytes"] == 2 * 4 * (784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10) + 4 * 3
