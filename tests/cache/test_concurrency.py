"""Single flight: concurrent processes on one cache compile each distinct kernel exactly once in total, and a
lock left by a killed process never blocks the others."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import time
from pathlib import Path

import pytest

from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, popen_worker, verify_cache

pytestmark = pytest.mark.slow

BIG = _net.branches([3, 4, 5, 6, 7, 8])  # 30 kernels
SMALL = _net.branches([17])  # 5 kernels


def _result(proc, timeout: float = 180) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"worker failed ({proc.returncode}):\n{out}\n{err}"
    return json.loads(out.strip().splitlines()[-1])


def test_six_processes_build_each_kernel_once(tmp_path):
    procs = [popen_worker({"net": BIG, "seed": i}, env_for(tmp_path)) for i in range(6)]
    results = [_result(p) for p in procs]  # each checked its outputs against NumPy
    reports = [r["report"] for r in results]
    assert sum(r["built"] for r in reports) == len(_net.expected_kernels(BIG)) == 30, \
        [(r["built"], r["reused"]) for r in reports]
    for r in results:
        assert r["report"]["built"] + r["report"]["reused"] == 30 and r["report"]["repaired"] == 0
        assert r["warnings"] == []
    # Every process ended up with the same 30 kernels, and the cache holds exactly those, intact.
    names = [{k["name"] for k in r["kernels"]} for r in reports]
    assert all(n == names[0] for n in names)
    km = kernel_meta(tmp_path)
    assert set(committed(km)) == names[0] and verify_cache(km) == []


def _holding_cc(tmp_path: Path) -> str:
    """A compiler wrapper that, when OB_HOLD_MARKER is set, signals that it started and then hangs: the
    process that runs it is then sitting on that kernel's build lock."""
    real = shutil.which("cc") or shutil.which("gcc")
    path = tmp_path / "holding-cc"
    path.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" --version "*|*" -print-file-name="*) exec {real} "$@";; esac\n'
        'if [ -n "$OB_HOLD_MARKER" ]; then : > "$OB_HOLD_MARKER"; sleep 300; fi\n'
        f'exec {real} "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_lock_of_a_killed_process_does_not_block_others(tmp_path):
    cc = _holding_cc(tmp_path)
    marker = tmp_path / "holding"
    root = tmp_path / "root"
    env = env_for(root, CC=cc, OPBUILD_BUILD_JOBS="1")
    holder = popen_worker({"net": SMALL}, dict(env, OB_HOLD_MARKER=str(marker)))
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert holder.poll() is None and time.monotonic() < deadline, "the holder never started compiling"
            time.sleep(0.02)
        # The holder now owns the lock of the network's first kernel. Start two builders that need it too.
        waiters = [popen_worker({"net": SMALL}, env) for _ in range(2)]
        time.sleep(1.5)  # ample for 5 small kernels: still running means they are waiting for the lock
        assert all(w.poll() is None for w in waiters)
        t_kill = time.monotonic()
        os.kill(holder.pid, signal.SIGKILL)  # the Python process only: its hung compiler child lives on
        holder.wait(timeout=30)
        results = [_result(w, timeout=120) for w in waiters]
        assert time.monotonic() - t_kill < 60
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(holder.pid, signal.SIGKILL)
    reports = [r["report"] for r in results]
    assert sum(r["built"] for r in reports) == 5 and all(r["built"] + r["reused"] == 5 for r in reports)
    assert verify_cache(kernel_meta(root)) == []
