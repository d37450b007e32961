"""Fixtures of the shared-tier tests: a real redis-server on a free loopback port (started here, stopped
afterwards) and a shared directory, behind one ``shared`` fixture parametrised over both backends."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A redis-server process of this test run (no persistence, loopback only)."""

    def __init__(self, workdir: Path):
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed: the shared-tier tests need a real Redis server "
                        "(Debian package redis-server; .ci/run installs it)")
        try:
            import redis
        except ImportError:
            pytest.fail("the redis client package is missing: pip install -e '.[test]'")
        self._redis = redis
        workdir.mkdir(parents=True, exist_ok=True)
        self.exe, self.workdir = exe, workdir
        for _ in range(5):  # a free port can be taken by someone else before the server binds it
            self.port = _free_port()
            if self._launch():
                return
            self.stop()
        pytest.fail(f"redis-server did not start; see {workdir}")

    def _launch(self) -> bool:
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir), "--logfile", str(self.workdir / f"redis-{self.port}.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self._wait_up()

    def restart(self) -> None:
        """Start the server again on the same port after :meth:`stop` (empty: nothing is persisted)."""
        if not self._launch():
            pytest.fail(f"redis-server did not restart on port {self.port}; see {self.workdir}")

    def _wait_up(self) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if self.client().ping():
                    return True
            except self._redis.RedisError:
                time.sleep(0.05)
        return False

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def client(self, db: int = 0):
        return self._redis.Redis(host="127.0.0.1", port=self.port, db=db, socket_timeout=5)

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open but nothing answers."""
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One Redis server for the whole run (tests flush it before use)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def own_redis(tmp_path):
    """A Redis server of this test alone (for tests that stop or freeze it)."""
    server = RedisServer(tmp_path / "redis")
    yield server
    server.stop()


class Shared:
    """A shared tier under test: its URL and raw access to its entries (bypassing opbuild's backends), in the
    namespace of key id ``key`` (default: entries written without a secret)."""

    def __init__(self, kind: str, url: str, root: Path | None = None, server: RedisServer | None = None):
        self.kind, self.url, self.root, self.server = kind, url, root, server

    def _path(self, key: str, what: str) -> Path:
        return self.root / "v2" / key / what

    def raw_get(self, name: str, key: str = "unsigned") -> bytes | None:
        if self.kind == "redis":
            return self.server.client().get(f"opbuild:2:{key}:entry:{name}")
        path = self._path(key, "entries") / f"{name}.entry"
        return path.read_bytes() if path.exists() else None

    def raw_put(self, name: str, blob: bytes, key: str = "unsigned") -> None:
        if self.kind == "redis":
            self.server.client().set(f"opbuild:2:{key}:entry:{name}", blob)
        else:
            path = self._path(key, "entries") / f"{name}.entry"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blob)

    def lease_count(self, key: str = "*") -> int:
        if self.kind == "redis":
            return len(self.server.client().keys(f"opbuild:2:{key}:lease:*"))
        return len(list(self.root.glob(f"v2/{key}/leases/*.lease")))

    def entry_count(self, key: str = "*") -> int:
        if self.kind == "redis":
            return len(self.server.client().keys(f"opbuild:2:{key}:entry:*"))
        return len(list(self.root.glob(f"v2/{key}/entries/*.entry")))


@pytest.fixture(params=["redis", "dir"])
def shared(request, tmp_path):
    """An empty shared tier: the run's Redis server (flushed) or a fresh directory."""
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        server.client().flushall()
        return Shared("redis", server.url(), server=server)
    root = tmp_path / "shared"
    return Shared("dir", root.as_uri(), root=root)
