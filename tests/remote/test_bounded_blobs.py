"""Shared-tier reads are bounded (issue 23, point 4): a blob over the bound is never sent by Redis nor read
from a directory, the blobs of one fetch come in replies of about one bound each (three 400 MiB blobs peaked
at 2.9 GB before), and a call abandoned at its timeout is cancelled instead of downloading on."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from opbuild.cache.shared import directory, open_backend
from opbuild.cache.shared.backend import MAX_BLOB_BYTES
from opbuild.cache.shared.tier import SharedTier


def test_blobs_over_the_bound_are_absent_and_never_sent(shared, monkeypatch):
    backend = open_backend(shared.url)
    monkeypatch.setattr(directory, "MAX_ENTRY_BYTES", 1000)
    if shared.kind == "redis":
        backend.max_blob = 1000
    backend.put_many([("big_a", b"x" * 1001), ("fits_b", b"y" * 1000), ("small_c", b"z")])
    got = backend.get_many(["big_a", "fits_b", "small_c"])
    # Never read: absent (Redis) or an empty blob the reader rejects as damaged (directory, as for any damage).
    assert got.pop("big_a", None) in (None, b"")
    assert got == {"fits_b": b"y" * 1000, "small_c": b"z"}
    assert backend.get("big_a") in (None, b"")
    assert shared.raw_get("big_a") == b"x" * 1001  # still there (its publisher's business), just never read


def test_redis_replies_stay_within_one_bound(redis_server):
    redis_server.client().flushall()
    backend = open_backend(redis_server.url())
    backend.max_blob = 1000
    blobs = {f"k{i}": bytes([i]) * 600 for i in range(5)}
    backend.put_many(blobs.items())
    redis_server.client().hset("opbuild:2:unsigned:entry:h", "f", "v")  # not a string: absent, no error
    replies = []
    real = backend._get_bounded

    def counting(keys, args):
        out = real(keys=keys, args=args)
        replies.append(sum(len(v) for v in out if isinstance(v, bytes)))
        return out

    backend._get_bounded = counting
    assert backend.get_many([*blobs, "h", "missing"]) == blobs
    assert len(replies) == 5 and max(replies) <= 1000  # one 600-byte blob per reply under a 1000-byte bound
    assert MAX_BLOB_BYTES >= 256 << 20


class _DripProxy:
    """A TCP proxy to a Redis server that passes replies on 1 KiB every 20 ms: a slow link, on which every
    socket read gets data well within the client's socket timeout, so only a cancellation stops a download."""

    def __init__(self, port: int):
        self.target = port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.closed = threading.Event()
        self.downstream_done: list[float] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, upstream, 0), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, 0.02), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, pause: float) -> None:
        try:
            while chunk := src.recv(1024 if pause else 65536):
                dst.sendall(chunk)
                time.sleep(pause)
        except OSError:
            pass
        finally:
            if pause:
                self.downstream_done.append(time.monotonic())
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def close(self) -> None:
        self.closed.set()
        self.sock.close()


def test_a_download_past_its_timeout_is_cancelled(redis_server, monkeypatch):
    """A 2 MiB blob over a link passing 50 KiB/s takes 40 s: at OPBUILD_REMOTE_TIMEOUT the tier gives up and
    closes the connection, so the download stops then (before, its thread went on to the end)."""
    redis_server.client().flushall()
    redis_server.client().set("opbuild:2:unsigned:entry:relu_" + "0" * 32, b"x" * (2 << 20))
    proxy = _DripProxy(redis_server.port)
    try:
        monkeypatch.delenv("OPBUILD_CACHE_SECRET", raising=False)
        monkeypatch.setenv("OPBUILD_REMOTE_TIMEOUT", "1")
        tier = SharedTier.open(f"redis://127.0.0.1:{proxy.port}/0")
        t0 = time.monotonic()
        assert tier.fetch([("relu_" + "0" * 32, b"{}")]) == {}
        assert time.monotonic() - t0 < 5
        deadline = time.monotonic() + 5
        while any(t.name == "opbuild-remote" and t.is_alive() for t in threading.enumerate()):
            assert time.monotonic() < deadline, "the abandoned download kept running after its timeout"
            time.sleep(0.05)
        while not proxy.downstream_done and time.monotonic() < deadline + 5:
            time.sleep(0.05)  # the proxy notices the closed client at its next send
        assert proxy.downstream_done and proxy.downstream_done[0] - t0 < 8  # the transfer stopped: 40 s otherwise
    finally:
        proxy.close()


def test_a_directory_fetch_past_its_timeout_stops_before_its_next_file(tmp_path, monkeypatch):
    """Each file is bounded; a fetch of many abandoned at its timeout reads no further file."""
    monkeypatch.delenv("OPBUILD_CACHE_SECRET", raising=False)
    monkeypatch.setenv("OPBUILD_REMOTE_TIMEOUT", "0.5")
    tier = SharedTier.open((tmp_path / "shared").as_uri())
    backend = tier.backend
    names = [f"relu_{i:032x}" for i in range(20)]
    backend.put_many((n, b"blob") for n in names)
    reads, real_get = [], backend.get

    def slow_get(name):
        reads.append(name)
        time.sleep(0.2)  # a slow filesystem: 4 s for the 20 files
        return real_get(name)

    monkeypatch.setattr(backend, "get", slow_get)
    assert tier.fetch([(n, b"{}") for n in names]) == {}
    time.sleep(0.6)
    assert len(reads) <= 5, reads  # stopped at the cancellation, not after all 20
