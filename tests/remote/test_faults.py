"""Faults of the shared tier never fail a run: a Redis server stopped mid-run, frozen, full or evicting, and
shared tiers that cannot be reached at all. Each run completes local-only with one warning."""

from __future__ import annotations

import time

import pytest

from ._job import Job, built, fetched
from ._net import DISTINCT_KERNELS

pytestmark = pytest.mark.slow

UNAVAILABLE = "is unavailable"


def _assert_local_only(result: dict) -> None:
    assert result["ok"], result["stderr"]
    assert built(result) == DISTINCT_KERNELS
    assert result["stderr"].count(UNAVAILABLE) == 1, result["stderr"]
    assert result["counters"]["remote_fallbacks"] == 1


def test_redis_stopped_mid_run_completes_local_only(own_redis, tmp_path):
    job = Job(tmp_path, own_redis.url(), OPBUILD_TEST_COMPILE_DELAY=1, OPBUILD_REMOTE_TIMEOUT=1)
    (rank,) = job.start([0], barrier=False)
    deadline = time.monotonic() + 60
    while not own_redis.client().keys("opbuild:2:*:lease:*"):  # compiling its first batch, leases held
        assert rank.proc.poll() is None and time.monotonic() < deadline, rank.err_path.read_text()
        time.sleep(0.02)
    own_redis.stop()
    result = rank.result(timeout=60)
    _assert_local_only(result)


def test_frozen_redis_times_out_and_goes_local_only(own_redis, tmp_path):
    job = Job(tmp_path, own_redis.url(), OPBUILD_REMOTE_TIMEOUT=0.5)
    own_redis.pause()
    try:
        (result,) = job.run([0])
    finally:
        own_redis.resume()
    _assert_local_only(result)
    assert "0.5 s (OPBUILD_REMOTE_TIMEOUT)" in result["stderr"] or "Timeout" in result["stderr"]


def test_full_redis_goes_local_only(own_redis, tmp_path):
    client = own_redis.client()
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", client.info("memory")["used_memory"] + 20_000)  # ~one entry fits
    (result,) = Job(tmp_path, own_redis.url()).run([0])
    _assert_local_only(result)
    assert "maxmemory" in result["stderr"]  # Redis's OOM error names it


def test_redis_eviction_only_causes_rebuilds(own_redis, tmp_path):
    job = Job(tmp_path, own_redis.url())
    (first,) = job.run([0])
    assert first["ok"] and built(first) == DISTINCT_KERNELS
    # Real eviction: lower maxmemory under what the entries use, let Redis evict (LRU), then lift the limit.
    client = own_redis.client()
    client.config_set("maxmemory-policy", "allkeys-lru")
    client.config_set("maxmemory", client.info("memory")["used_memory"] - 100_000)
    client.set("poke", "x")  # eviction runs before a command is processed
    client.config_set("maxmemory", 0)
    assert client.info("stats")["evicted_keys"] > 0
    left = len(client.keys("opbuild:2:*:entry:*"))
    assert 0 < left < DISTINCT_KERNELS
    (second,) = job.run([1])
    assert second["ok"] and UNAVAILABLE not in second["stderr"]
    assert fetched(second) == left and built(second) == DISTINCT_KERNELS - left


def test_unreachable_shared_tiers_go_local_only(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    for url in ((blocker / "shared").as_uri(), "redis://127.0.0.1:9/0"):  # ENOTDIR; connection refused
        job_dir = tmp_path / url.split(":")[0]
        job_dir.mkdir()
        (result,) = Job(job_dir, url).run([0], barrier=False)
        _assert_local_only(result)
