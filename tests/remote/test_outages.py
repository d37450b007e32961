"""A shared tier that fails is skipped for a while and tried again (exponential backoff), with one warning
per outage: a Redis server stopped then restarted, a shared directory that disappears then comes back."""

from __future__ import annotations

import logging
import time

import pytest

from opbuild.cache.shared import open_backend
from opbuild.cache.shared.backoff import Backoff
from opbuild.cache.shared.tier import SharedTier
from tests.remote._elf import shared_object

pytestmark = pytest.mark.slow

INFO = {f"k{i}": f'{{"kernel":{i}}}\n'.encode() for i in range(2)}
WANTED = list(INFO.items())
PAUSE = 0.3


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_backoff_doubles_to_its_bound_and_resets_on_success():
    clock = Clock()
    b = Backoff(1.0, 8.0, clock)
    assert b.ready() and not b.outage
    pauses = []
    for _ in range(6):
        started, pause = b.failed()
        pauses.append(pause)
        assert not b.ready()  # skipped for the whole pause ...
        clock.now += pause - 0.01
        assert not b.ready()
        clock.now += 0.01
        assert b.ready()  # ... then tried again
        assert started == (len(pauses) == 1)  # one outage, however many retries fail
    assert pauses == [1, 2, 4, 8, 8, 8]
    assert b.succeeded() and not b.outage and not b.succeeded()
    assert b.failed() == (True, 1.0)  # a new outage starts from the first pause again


def _tier(url: str) -> SharedTier:
    return SharedTier(url, open_backend(url, timeout=0.5), timeout=0.5, lease_ttl=30, secret=None,
                      backoff=Backoff(PAUSE, 2 * PAUSE))


def _messages(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _outage_then_recovery(tier: SharedTier, break_it, fix_it, caplog) -> None:
    tier.publish(shared_object(*INFO), [("k0", INFO["k0"], {})])
    assert set(tier.fetch(WANTED)) == {"k0"}
    with caplog.at_level(logging.WARNING, logger="opbuild"):
        break_it()
        for _ in range(3):  # the first call fails; the tier is skipped, then retried (and fails again)
            assert tier.fetch(WANTED) == {}
            t0 = time.monotonic()
            assert tier.fetch(WANTED) == {} and tier.claim(WANTED).leased == list(INFO)  # skipped: immediate
            assert time.monotonic() - t0 < 0.1
            time.sleep(2 * PAUSE)
        fix_it()
        time.sleep(2 * PAUSE)
        tier.publish(shared_object(*INFO), [("k1", INFO["k1"], {})])  # the retry succeeds: used again
        assert set(tier.fetch(WANTED)) >= {"k1"}
    unavailable = [m for m in _messages(caplog) if "is unavailable" in m]
    assert len(unavailable) == 1, _messages(caplog)  # one warning for the whole outage
    assert "trying it again in 0.3 s" in unavailable[0]
    assert tier.counters.totals()["remote_fallbacks"] == 1
    assert tier.counters.totals()["remote_published"] == 2


def test_redis_stopped_then_restarted_is_used_again(own_redis, caplog):
    tier = _tier(own_redis.url())
    _outage_then_recovery(tier, own_redis.stop, own_redis.restart, caplog)


def test_directory_gone_then_back_is_used_again(tmp_path, caplog):
    root = tmp_path / "shared"
    away = tmp_path / "away"
    tier = _tier(root.as_uri())

    def break_it():  # the mount disappears: a plain file where the directory was (ENOTDIR on every path)
        root.rename(away)
        root.write_text("")

    def fix_it():
        root.unlink()
        away.rename(root)

    _outage_then_recovery(tier, break_it, fix_it, caplog)
    assert (root / "v2" / "unsigned" / "entries" / "k1.entry").is_file()


def test_a_backend_that_cannot_exist_is_never_retried(caplog):
    from opbuild.cache.shared import RemoteError

    with caplog.at_level(logging.WARNING, logger="opbuild"):
        tier = SharedTier("redis://h:1/0", None, timeout=1, lease_ttl=30, secret=None,
                          error=RemoteError("the redis client package is not installed"))
    assert not tier.ok and tier.fetch(WANTED) == {} and tier.claim(WANTED).leased == list(INFO)
    assert len(_messages(caplog)) == 1 and "trying it again" not in _messages(caplog)[0]
