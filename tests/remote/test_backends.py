"""The RemoteBackend contract, checked on both real backends (a Redis server and a directory)."""

from __future__ import annotations

import errno
import os
import threading
import time

import pytest

from opbuild.cache.shared import RemoteError, open_backend
from opbuild.core import config
from opbuild.core.errors import ConfigError


def test_get_put_replace(shared):
    backend = open_backend(shared.url)
    assert backend.get("square_x") is None
    backend.put("square_x", b"first")
    assert backend.get("square_x") == b"first"
    backend.put("square_x", b"second, longer")  # replaced whole
    assert backend.get("square_x") == b"second, longer"
    backend.put_many([("neg_y", b"\x00\xff" * 1000), ("sin_z", b"")])
    assert backend.get_many(["neg_y", "missing", "sin_z", "square_x"]) == {
        "neg_y": b"\x00\xff" * 1000, "sin_z": b"", "square_x": b"second, longer"}
    stats = backend.stats()
    assert stats["entries"] == 3 and stats["bytes"] == len(b"second, longer") + 2000


def test_lease_is_exclusive_and_owned(shared):
    backend = open_backend(shared.url)
    assert backend.acquire("k", "a", 30) == "a"
    assert backend.acquire("k", "b", 30) == "a"
    assert backend.acquire_many(["k", "k2"], "b", 30) == {"k": "a", "k2": "b"}
    assert backend.renew("k", "a", 30) and not backend.renew("k", "b", 30)
    backend.release("k", "b")  # not b's: stays a's
    assert backend.acquire("k", "c", 30) == "a"
    backend.release("k", "a")
    assert backend.acquire("k", "c", 30) == "c"


def test_lease_expires_and_renewal_extends_it(shared):
    backend = open_backend(shared.url)
    assert backend.acquire("k", "a", 0.4) == "a"
    time.sleep(0.25)
    assert backend.renew("k", "a", 0.4)  # now expires 0.4 s from here
    time.sleep(0.25)
    assert backend.acquire("k", "b", 0.4) == "a"
    time.sleep(0.3)
    assert backend.acquire("k", "b", 30) == "b"  # a's lease expired: taken over
    assert not backend.renew("k", "a", 30)
    backend.release("k", "a")  # a late release never drops b's lease
    assert backend.acquire("k", "c", 30) == "b"


def _race(backend, name: str, n: int) -> list[str]:
    """``n`` threads acquire the lease of ``name`` at once; returns the owners that got it."""
    barrier, winners = threading.Barrier(n), []

    def race(owner):
        barrier.wait()
        if backend.acquire(name, owner, 30) == owner:
            winners.append(owner)

    threads = [threading.Thread(target=race, args=(f"owner{i}",)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return winners


def test_only_one_of_many_racing_owners_gets_a_lease(shared):
    backend = open_backend(shared.url)
    for round_ in range(5):
        assert len(_race(backend, f"k{round_}", 8)) == 1
    # and one of many taking over an expired lease
    backend.acquire("old", "dead", 0.2)
    time.sleep(0.3)
    assert len(_race(backend, "old", 8)) == 1


def test_entries_expire_after_ttl(shared):
    backend = open_backend(shared.url, ttl=0.5)
    backend.put("k", b"blob")
    assert backend.get("k") == b"blob"
    time.sleep(0.7)
    assert backend.get("k") is None
    assert open_backend(shared.url).get("k") is None


def test_unreachable_backends_raise_remote_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for url in ((blocker / "shared").as_uri(), "redis://127.0.0.1:9/0"):
        backend = open_backend(url, timeout=1)
        with pytest.raises(RemoteError):
            backend.get("k")
        with pytest.raises(RemoteError):
            backend.acquire("k", "a", 1)


@pytest.mark.parametrize(("url", "problem"), [
    ("http://host/x", "unsupported scheme 'http'"),
    ("s3://bucket", "unsupported scheme 's3'"),
    ("file://otherhost/x", "names no host"),
    ("file:", "absolute path"),
    ("file:relative/dir", "absolute path"),
    ("redis://host:notaport/0", "port is not a number from 1 to 65535"),
    ("redis://host:70000/0", "port is not a number from 1 to 65535"),
    ("redis://host:0/0", "port 0"),
    ("redis://host:6379/zero", "database 'zero' is not a number"),
    ("redis:///0", "no host"),
    ("localhost:6379", "unsupported scheme"),
])
def test_bad_urls_are_configuration_errors(url, problem):
    for check in (open_backend, config.check_remote_url):
        with pytest.raises(ValueError, match="OPBUILD_REMOTE_CACHE") as e:
            check(url)
        assert problem in str(e.value) and "expected redis://host:port/db" in str(e.value)
        assert "file:///absolute/path" in str(e.value)


def test_bad_url_errors_hide_the_password():
    with pytest.raises(ValueError) as e:
        config.check_remote_url("redis://user:hunter2@host:notaport/0")
    assert "hunter2" not in str(e.value) and "redis://user:***@host:notaport/0" in str(e.value)


def test_a_bad_url_fails_every_build_up_front(monkeypatch, tmp_path, graph_mode):
    import numpy as np

    import opbuild as ms
    import opbuild.nn as nn
    import opbuild.ops as ops

    class Net(nn.Cell):
        def __init__(self, op):
            super().__init__()
            self.op = op

        def construct(self, x):
            return self.op(x)

    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    x = ms.Tensor(np.ones(3, np.float32))
    Net(ops.Square())(x)  # built (no shared tier)
    monkeypatch.setenv("OPBUILD_REMOTE_CACHE", "redis://host:notaport/0")
    with pytest.raises(ConfigError, match=r"OPBUILD_REMOTE_CACHE='redis://host:notaport/0' is unusable \(the port"):
        Net(ops.Neg())(x)  # a cold build
    monkeypatch.setenv("OPBUILD_REMOTE_CACHE", "redis://host:70000/0")
    with pytest.raises(ValueError, match="OPBUILD_REMOTE_CACHE"):
        Net(ops.Square())(x)  # a warm one (memory tier) never touches the shared tier, and fails all the same


def test_read_only_directory_tier_is_still_read(tmp_path, monkeypatch):
    root = tmp_path / "shared"
    writer = open_backend(root.as_uri())
    writer.put("k", b"blob")
    (writer.entries / ".tmp.otherhost.1.dead.k.entry").write_bytes(b"stale")  # old enough to sweep
    os.utime(writer.entries / ".tmp.otherhost.1.dead.k.entry", (0, 0))
    # A read-only mirror, injected (chmod does not stop root): every write under root fails with EROFS.
    real_open, real_unlink = os.open, os.unlink

    def refuse(path):
        if str(path).startswith(str(root)):
            raise OSError(errno.EROFS, "Read-only file system", str(path))

    def ro_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            refuse(path)
        return real_open(path, flags, *args, **kwargs)

    def ro_unlink(path, *args, **kwargs):
        refuse(path)
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", ro_open)
    monkeypatch.setattr(os, "unlink", ro_unlink)
    reader = open_backend(root.as_uri())
    assert reader.get("k") == b"blob"  # the sweep could not remove the stale temporary: reading goes on
    with pytest.raises(RemoteError, match="Read-only"):
        reader.put("k2", b"x")
    with pytest.raises(RemoteError, match="Read-only"):
        reader.acquire("k2", "a", 10)


def test_directory_lease_guard_left_by_a_dead_process_does_not_block_takeover(tmp_path):
    root = tmp_path / "shared"
    backend = open_backend(root.as_uri())
    backend.acquire("k", "dead", 0.1)
    guard = backend.leases / "k.lease.break"
    guard.write_bytes(b"")  # a process died while removing the lease
    time.sleep(0.2)
    assert backend.acquire("k", "b", 30) == "dead"  # someone else seems to be removing it: not yet
    os.utime(guard, (time.time() - 3600, time.time() - 3600))  # ... for long: the guard is stale
    assert backend.acquire("k", "b", 30) == "b"  # removes the stale guard, then the expired lease, then takes it
    assert not guard.exists()
