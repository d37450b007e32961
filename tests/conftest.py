"""Shared fixtures. Every test run uses a private cache root so the suite never writes ./rank_0."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Test files that spawn processes, kill them, run many ranks, walk ONNX's whole node-test suite or soak the
# cache: marked ``slow`` so ``pytest -m "not slow"`` is the everyday subset (under two minutes on a 2-core
# machine). The README's test command, and CI, run everything. Chosen from ``pytest --durations=0`` per file.
SLOW_FILES = frozenset({
    # the exhaustive op suites: every op x dtype x shape compiles its own kernel in a fresh cache
    "tests/ops/test_elementwise.py",
    "tests/ops/test_shape.py",
    "tests/ops/test_conv.py",
    "tests/ops/test_dtypes.py",
    "tests/ops/test_reduce.py",
    "tests/ops/test_norm.py",
    "tests/compat/test_functional.py",
    "tests/cache/test_reuse.py",
    "tests/ops/test_half_nn_ops.py",
    "tests/nn/test_layers_rnn.py",
    "tests/compat/test_corpus.py",
    # the half-precision and small-format suites (every op x half dtype x shape, compiled three ways for the
    # conversion helpers), and the mixed-precision training runs
    "tests/ops/test_half_train_ops.py",
    "tests/ops/test_conv_backward_half.py",
    "tests/ops/test_pool_half.py",
    "tests/ops/test_half_blocks.py",
    "tests/ops/test_lowp.py",
    "tests/targets/cpu/test_f16_blocks.py",
    "tests/train/test_amp_training.py",
    "tests/test_loss_scale.py",
    "tests/cache/test_half_keys.py",
    # the fusion passes' randomised graphs (hypothesis: fused vs unfused) and cross-process cache checks
    "tests/passes/test_epilogue.py",
    "tests/passes/test_reduce_fusion.py",
    # torch as the reference (imports torch, builds every layer's and op's gradient kernels)
    "tests/nn/test_layers_torch.py",
    "tests/ops/test_grads_torch.py",
    "tests/build/test_parallel_build.py",
    "tests/cache/test_concurrency.py",
    "tests/cache/test_crash.py",
    "tests/cache/test_degraded.py",
    "tests/cache/test_fuzz.py",
    "tests/cache/test_layout.py",
    "tests/cache/test_loadable.py",
    "tests/cache/test_repair.py",
    "tests/cache/test_soak.py",
    "tests/cli/test_explain_transfer_run.py",
    "tests/cli/test_ls_stats_info.py",
    "tests/cli/test_verify_prune_clear.py",
    "tests/distributed/test_mpi.py",
    "tests/onnx/test_cli.py",
    "tests/onnx/test_conformance.py",
    "tests/ops/test_grads.py",
    "tests/remote/test_faults.py",
    "tests/remote/test_outages.py",
    "tests/remote/test_ranks.py",
    "tests/remote/test_secrets.py",
    "tests/targets/cpu/test_openmp.py",
    "tests/targets/cpu/test_preload.py",
    "tests/test_bench_smoke.py",
    "tests/train/test_lenet_example.py",
    "tests/train/test_train_networks.py",
})


def pytest_ignore_collect(collection_path, config):
    """Under ``-m "not slow"`` the slow files are not even imported (some import torch or build fixtures at
    import time): deselecting them after collection would still pay for that."""
    if config.getoption("markexpr", "").replace(" ", "") == "notslow":
        try:
            rel = Path(collection_path).resolve().relative_to(REPO).as_posix()
        except ValueError:
            return None
        if rel in SLOW_FILES:
            return True
    return None


def pytest_collection_modifyitems(config, items):
    """Mark every test of :data:`SLOW_FILES` ``slow``."""
    for item in items:
        if Path(str(item.fspath)).resolve().relative_to(REPO).as_posix() in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _session_cache_root(tmp_path_factory):
    """Kernels built by op tests are shared across the whole run (fast), in a temporary root."""
    root = tmp_path_factory.mktemp("opbuild-cache")
    old = os.environ.get("OPBUILD_CACHE_PATH")
    os.environ["OPBUILD_CACHE_PATH"] = str(root)
    yield root
    if old is None:
        os.environ.pop("OPBUILD_CACHE_PATH", None)
    else:
        os.environ["OPBUILD_CACHE_PATH"] = old


# The cache, CLI, remote-tier and build tests are about cache mechanics: they count the kernels of small
# elementwise networks, which fusion (passes/fusion.py) would merge into one. They run unfused; fusion's own
# cache behaviour is tested in tests/passes/test_fusion.py.
_UNFUSED_DIRS = ("cache", "cli", "remote", "build")


@pytest.fixture(scope="module", autouse=True)
def _unfused_for_cache_mechanics(request):
    """OPBUILD_FUSION=0 for the test modules under :data:`_UNFUSED_DIRS` (and their subprocesses). Module
    scope: their module-scoped fixtures (a warm cache built once) must run unfused as well."""
    with pytest.MonkeyPatch.context() as mp:
        if Path(str(request.node.fspath)).relative_to(REPO / "tests").parts[0] in _UNFUSED_DIRS:
            mp.setenv("OPBUILD_FUSION", "0")
        yield


@contextlib.contextmanager
def execution_mode(name: str):
    """Switch to GRAPH_MODE ("graph") or PYNATIVE_MODE ("pynative") for the block, then restore the old mode."""
    import opbuild as ms

    old = ms.get_context("mode")
    ms.set_context(mode={"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}[name])
    try:
        yield name
    finally:
        ms.set_context(mode=old)


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    """Run the test once in each execution mode; the value is the mode's name."""
    with execution_mode(request.param) as name:
        yield name


@pytest.fixture
def graph_mode():
    """Run the test in GRAPH_MODE."""
    with execution_mode("graph"):
        yield


@pytest.fixture
def pynative_mode():
    """Run the test in PYNATIVE_MODE."""
    with execution_mode("pynative"):
        yield


def run_python(code_or_path: str, *args: str, env: dict | None = None, cwd: str | Path | None = None,
               timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    """Run Python code (or a script path) in a fresh interpreter with the given extra environment."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    cmd = [sys.executable, code_or_path, *args] if code_or_path.endswith(".py") else [sys.executable, "-c",
                                                                                       code_or_path, *args]
    proc = subprocess.run(cmd, env=full_env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc
