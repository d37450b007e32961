"""Single flight under OPBUILD_CACHE_SECRET: concurrent processes sharing one secret and one cache still
compile each distinct kernel exactly once, and every entry they leave is signed with it and sound."""

from __future__ import annotations

import json

import pytest

from opbuild.cache import signing
from opbuild.cache.admin.verify import verify
from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, popen_worker

pytestmark = pytest.mark.slow

NET = _net.branches([3, 4, 5])  # 15 kernels
SECRET = "the concurrency test's secret"


def test_four_processes_with_the_secret_build_each_kernel_once(tmp_path):
    env = env_for(tmp_path, OPBUILD_CACHE_SECRET=SECRET)
    procs = [popen_worker({"net": NET, "seed": i}, env) for i in range(4)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"worker failed ({proc.returncode}):\n{out}\n{err}"
        results.append(json.loads(out.strip().splitlines()[-1]))
    reports = [r["report"] for r in results]
    kernels = len(_net.expected_kernels(NET))
    assert sum(r["built"] for r in reports) == kernels, [(r["built"], r["reused"]) for r in reports]
    assert all(r["repaired"] == 0 and r["built"] + r["reused"] == kernels for r in reports)
    assert all(r["warnings"] == [] for r in results)  # nobody refused anybody's entry
    km = kernel_meta(tmp_path)
    key = signing.key_id(SECRET.encode())
    assert len(committed(km)) == kernels
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) == key for n in committed(km))
    assert verify(km, secret=SECRET.encode()).problems == []
