"""Helpers shared by the cache tests: run the worker in a fresh interpreter, verify a kernel_meta directory
independently of opbuild's own reader, and small file utilities."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import run_python

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "_worker.py")
HASH_CHARS = 32


def env_for(root: Path | str | None, **extra: str) -> dict:
    """Environment of a worker: cache root ``root`` (None: OPBUILD_CACHE_PATH empty, which means unset), rank
    unset, two build jobs busy even for a few kernels (OPBUILD_BATCH_MIN=1: the crash and concurrency tests
    count on several batches, or one per kernel with as many jobs), no CC / OPBUILD_CFLAGS, plus ``extra``."""
    env = {"RANK_ID": "", "OPBUILD_BUILD_JOBS": "2", "OPBUILD_BATCH_MIN": "1", "MS_COMPILER_CACHE_PATH": "",
           "OPBUILD_CACHE": "", "OPBUILD_CFLAGS": "", "CC": ""}
    env["OPBUILD_CACHE_PATH"] = "" if root is None else str(root)
    env.update(extra)
    return env


def run_clean(args: list[str], cwd: Path | str, unset: tuple[str, ...] = (), timeout: float = 120,
              **env: str) -> subprocess.CompletedProcess:
    """Run ``python *args`` with the variables in ``unset`` removed from the environment (not just empty)."""
    full = {k: v for k, v in os.environ.items() if k not in unset}
    full.update(env)
    proc = subprocess.run([sys.executable, *args], env=full, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def run_worker(cfg: dict, env: dict, cwd: Path | str | None = None, timeout: float = 120) -> dict:
    """Run tests/cache/_worker.py with ``cfg`` and return its JSON result (raises if it fails)."""
    proc = run_python(WORKER, json.dumps(cfg), env=env, cwd=cwd, timeout=timeout)
    # Not even at exit (statistics flush, cleanup) may anything blow up behind the run's back.
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def popen_worker(cfg: dict, env: dict, **kwargs) -> subprocess.Popen:
    """Start the worker in its own session (so the whole group, compilers included, can be killed)."""
    full = dict(os.environ)
    full.update(env)
    return subprocess.Popen([sys.executable, WORKER, json.dumps(cfg)], env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)


def kernel_meta(root: Path, rank: int = 0) -> Path:
    return Path(root) / f"rank_{rank}" / "kernel_meta"


def committed(km: Path) -> list[str]:
    """Names of the entries committed by a .json (dot files such as the compiler memo are not entries)."""
    return sorted(p.name[:-5] for p in Path(km).glob("*.json") if not p.name.startswith("."))


def verify_cache(km: Path) -> list[str]:
    """Problems of a kernel_meta directory, checked without opbuild's code: every .json-committed entry must
    have its .info (hashing to the name) and its binary (size and sha256 as recorded); no temporary and no
    uncommitted part (.so or .info without .json) may be left; and ``opbuild cache verify`` must find no
    problem either. Returns [] for a clean cache."""
    km = Path(km)
    problems = []
    for name in committed(km):
        js = km / f"{name}.json"
        try:
            meta = json.loads(js.read_bytes())
        except ValueError as e:
            problems.append(f"{name}: unparsable .json ({e})")
            continue
        info = km / (name + ".info")
        if not info.is_file():
            problems.append(f"{name}: .info missing")
        elif hashlib.sha256(info.read_bytes()).hexdigest()[:HASH_CHARS] != name.rsplit("_", 1)[1]:
            problems.append(f"{name}: .info does not hash to the name")
        binary = km / (name + ".so")
        if meta.get("binary") != name + ".so":
            problems.append(f"{name}: .json names binary {meta.get('binary')!r}")
        if not binary.is_file():
            problems.append(f"{name}: binary missing")
            continue
        data = binary.read_bytes()
        if len(data) != meta.get("size") or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            problems.append(f"{name}: binary does not match its .json")
    tmps = list(km.iterdir()) + (list((km / ".tmp").iterdir()) if (km / ".tmp").is_dir() else [])
    problems += [f"stray temporary {p.name}" for p in tmps if p.name.startswith(".tmp.")]
    problems += [f"half-written entry: {p.name} without .json" for p in km.iterdir()
                 if p.suffix in (".so", ".info") and not p.with_suffix(".json").exists()]
    # And opbuild's own verifier (``opbuild cache verify``) must agree that nothing is wrong.
    from opbuild.cache.admin.verify import verify

    problems += [f"opbuild verify: {p.kind} {p.path}: {p.detail}" for p in verify(km).problems]
    return problems


def copy_cache(src_root: Path, dst_root: Path) -> Path:
    """Copy a whole cache root; returns the copy's rank_0/kernel_meta."""
    shutil.copytree(src_root, dst_root, symlinks=True)
    return kernel_meta(dst_root)


def statuses(result: dict) -> dict[str, str]:
    """kernel name -> status of a worker's build report."""
    return {k["name"]: k["status"] for k in result["report"]["kernels"]}
