"""Run rank processes (tests/remote/_rank.py) of one job: a cache root with one local tier per rank, and
one shared tier."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from opbuild.cache.local import KernelStore

from ..helpers import with_test_hooks

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("_rank.py")


class Rank:
    """A running rank process; :meth:`result` waits for it and returns its JSON result plus its stderr."""

    def __init__(self, job: Job, rank: int, env: dict, barrier: Path | None):
        self.rank = rank
        self.out = job.tmp / f"result.{rank}.{time.monotonic_ns()}.json"
        self.err_path = self.out.with_suffix(".stderr")
        full = {k: v for k, v in os.environ.items() if not k.startswith(("OPBUILD_", "RANK_", "MS_COMPILER"))}
        full.update({"PYTHONPATH": str(REPO / "src"), "OPBUILD_CACHE_PATH": str(job.root), "RANK_ID": str(rank),
                     "RANK_SIZE": "4", "OPBUILD_REMOTE_CACHE": job.url, "OPBUILD_BUILD_JOBS": "1",
                     "OPBUILD_PROGRESS": "0",
                     # The rank tests count the kernels of small elementwise networks one by one: unfused.
                     "OPBUILD_FUSION": "0"})
        if barrier is not None:
            full["RANK_BARRIER"] = str(barrier)
        # OPBUILD_TEST_COMPILE_DELAY is a test hook, patched in from tests/; a variable given as None is unset
        full = with_test_hooks(full, **{k: v for k, v in env.items() if v is not None})
        full = {k: v for k, v in full.items() if env.get(k, "") is not None}
        with open(self.err_path, "w") as err:  # the child keeps its own descriptor
            self.proc = subprocess.Popen([sys.executable, str(WORKER), str(self.out)], env=full,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def result(self, timeout: float = 150) -> dict:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"rank {self.rank} hung (> {timeout} s):\n{self.err_path.read_text()}") from None
        stderr = self.err_path.read_text()
        assert code == 0, f"rank {self.rank} exited with {code}:\n{stderr}"
        result = json.loads(self.out.read_text())
        result["stderr"] = stderr
        return result

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


class Job:
    """Ranks sharing the shared tier at ``url``; their local tiers live under ``tmp/cache``."""

    def __init__(self, tmp: Path, url: str, **env):
        self.tmp = tmp
        self.root = tmp / "cache"
        self.url = url
        self.env = env

    def local(self, rank: int) -> Path:
        return self.root / f"rank_{rank}" / "kernel_meta"

    def start(self, ranks, barrier: bool = True, before_go=None, **env) -> list[Rank]:
        """Start ``ranks``; with ``barrier`` they begin building together, once all have imported opbuild
        (and ``before_go()`` has run)."""
        gate = None
        if barrier:
            gate = self.tmp / f"barrier.{time.monotonic_ns()}"
            gate.mkdir()
        procs = [Rank(self, r, {**self.env, **env}, gate) for r in ranks]
        if gate is not None:
            deadline = time.monotonic() + 120
            while not all((gate / f"ready.{p.rank}").exists() for p in procs):
                dead = [p for p in procs if p.proc.poll() is not None]
                if dead or time.monotonic() > deadline:
                    for p in procs:
                        p.kill()
                    raise AssertionError("a rank did not reach the barrier: " + dead[0].err_path.read_text()
                                         if dead else "ranks did not reach the barrier in 120 s")
                time.sleep(0.01)
            if before_go is not None:
                before_go()
            (gate / "go").touch()
        return procs

    def run(self, ranks, barrier: bool = True, before_go=None, **env) -> list[dict]:
        """Run ``ranks`` together to completion; their results in rank order."""
        return [p.result() for p in self.start(ranks, barrier, before_go, **env)]


def kernel_names() -> set[str]:
    """The cache names of ChainNet's kernels, computed in this process (nothing is built)."""
    import opbuild as ms
    from opbuild.builder import Builder
    from opbuild.core import trace

    from ._net import ChainNet, inputs

    graph, _ = trace.trace(ChainNet().construct, [ms.Tensor(x) for x in inputs()])
    builder = Builder()
    return {builder.request(node.spec).name for node in graph.nodes}


def built(result: dict) -> int:
    return result["report"]["built"]


def fetched(result: dict) -> int:
    return sum(1 for k in result["report"]["kernels"] if k["source"] == "remote")


def names(result: dict) -> set[str]:
    return {k["name"] for k in result["report"]["kernels"]}


def sources(result: dict) -> dict[str, str]:
    return {k["name"]: k["source"] for k in result["report"]["kernels"]}


def assert_local_complete(kernel_meta: Path, kernels: set[str]) -> None:
    """Every kernel has a committed, verifiable entry in ``kernel_meta`` (checked independently of the
    build driver: the .info hashes to the name, and KernelStore.lookup verifies .json and binary sha256)."""
    store = KernelStore(kernel_meta, create=False)
    for name in kernels:
        info = (kernel_meta / f"{name}.info").read_bytes()
        assert hashlib.sha256(info).hexdigest()[:32] == name.rsplit("_", 1)[1], name
        found = store.lookup(name, info)
        assert found.status == "hit", (name, found.reason)


def entry_sha(kernel_meta: Path, name: str) -> str:
    """sha256 of an entry's binary as actually on disk."""
    return hashlib.sha256((kernel_meta / f"{name}.so").read_bytes()).hexdigest()
