"""``TCPStore`` (MindSpore's ``ops.communication.TCPStore``, the key-value store of PyTorch-style launches): one
process, the master, serves a dictionary of byte strings over TCP; every store (the master's own included)
reads and writes it through a socket, so all of them see the same values.

MindSpore's operations and their rules: ``set`` (str or bytes, overwrites), ``get`` (waits up to the store's
timeout for the key, then raises RuntimeError), ``add`` (an integer counter kept as its decimal text, so a
``get`` returns ``b"7"``; adding to a value that is not an integer raises RuntimeError) and ``delete_key``
(whether the key was there). A client started before its master retries the connection until the timeout. A
master with ``world_size`` > 1 and ``wait_for_workers`` waits up to the timeout for the other stores to connect,
then goes on with a warning, as MindSpore's does. ``multi_tenant``, ``master_listen_fd`` and ``use_libuv`` are
accepted and have no effect (in MindSpore too).

Unlike MindSpore, an empty key is refused (MindSpore's ``set`` accepts it and its ``get`` then times out), and
so are keys of 4 KiB or more and values of 1 GiB or more (the limits MindSpore documents).

Wire format (opbuild's own): a request is an opcode byte, the key's length (u32) and bytes, and an argument
(u64 length and bytes: the value for set, the amount for add, the wait in milliseconds for get); an answer is
a status byte and a payload (u64 length and bytes). Only byte strings cross the wire: nothing is unpickled.
"""

from __future__ import annotations

import logging
import socket
import socketserver
import struct
import threading
import time
import weakref
from datetime import timedelta
from typing import Any

_log = logging.getLogger("opbuild")
MAX_KEY = 4096
MAX_VALUE = 1 << 30
_SET, _GET, _ADD, _DELETE, _HELLO = b"S", b"G", b"A", b"D", b"H"
_OK, _MISSING, _NOT_INT = 0, 1, 2
_REQUEST = struct.Struct("!cI")
_LENGTH = struct.Struct("!Q")
_ANSWER = struct.Struct("!BQ")


def _read(sock: socket.socket, n: int) -> bytes:
    """Exactly ``n`` bytes from ``sock``; ConnectionError if the peer closes first."""
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the TCPStore peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class _Table:
    """The master's dictionary, with a condition that wakes the waiting ``get`` calls."""

    def __init__(self) -> None:
        self.values: dict[bytes, bytes] = {}
        self.changed = threading.Condition()
        self.clients = 0

    def answer(self, op: bytes, key: bytes, arg: bytes) -> tuple[int, bytes]:
        with self.changed:
            if op == _SET:
                self.values[key] = arg
                self.changed.notify_all()
                return _OK, b""
            if op == _GET:
                deadline = time.monotonic() + int(arg) / 1000.0
                while key not in self.values:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return _MISSING, b""
                    self.changed.wait(left)
                return _OK, self.values[key]
            if op == _ADD:
                try:
                    total = int(self.values.get(key, b"0")) + int(arg)
                except ValueError:
                    return _NOT_INT, self.values[key]
                self.values[key] = str(total).encode()
                self.changed.notify_all()
                return _OK, self.values[key]
            if op == _DELETE:
                return _OK, b"1" if self.values.pop(key, None) is not None else b"0"
            self.clients += 1  # _HELLO
            self.changed.notify_all()
            return _OK, b""


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        table: _Table = self.server.table  # type: ignore[attr-defined]
        sock = self.request
        try:
            while True:
                op, key_len = _REQUEST.unpack(_read(sock, _REQUEST.size))
                # A peer that is not a TCPStore (or a corrupt stream) must not make the master allocate
                # gigabytes or answer nonsense: refuse and drop the connection.
                if key_len >= MAX_KEY or op not in (_SET, _GET, _ADD, _DELETE, _HELLO):
                    return
                key = _read(sock, key_len)
                (arg_len,) = _LENGTH.unpack(_read(sock, _LENGTH.size))
                if arg_len >= MAX_VALUE:
                    return
                status, payload = table.answer(op, key, _read(sock, arg_len))
                sock.sendall(_ANSWER.pack(status, len(payload)) + payload)
        except (ConnectionError, OSError, struct.error, ValueError):
            return


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def _stop(server: _Server) -> None:
    server.shutdown()
    server.server_close()


def _check(fn: str, name: str, value: Any, kinds: tuple[type, ...], words: str) -> None:
    if not isinstance(value, kinds):
        raise TypeError(f"For '{fn}', the argument '{name}' must be {words}, got {type(value).__name__} "
                        f"{value!r}")


def _key(fn: str, key: Any) -> bytes:
    _check(fn, "key", key, (str,), "a str")
    raw = key.encode()
    if not raw or len(raw) >= MAX_KEY:
        raise ValueError(f"For '{fn}', the key must be a non-empty str of less than {MAX_KEY} bytes in UTF-8, "
                         f"got {len(raw)} bytes")
    return raw


class TCPStore:
    """A key-value store shared over TCP by the processes of a job (module docstring): the store with
    ``is_master=True`` serves it at ``host_name:port``, the others connect to it; every one may set, get, add
    and delete keys. ``timeout`` bounds the connection, the master's wait for ``world_size - 1`` workers, and
    each ``get``."""

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: timedelta = timedelta(seconds=300), wait_for_workers: bool = True,
                 multi_tenant: bool = False, master_listen_fd: Any = None, use_libuv: bool = True) -> None:
        _check("TCPStore", "host_name", host_name, (str,), "a str (an IP address)")
        _check("TCPStore", "port", port, (int,), "an int")
        _check("TCPStore", "is_master", is_master, (bool,), "a bool")
        _check("TCPStore", "timeout", timeout, (timedelta,), "a datetime.timedelta")
        _check("TCPStore", "wait_for_workers", wait_for_workers, (bool,), "a bool")
        world_size = 1 if world_size is None else world_size
        _check("TCPStore", "world_size", world_size, (int,), "an int or None")
        if not 0 <= port <= 65535:
            raise ValueError(f"For 'TCPStore', the argument 'port' must be in [0, 65535], got {port}")
        if world_size <= 0:
            raise ValueError(f"For 'TCPStore', the argument 'world_size' must be positive, got {world_size}")
        self.host, self.port = host_name, port
        self._timeout_ms = int(timeout.total_seconds() * 1000)
        # One connection per thread: a get waiting for a key on one thread must not hold up the set of that
        # key by another thread of the same store (on one shared connection it waited out the whole timeout).
        self._local = threading.local()
        if is_master:
            self._serve()
        self._local.sock = self._connect()
        self._call(_HELLO, b"", b"")
        if is_master and world_size > 1 and wait_for_workers:
            self._await_workers(world_size)

    def _serve(self) -> None:
        try:
            server = _Server((self.host, self.port), _Handler)
        except OSError as e:
            raise RuntimeError(f"TCPStore: the master cannot listen on {self.host}:{self.port}: {e} (is another "
                               "store or program using that port? choose a free one)") from e
        server.table = _Table()  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, name="opbuild-tcpstore", daemon=True).start()
        self._server = server
        weakref.finalize(self, _stop, server)

    def _connect(self) -> socket.socket:
        deadline = time.monotonic() + self._timeout_ms / 1000.0
        while True:
            try:
                sock = socket.create_connection((self.host, self.port),
                                                timeout=max(0.05, deadline - time.monotonic()))
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"TCPStore: could not connect to {self.host}:{self.port} within "
                                       f"{self._timeout_ms} ms ({e}): start the master store (is_master=True) "
                                       "there, or give a longer timeout") from e
                time.sleep(0.05)

    def _await_workers(self, world_size: int) -> None:
        table: _Table = self._server.table  # type: ignore[attr-defined]
        deadline = time.monotonic() + self._timeout_ms / 1000.0
        with table.changed:
            while table.clients < world_size and time.monotonic() < deadline:
                table.changed.wait(deadline - time.monotonic())
            joined = table.clients
        if joined < world_size:
            _log.warning("TCPStore: %d of world_size=%d stores connected to %s:%d within the timeout; going on "
                         "without waiting further", joined, world_size, self.host, self.port)

    def _call(self, op: bytes, key: bytes, arg: bytes) -> tuple[int, bytes]:
        sock = getattr(self._local, "sock", None)
        if sock is None:
            sock = self._local.sock = self._connect()
        try:
            sock.sendall(_REQUEST.pack(op, len(key)) + key + _LENGTH.pack(len(arg)) + arg)
            status, n = _ANSWER.unpack(_read(sock, _ANSWER.size))
            return status, _read(sock, n)
        except OSError as e:
            self._local.sock = None  # a half-read answer would be taken for the next one: never reuse it
            sock.close()
            raise RuntimeError(f"TCPStore: the connection to the master at {self.host}:{self.port} failed "
                               f"({e}): has the master store's process ended?") from e

    def set(self, key: str, value: str | bytes) -> None:
        """Store ``value`` (str: its UTF-8 bytes) under ``key``, replacing what was there."""
        raw = _key("TCPStore.set", key)
        _check("TCPStore.set", "value", value, (str, bytes), "a str or bytes")
        data = value.encode() if isinstance(value, str) else value
        if len(data) >= MAX_VALUE:
            raise ValueError(f"For 'TCPStore.set', the value must be less than 1 GiB, got {len(data)} bytes")
        self._call(_SET, raw, data)

    def get(self, key: str) -> bytes:
        """The bytes stored under ``key``; waits up to the store's timeout for another store to set it."""
        raw = _key("TCPStore.get", key)
        status, payload = self._call(_GET, raw, str(self._timeout_ms).encode())
        if status == _MISSING:
            raise RuntimeError(f"TCPStore.get: key {key!r} was not set within the store's timeout "
                               f"({self._timeout_ms} ms)")
        return payload

    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the integer counter ``key`` (created at 0) and return its new value."""
        raw = _key("TCPStore.add", key)
        _check("TCPStore.add", "amount", amount, (int,), "an int")
        if not -(1 << 63) <= amount < 1 << 63:  # MindSpore's counter is an int64
            raise ValueError(f"For 'TCPStore.add', the argument 'amount' must fit in int64, got {amount:.3e}")
        status, payload = self._call(_ADD, raw, str(int(amount)).encode())
        if status == _NOT_INT:
            raise RuntimeError(f"TCPStore.add: the value of key {key!r} is {payload[:64]!r}, not an integer: "
                               "add works on keys that only add (or set to an integer's text) writes")
        return int(payload)

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; whether it was there."""
        raw = _key("TCPStore.delete_key", key)
        return self._call(_DELETE, raw, b"")[1] == b"1"
