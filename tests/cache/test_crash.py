"""Crash safety: a build process SIGKILLed at any moment leaves a cache that the next run uses without any
manual step, with correct outputs, and that verifies clean (every committed entry complete and checksummed).

Two kinds of kills, both real SIGKILLs of real build processes:
  * deterministic: the worker SIGKILLs itself at the N-th ``os.write/fsync/replace`` call made by the cache's
    write layer (``fsio``), by the store (``local``: hard links) or by ``quarantine`` (quarantine, sweep),
    before or after the call;
  * timed: a process building a 60-kernel network is killed after delays spanning its whole build.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import time

import pytest

from tests.cache import _net
from tests.cache._util import (
    committed,
    copy_cache,
    env_for,
    kernel_meta,
    popen_worker,
    run_worker,
    statuses,
    verify_cache,
)

pytestmark = pytest.mark.slow

SMALL = _net.branches([13])  # 5 kernels
# 60 kernels in batches of at most 8 (OPBUILD_BATCH_SIZE) on 2 build jobs: four rounds of two batches, so some
# entries are committed long before the last (in one round, both batches commit within a few milliseconds).
SPAN = _net.branches(range(3, 15))
SPAN_KERNELS = 60

# With one build job SMALL's 5 kernels are compiled as ONE batch and published as: the shared binary staged
# as a temporary (fsio write, replace #1); then per entry: its binary hard-linked in (local link and
# replace), .info (fsio write, replace), .json = the commit (fsio write, replace). (No fsync: the cache's
# default, OPBUILD_CACHE_FSYNC unset; every read verifies what a power cut could tear.) With 5 jobs every
# kernel is its own batch, written directly (binary, .info, .json: fsio replace #1-#3 of whichever thread
# comes first), so both publication paths are killed at each step.
POINTS = [
    (1, "fsio", "write", 1, "after"),      # the batch's binary written as a temporary, not yet renamed
    (1, "fsio", "replace", 1, "before"),   # staged binary complete under its writer's temporary name
    (1, "fsio", "replace", 1, "after"),    # staged binary in place (a temporary name), no entry yet
    (1, "local", "replace", 1, "after"),   # entry 1's binary linked in, no .info, no .json
    (1, "fsio", "replace", 2, "after"),    # entry 1's binary and .info in place, no .json: uncommitted
    (1, "fsio", "replace", 3, "before"),   # entry 1's .json complete as a temporary, not renamed
    (1, "fsio", "replace", 3, "after"),    # entry 1 committed, the others not started
    (1, "fsio", "replace", 6, "before"),   # two entries committed, the third's .info not yet renamed
    (1, "local", "replace", 5, "after"),   # last entry's binary linked; staged temporary still there
    (5, "fsio", "replace", 1, "after"),    # unbatched: a binary in place, nothing else
    (5, "fsio", "replace", 2, "after"),    # unbatched: binaries and .info of some kernels, no .json
    (5, "fsio", "replace", 3, "before"),   # unbatched: a .json complete as a temporary
]


def _recover_and_check(root, n_kernels: int, net: list[dict]) -> dict:
    """The run after a crash must succeed (outputs checked by the worker), leave a clean cache, and the run
    after it must reuse everything silently."""
    res = run_worker({"net": net}, env_for(root))
    rep = res["report"]
    assert rep["built"] + rep["reused"] + rep["repaired"] == n_kernels
    assert len(res["warnings"]) <= 1, res["warnings"]
    km = kernel_meta(root)
    assert verify_cache(km) == []
    assert len(committed(km)) >= n_kernels
    again = run_worker({"net": net}, env_for(root))
    assert again["report"]["reused"] == n_kernels and again["warnings"] == []
    return res


@pytest.mark.parametrize("jobs,module,func,nth,when", POINTS,
                         ids=[f"jobs{j}-{m}.{f}#{n}-{w}" for j, m, f, n, w in POINTS])
def test_kill_at_every_write_step(tmp_path, jobs, module, func, nth, when):
    kill = {"module": module, "func": func, "nth": nth, "when": when}
    proc = popen_worker({"net": SMALL, "kill": kill}, env_for(tmp_path, OPBUILD_BUILD_JOBS=str(jobs)))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, f"kill point not reached ({proc.returncode}):\n{out}\n{err}"
    _recover_and_check(tmp_path, 5, SMALL)


@pytest.fixture(scope="module")
def small_cache(tmp_path_factory):
    root = tmp_path_factory.mktemp("crash-small")
    run_worker({"net": SMALL}, env_for(root))
    return root


@pytest.mark.parametrize("nth,when", [(1, "after"), (2, "after"), (3, "after")])
def test_kill_while_quarantining(small_cache, tmp_path, nth, when):
    """Killed in the middle of moving a broken entry (bit-flipped binary) into quarantine."""
    km = copy_cache(small_cache, tmp_path / "root")
    victim = committed(km)[2]
    data = bytearray((km / f"{victim}.so").read_bytes())
    data[100] ^= 1
    (km / f"{victim}.so").write_bytes(bytes(data))
    kill = {"module": "quarantine", "func": "replace", "nth": nth, "when": when}  # cache/quarantine.py moves it
    proc = popen_worker({"net": SMALL, "kill": kill}, env_for(tmp_path / "root"))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, f"kill point not reached ({proc.returncode}):\n{out}\n{err}"
    res = _recover_and_check(tmp_path / "root", 5, SMALL)
    # Killed after all three parts moved, the entry is simply absent: then it is built afresh.
    assert statuses(res)[victim] == ("built" if nth == 3 else "repaired")


def _wait_killed(proc, delay: float) -> bool:
    """SIGKILL the worker's whole process group (compilers included) ``delay`` s after its start; True if it
    was still running then."""
    deadline = proc.started + delay
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):  # it may have just finished
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    return proc.returncode == -signal.SIGKILL


def test_kill_after_random_delays_spanning_the_build(tmp_path):
    """One cache, many interrupted cold builds: each trial uses its own OPBUILD_CFLAGS (so its 60 kernels are
    all new) and is killed after a random delay in its slice of [0, 1.1 x cold build time]. Trial 0 is killed
    almost at once, so the run that recovers it is a cold build: its duration calibrates the others. If, by
    timing luck, no kill landed while entries were being committed, extra trials bisect the window where
    some but not all entries existed."""
    root = tmp_path / "root"
    km = kernel_meta(root)
    trials, extra = 7, 4
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    progress: list[tuple[float, bool, int]] = []  # (delay, killed, entries committed before the kill)
    cold = 0.0

    def trial(i: int, delay: float) -> None:
        nonlocal cold
        flags = f"-DOB_TRIAL={i}"
        before = set(committed(km)) if km.is_dir() else set()
        proc = popen_worker({"net": SPAN}, env_for(root, OPBUILD_CFLAGS=flags, OPBUILD_BATCH_SIZE="8"))
        proc.started = time.monotonic()
        killed = _wait_killed(proc, delay)
        progress.append((round(delay, 3), killed, len(set(committed(km)) - before) if km.is_dir() else 0))
        t0 = time.monotonic()
        res = run_worker({"net": SPAN}, env_for(root, OPBUILD_CFLAGS=flags, OPBUILD_BATCH_SIZE="8"))
        if i == 0:
            assert res["report"]["built"] == SPAN_KERNELS
            cold = time.monotonic() - t0
        rep = res["report"]
        assert rep["built"] + rep["reused"] + rep["repaired"] == SPAN_KERNELS, (seed, progress)
        assert len(res["warnings"]) <= 1, (seed, progress, res["warnings"])
        assert verify_cache(km) == [], (seed, progress)

    trial(0, 0.05)
    for i in range(1, trials):
        trial(i, cold * 1.1 * (i - 1 + rng.random()) / (trials - 1))
    for i in range(trials, trials + extra):
        if any(k and 0 < n < SPAN_KERNELS for _, k, n in progress):
            break
        lo = max([d for d, k, n in progress if k and n == 0], default=0.0)
        hi = min([d for d, k, n in progress if n == SPAN_KERNELS], default=cold * 1.1)
        trial(i, (lo + hi) / 2)
    print(json.dumps({"seed": seed, "cold_s": cold, "progress": progress}))
    # The kills really did land inside the builds, not only before or after them.
    assert any(k and 0 < n < SPAN_KERNELS for _, k, n in progress), \
        f"no kill landed mid-build (seed {seed}, cold build {cold:.2f} s): {progress}"
    assert len(committed(km)) == SPAN_KERNELS * len(progress)
    shutil.rmtree(root)
