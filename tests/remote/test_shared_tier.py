"""SharedTier (the policy layer over a backend) in one process, two tiers standing for two processes."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time

import pytest

from opbuild.cache.shared import open_backend
from opbuild.cache.shared.entry import key_id, pack
from opbuild.cache.shared.tier import SharedTier
from tests.remote._elf import shared_object

INFO = {f"k{i}": f'{{"kernel":{i}}}\n'.encode() for i in range(4)}
WANTED = list(INFO.items())


def _tier(url: str, lease_ttl: float = 30, timeout: float = 2, secret: bytes | None = None) -> SharedTier:
    return SharedTier(url, open_backend(url, timeout=timeout, namespace=key_id(secret)), timeout=timeout,
                      lease_ttl=lease_ttl, secret=secret)


def test_claim_publish_fetch_between_two_processes(shared):
    a, b = _tier(shared.url), _tier(shared.url)
    assert a.fetch(WANTED) == {}
    claim = a.claim(WANTED[:2])
    assert claim.leased == ["k0", "k1"] and not claim.busy and not claim.found
    claim = b.claim(WANTED)
    assert claim.busy == ["k0", "k1"] and claim.leased == ["k2", "k3"]
    a.publish(shared_object("k0", "k1"), [("k0", INFO["k0"], {"op": "X"}), ("k1", INFO["k1"], {"op": "X"})])
    a.release(["k0", "k1"])
    claim = b.claim(WANTED[:2])  # published and released meanwhile: fetched, not leased
    assert set(claim.found) == {"k0", "k1"} and not claim.leased and not claim.busy
    assert claim.found["k0"].binary == shared_object("k0", "k1") and claim.found["k0"].meta["fetched_from"] == a.url
    assert shared.lease_count() == 2  # b's k2, k3
    b.release(["k2", "k3"])
    assert shared.lease_count() == 0
    assert a.counters.totals()["remote_published"] == 2 and b.counters.totals()["lease_waits"] == 2


def test_held_leases_are_renewed_while_building(shared):
    a, b = _tier(shared.url, lease_ttl=0.6), _tier(shared.url, lease_ttl=0.6)
    assert a.claim(WANTED[:1]).leased == ["k0"]
    time.sleep(1.5)  # well past the TTL: a's renewer kept it
    assert b.claim(WANTED[:1]).busy == ["k0"]
    a.release(["k0"])
    assert b.claim(WANTED[:1]).leased == ["k0"]


def test_lease_of_a_dead_process_on_this_host_is_taken_over_at_once(shared):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = _tier(shared.url).owner.rsplit(":", 2)[0]  # host name and PID namespace
    assert host.startswith(socket.gethostname())
    owner = f"{host}:{int(dead.stdout)}:gone"
    backend = open_backend(shared.url)
    assert backend.acquire("k0", owner, 60) == owner
    alive = f"{host}:{os.getpid()}:alive"
    assert backend.acquire("k1", alive, 60) == alive
    claim = _tier(shared.url).claim(WANTED[:2])
    assert claim.leased == ["k0"] and claim.busy == ["k1"]


def test_rejected_entries_are_logged_once_and_not_returned(shared, caplog):
    backend = open_backend(shared.url, namespace=key_id(b"s"))
    backend.put("k0", pack("k0", INFO["k0"], shared_object("k0"), {}, secret=None))  # unsigned, planted
    backend.put("k1", pack("k1", INFO["k1"], shared_object("k1"), {}, secret=b"s"))
    tier = _tier(shared.url, secret=b"s")
    with caplog.at_level(logging.WARNING, logger="opbuild"):
        assert set(tier.fetch(WANTED)) == {"k1"}
        assert set(tier.fetch(WANTED)) == {"k1"}
    messages = [r.getMessage() for r in caplog.records]
    assert [m for m in messages if "rejected shared-cache entry" in m] == [
        f"opbuild: rejected shared-cache entry k0 from {tier.url}: entry is not signed (OPBUILD_CACHE_SECRET "
        f"is set); it was not loaded and is rebuilt here"]
    # an unsigned entry among signed ones: one warning says how to fix the configuration
    assert len([m for m in messages if "Set the same OPBUILD_CACHE_SECRET on every rank" in m]) == 1
    assert tier.counters.totals()["remote_rejected"] == 1


def test_frozen_server_costs_one_timeout_then_local_only(own_redis, caplog):
    tier = _tier(own_redis.url(), timeout=0.3)
    assert tier.claim(WANTED[:1]).leased == ["k0"]
    own_redis.pause()
    try:
        with caplog.at_level(logging.WARNING, logger="opbuild"):
            t0 = time.monotonic()
            assert tier.fetch(WANTED) == {}
            assert time.monotonic() - t0 < 2
            t0 = time.monotonic()
            # off: every answer is local-only and immediate
            assert tier.claim(WANTED).leased == list(INFO) and tier.fetch(WANTED) == {}
            tier.publish(b"x", [("k0", INFO["k0"], {})])
            tier.release(["k0"])
            assert time.monotonic() - t0 < 0.1
    finally:
        own_redis.resume()
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "is unavailable" in warnings[0]
    assert "OPBUILD_REMOTE_TIMEOUT" in warnings[0] or "Timeout" in warnings[0]  # our guard or the client's
    assert tier.counters.totals()["remote_fallbacks"] == 1


@pytest.mark.parametrize(("rank", "start"), [(0, 0), (1, 2), (2, 4), (3, 6)])
def test_ranks_start_cold_builds_at_different_points(shared, monkeypatch, rank, start):
    monkeypatch.setenv("RANK_ID", str(rank))
    monkeypatch.setenv("RANK_SIZE", "4")
    work = list(range(8))
    assert _tier(shared.url).order(work) == work[start:] + work[:start]


def test_report_sources_are_opt_in_in_as_dict():
    from opbuild.report import BuildReport, KernelRecord

    report = BuildReport([KernelRecord("a", "Neg", "reused", 0.1, "remote"), KernelRecord("b", "Neg", "built", 0.2,
                                                                                         "compiled")], 0.3)
    assert report.as_dict() == {"built": 1, "reused": 1, "repaired": 0, "seconds": 0.3, "kernels": [
        {"name": "a", "op": "Neg", "status": "reused", "seconds": 0.1},
        {"name": "b", "op": "Neg", "status": "built", "seconds": 0.2}]}
    detailed = report.as_dict(sources=True)
    assert detailed["fetched"] == 1 and [k["source"] for k in detailed["kernels"]] == ["remote", "compiled"]
    assert report.summary() == "2 kernels: 1 reused (1 from the shared cache), 1 built (0.30 s)"
