"""Ranks with different OPBUILD_CACHE_SECRET values, and hostile entry blobs: nothing is loaded that does not
verify, nothing aborts a build, a misconfigured rank never spoils the good entries, and it is told how to fix
itself."""

from __future__ import annotations

import logging
import os
import re

import pytest

from opbuild.cache import stats
from opbuild.cache.shared import open_backend
from opbuild.cache.shared.entry import MAGIC, key_id, pack, unpack
from opbuild.cache.shared.tier import SharedTier

from ..conftest import run_python
from ._elf import shared_object
from ._job import Job, built, fetched, names
from ._net import DISTINCT_KERNELS

pytestmark = pytest.mark.slow

GOOD, WRONG = "the job's secret", "a typo in the job's secret"
CLI = "import sys; from opbuild.cli import main; sys.exit(main())"  # `opbuild ...` in a fresh interpreter
FIX = "Set the same OPBUILD_CACHE_SECRET on every rank"
INFO = {f"k{i}": f'{{"kernel":{i}}}\n'.encode() for i in range(3)}
WANTED = list(INFO.items())


def test_a_rank_with_a_wrong_secret_never_spoils_the_good_entries(shared, tmp_path):
    job = Job(tmp_path, shared.url, OPBUILD_CACHE_SECRET=GOOD)
    (first,) = job.run([0])
    assert first["ok"] and built(first) == DISTINCT_KERNELS and FIX not in first["stderr"]
    good = {n: shared.raw_get(n, key_id(GOOD.encode())) for n in names(first)}
    assert all(good.values())

    (wrong,) = job.run([1], OPBUILD_CACHE_SECRET=WRONG)  # misconfigured: builds and publishes its own
    assert wrong["ok"] and built(wrong) == DISTINCT_KERNELS and fetched(wrong) == 0
    assert wrong["stderr"].count(FIX) == 1, wrong["stderr"]  # once, saying how to fix it
    assert f"under key id {key_id(GOOD.encode())}" in wrong["stderr"]
    assert wrong["counters"]["remote_published"] == DISTINCT_KERNELS
    assert shared.entry_count(key_id(WRONG.encode())) == DISTINCT_KERNELS

    # the good entries are untouched, and correctly configured ranks reuse them all, rebuilding nothing
    assert {n: shared.raw_get(n, key_id(GOOD.encode())) for n in good} == good
    for r in job.run([2, 3]):
        assert r["ok"] and built(r) == 0 and fetched(r) == DISTINCT_KERNELS, r["report"]
        assert r["counters"]["remote_rejected"] == 0 and FIX not in r["stderr"]
    # `opbuild cache stats` of a good rank says whose entries it counts, and that another secret has some too
    env = {"OPBUILD_CACHE_PATH": str(job.root), "RANK_ID": "2", "OPBUILD_REMOTE_CACHE": shared.url,
           "OPBUILD_CACHE_SECRET": GOOD}
    text = run_python(CLI, "cache", "stats", env=env).stdout
    assert (f"{DISTINCT_KERNELS} entries" in text and f"(key id {key_id(GOOD.encode())}; entries under other key "
            f"ids too: {key_id(WRONG.encode())})" in text), text


def test_a_rank_without_a_secret_is_told_too(shared, tmp_path):
    job = Job(tmp_path, shared.url, OPBUILD_CACHE_SECRET=GOOD)
    job.run([0])
    (unsigned,) = job.run([1], OPBUILD_CACHE_SECRET=None)  # unset (set but empty is a ConfigError)
    assert unsigned["ok"] and built(unsigned) == DISTINCT_KERNELS
    assert unsigned["stderr"].count(FIX) == 1 and "this rank has no OPBUILD_CACHE_SECRET" in unsigned["stderr"]


def _tier(url: str, secret: bytes | None) -> SharedTier:
    return SharedTier(url, open_backend(url, namespace=key_id(secret)), timeout=2, lease_ttl=30, secret=secret)


NESTED = b"[" * 100_000 + b"\n"


@pytest.mark.parametrize("secret", [None, b"s3cret"], ids=["unsigned", "signed"])
def test_hostile_blobs_are_misses_and_are_replaced(shared, secret, caplog):
    key = key_id(secret)
    hostile = {
        "k0": MAGIC + key.encode() + b" " + b"0" * 64 + b"\n" + NESTED,  # nested header under a forged tag
        "k1": pack("k1", INFO["k1"], b"x", {}, secret)[:-1],  # truncated
        "k2": b"\x00" * 10_000,
    }
    for name, blob in hostile.items():
        shared.raw_put(name, blob, key)
    tier = _tier(shared.url, secret)
    with caplog.at_level(logging.WARNING, logger="opbuild"):
        assert tier.fetch(WANTED) == {}  # rejected, never an exception
    assert tier.counters.totals()["remote_rejected"] == 3 and tier.ok
    tier.publish(shared_object(*INFO), [(n, i, {}) for n, i in WANTED])  # what the build does next: replaces them
    for name, info in WANTED:
        assert unpack(shared.raw_get(name, key), name, info, secret).binary == shared_object(*INFO)
    assert set(_tier(shared.url, secret).fetch(WANTED)) == set(INFO)


def test_special_files_in_a_directory_tier_are_rejected_entries(tmp_path):
    root = tmp_path / "shared"
    tier = _tier(root.as_uri(), None)
    tier.publish(shared_object(*INFO), [("k2", INFO["k2"], {})])
    entries = root / "v2" / "unsigned" / "entries"
    os.mkfifo(entries / "k0.entry")  # reading it must not wait for a writer
    (entries / "k1.entry").symlink_to(entries / "k2.entry")  # never followed
    assert set(tier.fetch(WANTED)) == {"k2"}
    assert tier.counters.totals()["remote_rejected"] == 2 and tier.ok  # damage, not an outage
    tier.publish(shared_object(*INFO), [("k0", INFO["k0"], {}), ("k1", INFO["k1"], {})])
    assert set(_tier(root.as_uri(), None).fetch(WANTED)) == set(INFO)
    assert not (entries / "k1.entry").is_symlink()


def test_a_fetch_is_one_fetch_in_the_statistics(shared, tmp_path):
    job = Job(tmp_path, shared.url)
    job.run([0])
    (second,) = job.run([1])  # empty local cache: everything comes from the shared tier
    assert fetched(second) == DISTINCT_KERNELS and built(second) == 0
    counters = stats.read(job.local(1))["counters"]
    assert counters["remote_hits"] == DISTINCT_KERNELS
    assert (counters["hits"], counters["misses"], counters["builds"]) == (0, 0, 0)
    assert counters["saved_seconds"] > 0  # their compile time was still saved
    env = {"OPBUILD_CACHE_PATH": str(job.root), "RANK_ID": "1", "OPBUILD_REMOTE_CACHE": shared.url}
    text = run_python(CLI, "cache", "stats", env=env).stdout
    assert re.search(r"^hits +0$", text, re.M) and re.search(r"^misses +0$", text, re.M), text
    assert re.search(rf"^shared hits +{DISTINCT_KERNELS}$", text, re.M), text
    assert re.search(r"^hit rate +100.0 %$", text, re.M), text
    (third,) = job.run([1])  # the fetched entries are local now: plain local hits
    counters = stats.read(job.local(1))["counters"]
    assert (counters["hits"], counters["misses"], counters["remote_hits"]) == (DISTINCT_KERNELS, 0, DISTINCT_KERNELS)
