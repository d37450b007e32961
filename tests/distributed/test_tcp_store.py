"""``TCPStore`` (ops.communication and mint.distributed): the two-process scenario against MindSpore 2.10's
recorded run, and what opbuild adds (clear refusals, a master that survives a peer speaking nonsense)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from opbuild.communication.tcp_store import TCPStore
from opbuild.mint import distributed as dist
from opbuild.ops import communication as opscomm

HERE = Path(__file__).parent
RECORDED = json.loads((HERE.parent / "fixtures" / "mindspore" / "tcp_store.json").read_text())["steps"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _master(**kw) -> tuple[TCPStore, int]:
    port = _port()
    return TCPStore("127.0.0.1", port, is_master=True, timeout=kw.pop("timeout", timedelta(seconds=2)), **kw), port


def test_scenario_matches_mindspore() -> None:
    src = str(Path(__import__("opbuild").__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(HERE / "tcp_store_scenario.py"), "opbuild"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == RECORDED


def test_one_class_under_both_names() -> None:
    assert opscomm.TCPStore is dist.TCPStore is TCPStore
    assert "TCPStore" in opscomm.__all__ and "TCPStore" not in dist.__all__


def test_get_waits_for_a_set_from_another_thread() -> None:
    master, port = _master(timeout=timedelta(seconds=10))
    worker = TCPStore("127.0.0.1", port, timeout=timedelta(seconds=10))
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(worker.get("late")))
    reader.start()
    time.sleep(0.3)
    assert not got  # still waiting
    master.set("late", "now")
    reader.join(5)
    assert got == [b"now"]
    assert [worker.add("count", 1) for _ in range(3)] == [1, 2, 3] and master.get("count") == b"3"


def test_refusals_say_what_was_wrong() -> None:
    master, port = _master()
    with pytest.raises(ValueError, match="non-empty str of less than 4096 bytes"):
        master.set("", "v")
    with pytest.raises(ValueError, match="non-empty str of less than 4096 bytes"):
        master.get("k" * 4096)
    with pytest.raises(RuntimeError, match=f"cannot listen on 127.0.0.1:{port}.*choose a free one"):
        TCPStore("127.0.0.1", port, is_master=True)
    with pytest.raises(RuntimeError, match=r"key 'never' was not set within the store's timeout \(2000 ms\)"):
        master.get("never")
    master.set("word", "abc")
    with pytest.raises(RuntimeError, match="value of key 'word' is b'abc', not an integer"):
        master.add("word", 1)
    assert master.get("word") == b"abc"  # the failed add changed nothing
    with pytest.raises(RuntimeError, match=r"could not connect to 127.0.0.1:\d+ within 300 ms.*is_master=True"):
        TCPStore("127.0.0.1", _port(), timeout=timedelta(milliseconds=300))


def test_a_peer_speaking_nonsense_does_not_hurt_the_store() -> None:
    master, port = _master()
    master.set("kept", "yes")
    for junk in (b"Z" + b"\x00" * 50, b"S\xff\xff\xff\xff", b"S\x00\x00\x00\x01k\xff\xff\xff\xff\xff\xff\xff\xff"):
        with socket.create_connection(("127.0.0.1", port)) as peer:
            peer.sendall(junk)
            peer.settimeout(5)
            assert peer.recv(16) == b""  # dropped at once: no allocation of the claimed size, no answer
    assert master.get("kept") == b"yes"
    assert TCPStore("127.0.0.1", port).get("kept") == b"yes"


def test_master_with_workers_returns_when_they_connect() -> None:
    port = _port()
    started = time.monotonic()
    joiner = threading.Thread(target=lambda: (time.sleep(0.3), TCPStore("127.0.0.1", port,
                                                                        timeout=timedelta(seconds=10))))
    joiner.start()
    TCPStore("127.0.0.1", port, world_size=2, is_master=True, timeout=timedelta(seconds=30))
    joiner.join(10)
    assert time.monotonic() - started < 20  # did not wait out the 30 s timeout
