"""Shared fixtures. Every test run uses a private cache root so the suite never writes ./rank_0."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]

# The suite is hermetic: opbuild settings exported in the developer's shell (a cache secret, a shared tier, a
# rank, a compiler) would change what the cache tests see (e.g. entries refused as unsigned). They are removed
# before opbuild is imported; tests set what they need themselves. The report header names what was removed.
_CLEARED_ENV = {k: os.environ.pop(k) for k in [k for k in os.environ
                                               if k.startswith("OPBUILD_") or k in ("RANK_ID", "RANK_SIZE")]}


def pytest_report_header(config):
    if _CLEARED_ENV:
        return f"opbuild settings from the environment, cleared for the tests: {', '.join(sorted(_CLEARED_ENV))}"
    return None

# Property tests are reproducible: every run draws the same examples (derandomize: the seed comes from the test's
# name) and nothing is read from or written to an example database, so the README's test command passes or fails
# the same way on every machine. HYPOTHESIS_PROFILE=explore draws fresh examples when hunting for new cases.
settings.register_profile("opbuild", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", derandomize=False, database=None, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "opbuild"))

# Test files that spawn processes, kill them, run many ranks, walk ONNX's whole node-test suite or soak the
# cache mark themselves slow with a module-level ``pytestmark`` (``pytest.mark.slow`` alone or in a list), so
# ``pytest -m "not slow"`` is the everyday subset (about two minutes on a 2-core machine). The README's test
# command, and CI, run everything. Chosen from ``pytest --durations=0`` per file.
_SLOW_MARK = re.compile(r"^pytestmark = (\[.*)?pytest\.mark\.slow\b", re.M)


def is_slow_file(path: Path) -> bool:
    """Whether the test file at ``path`` marks itself slow (read as text: the marker is a module-level line)."""
    try:
        return bool(_SLOW_MARK.search(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return False


def pytest_ignore_collect(collection_path, config):
    """Under ``-m "not slow"`` the slow files are not even imported (some import torch or build fixtures at
    import time): deselecting them after collection would still pay for that."""
    path = Path(collection_path)
    if (config.getoption("markexpr", "").replace(" ", "") == "notslow" and path.suffix == ".py"
            and path.name.startswith("test_") and is_slow_file(path)):
        return True
    return None


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
_UNFUSED_DIRS = ("cache", "cli", "remote", "builder")


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
