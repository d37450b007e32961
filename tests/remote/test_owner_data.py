"""Lease owners and temporaries of a shared tier are parsed as data (issue 23, point 3): a lease held by
``<this host>:99999999999999999999:<token>`` or a temporary with such a pid is foreign (waited out, swept by
age), never an ``OverflowError`` that stops every cold build of every rank."""

from __future__ import annotations

import json
import os
import time

from opbuild.cache import fsio
from opbuild.cache.shared import open_backend
from opbuild.cache.shared.tier import _HOST, SharedTier

HUGE = "99999999999999999999"


def _plant_lease(backend, name: str, owner: str, expires_in: float) -> None:
    backend._setup()
    (backend.leases / f"{name}.lease").write_text(json.dumps({"owner": owner, "expires": time.time() + expires_in}))


def test_a_live_lease_with_a_huge_pid_is_busy_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.delenv("OPBUILD_CACHE_SECRET", raising=False)
    url = (tmp_path / "shared").as_uri()
    shared = SharedTier.open(url)
    for i, owner in enumerate((f"{_HOST}:{HUGE}:abcdef", f"{_HOST}:-3:abcdef", f"{_HOST}:0:ab", ["x"], 7)):
        name = f"relu_{i:032x}"
        _plant_lease(shared.backend, name, owner, 60)
        claim = shared.claim([(name, b"{}")])
        assert claim.busy == [name] and claim.leased == [], owner  # held by someone unknown: wait, never kill


def test_an_expired_lease_with_a_huge_pid_is_taken_over(tmp_path, monkeypatch):
    monkeypatch.delenv("OPBUILD_CACHE_SECRET", raising=False)
    shared = SharedTier.open((tmp_path / "shared").as_uri())
    name = "relu_" + "0" * 32
    _plant_lease(shared.backend, name, f"{_HOST}:{HUGE}:abcdef", -1)
    claim = shared.claim([(name, b"{}")])
    assert claim.leased == [name]
    shared.release([name])


def test_directory_temporaries_with_huge_pids_are_swept_by_age_only(tmp_path):
    backend = open_backend((tmp_path / "shared").as_uri())
    backend.entries.mkdir(parents=True)
    fresh = backend.entries / f".tmp.{fsio._HOST}.{HUGE}.0123abcd.k.entry"
    old = backend.entries / f".tmp.{fsio._HOST}.{HUGE}.0123abcd.j.entry"
    fresh.write_bytes(b"x")
    old.write_bytes(b"x")
    os.utime(old, (0, 0))
    backend.put("k", b"blob")  # sets the layout up, sweeping stale temporaries
    assert fresh.exists() and not old.exists()
    assert backend.get("k") == b"blob"
