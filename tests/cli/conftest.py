"""Fixtures of the CLI tests: run the real ``opbuild`` command in subprocesses against caches filled by a
small elementwise network (Square, Add, Exp) that also runs in subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
NET = Path(__file__).with_name("elementwise_net.py")
# Variables that would change what the command does; each test sets what it needs.
_SCRUB = ("OPBUILD_CACHE_PATH", "MS_COMPILER_CACHE_PATH", "RANK_ID", "OPBUILD_CACHE_MAX_SIZE",
          "OPBUILD_EXPLAIN_MISSES", "OPBUILD_CACHE", "OPBUILD_BUILD_JOBS", "OPBUILD_BATCH_MIN")


def child_env(root: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a child process: this checkout's sources first on PYTHONPATH, a cache root."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])
    # One compile per kernel (no batches): each entry then owns its binary, which keeps size arithmetic in
    # the tests simple; test_hard_linked_batches covers binaries shared by a batch.
    env["OPBUILD_BUILD_JOBS"] = "8"
    env["OPBUILD_BATCH_MIN"] = "1"  # even for builds of a few kernels
    if root is not None:
        env["OPBUILD_CACHE_PATH"] = str(root)
    env.update(extra)
    return env


#: The OPBUILD_CACHE_SECRET the warm cache is signed with, and archives are signed with and checked against.
SECRET = {"OPBUILD_CACHE_SECRET": "the CLI tests' team secret"}


def run_cli(*args: str, root: Path | None = None, input: str | None = None, env: dict | None = None,
            module: str = "opbuild", timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m opbuild ARGS`` (the console script's code) with the cache root ``root``."""
    full_env = child_env(root, **(env or {}))
    return subprocess.run([sys.executable, "-m", module, *args], env=full_env, input=input,
                          capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())


def run_json(*args: str, root: Path | None = None, expect: int = 0, **kw) -> dict:
    """Run with ``--json`` and return the parsed output, asserting the exit code."""
    proc = run_cli(*args, "--json", root=root, **kw)
    assert proc.returncode == expect, f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return json.loads(proc.stdout)


def run_net(root: Path, n: int, dtype: str = "float32", *extra: str, env: dict | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
    """Run the elementwise network for shape (n,) with cache root ``root``."""
    proc = subprocess.run([sys.executable, str(NET), str(n), dtype, *extra],
                          env=child_env(root, **(env or {})), capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, f"network failed:\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def kernel_meta(root: Path, rank: int = 0) -> Path:
    return root / f"rank_{rank}" / "kernel_meta"


def names(root: Path, rank: int = 0) -> set[str]:
    """Committed entries of a cache root."""
    return {p.stem for p in kernel_meta(root, rank).glob("*.json") if not p.name.startswith(".")}


@pytest.fixture(scope="session")
def warm_root(tmp_path_factory) -> Path:
    """A cache root with 9 kernels: Square/Add/Exp for float32 (3,), float32 (4,) and float64 (5,), signed
    under :data:`SECRET` (what an export under it requires; processes without the secret read them by
    checksum). Read-only for tests: copy it (``cache``) before changing anything."""
    root = tmp_path_factory.mktemp("warm-cache")
    # Session scope: built before the module-scoped OPBUILD_FUSION=0 of tests/conftest.py applies, so unfused
    # here too (the CLI tests count these nine kernels one by one).
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPBUILD_FUSION", "0")
        for n, dtype in ((3, "float32"), (4, "float32"), (5, "float64")):
            run_net(root, n, dtype, env=SECRET)
    assert len(names(root)) == 9
    return root


@pytest.fixture
def cache(warm_root, tmp_path) -> Path:
    """A private copy of the warm cache root (cheap: no compiles)."""
    root = tmp_path / "cache"
    shutil.copytree(warm_root, root, symlinks=True)
    return root
