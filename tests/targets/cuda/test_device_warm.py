"""A second process over the same cache runs the GPU network without building anything: the cubins come from
kernel_meta, the emulated device finds their host builds by the cubin's digest, and the results are the first
process's."""

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

WORKER = Path(__file__).with_name("_device_worker.py")


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to emulate GPU kernels with")
@pytest.mark.skipif(nvrtc_missing() is not None, reason=str(nvrtc_missing()))
def test_a_second_process_builds_nothing_and_runs_the_network(tmp_path):
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(tmp_path / "cache"), OPBUILD_PROGRESS="0")
    env.pop("OPBUILD_CUDA_ARCH", None)  # the emulated device says sm_90
    meta = tmp_path / "cache" / "rank_0" / "kernel_meta"
    runs, entries = [], []
    for _ in range(2):
        out = subprocess.run([sys.executable, str(WORKER), str(tmp_path / "host-builds")], env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        entries.append(sorted(p.name for p in meta.glob("*.cubin")))
    cold, warm = runs
    assert cold["built"] >= 10 and cold["host_compiles"] >= 1
    assert (warm["built"], warm["host_compiles"]) == (0, 0)
    assert warm["reused"] == cold["built"] + cold["reused"]
    assert warm["launches"] == cold["launches"] > 0
    assert warm["results"] == cold["results"]
    assert len(entries[0]) >= cold["built"] and entries[1] == entries[0]  # the second process wrote nothing
