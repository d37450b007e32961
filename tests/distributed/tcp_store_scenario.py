"""What tests/distributed/test_tcp_store.py and scripts/record_tcp_store.py run against a framework's
``TCPStore`` (``python tcp_store_scenario.py FRAMEWORK`` with FRAMEWORK ``mindspore`` or ``opbuild``): a master
and a client process sharing keys, counters, waits, timeouts and argument errors. It prints one JSON object:
each step's result (``repr`` of a value, or the exception's type name), so that both frameworks' runs compare
key by key. ``python tcp_store_scenario.py FRAMEWORK client PORT`` is the client process."""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
import time
from datetime import timedelta


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _try(fn):
    try:
        return repr(fn())
    except Exception as e:  # noqa: BLE001 - the exception's type is the recorded result
        return type(e).__name__


def client(store_cls, port: int) -> None:
    """The second process: connects before the master exists (the master starts after it), waits for a key
    the master sets, answers with one of its own, and adds to a shared counter."""
    c = store_cls("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=20))
    question = c.get("question")
    c.set("answer", question + b"!")
    c.add("visits", 10)


def main() -> None:
    store_cls = importlib.import_module(f"{sys.argv[1]}.mint.distributed").TCPStore
    if sys.argv[2:3] == ["client"]:
        client(store_cls, int(sys.argv[3]))
        return
    out: dict[str, str] = {}
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, sys.argv[1], "client", str(port)])
    time.sleep(1.0)  # the client is retrying its connection meanwhile
    s = store_cls("127.0.0.1", port, is_master=True, timeout=timedelta(seconds=2))
    out["set"] = _try(lambda: s.set("question", "why"))
    out["answer_from_client"] = _try(lambda: s.get("answer"))
    proc.wait(timeout=60)
    out["client_exit"] = repr(proc.returncode)
    out["add_after_client"] = _try(lambda: s.add("visits", 5))
    out["visits_after_client"] = _try(lambda: s.get("visits"))
    out["add_negative"] = _try(lambda: s.add("n", -3))
    out["add_zero"] = _try(lambda: s.add("n", 0))
    out["add_bool"] = _try(lambda: s.add("b", True))
    s.set("bytes", b"\x00\x01\xff")
    out["get_bytes"] = _try(lambda: s.get("bytes"))
    s.set("text", "h\u00e9llo")
    out["get_utf8"] = _try(lambda: s.get("text"))
    s.set("twelve", "12")
    out["add_to_set_integer"] = _try(lambda: s.add("twelve", 1))
    s.set("spaced", b" 5")
    out["add_to_spaced_integer"] = _try(lambda: s.add("spaced", 1))
    s.set("word", "x")
    out["add_to_word"] = _try(lambda: s.add("word", 1))
    out["overwrite"] = _try(lambda: (s.set("word", "y"), s.get("word")))
    out["delete_present"] = _try(lambda: s.delete_key("word"))
    out["delete_absent"] = _try(lambda: s.delete_key("word"))
    t = time.monotonic()
    out["get_deleted"] = _try(lambda: s.get("word"))
    out["get_waited_timeout"] = repr(time.monotonic() - t > 1.5)
    out["attributes"] = repr((s.host, s.port == port))
    for name, call in {
        "set_int_key": lambda: s.set(1, "a"), "set_int_value": lambda: s.set("a", 1),
        "add_float": lambda: s.add("a", 1.5), "get_int_key": lambda: s.get(3),
        "delete_none_key": lambda: s.delete_key(None),
        "port_too_big": lambda: store_cls("127.0.0.1", 70000),
        "port_negative": lambda: store_cls("127.0.0.1", -1),
        "world_size_zero": lambda: store_cls("127.0.0.1", 1, world_size=0),
        "world_size_float": lambda: store_cls("127.0.0.1", 1, world_size=2.0),
        "host_int": lambda: store_cls(1, 1), "port_str": lambda: store_cls("127.0.0.1", "1"),
        "is_master_int": lambda: store_cls("127.0.0.1", 1, is_master=1),
        "timeout_int": lambda: store_cls("127.0.0.1", 1, timeout=3),
        "wait_for_workers_none": lambda: store_cls("127.0.0.1", 1, wait_for_workers=None),
    }.items():
        out[name] = _try(call)
    t = time.monotonic()
    out["client_without_master"] = _try(lambda: store_cls("127.0.0.1", free_port(),
                                                          timeout=timedelta(seconds=1)))
    out["client_without_master_waited"] = repr(time.monotonic() - t > 0.8)
    t = time.monotonic()
    store_cls("127.0.0.1", free_port(), world_size=2, is_master=True, timeout=timedelta(seconds=1))
    out["master_waits_for_workers_then_goes_on"] = repr(time.monotonic() - t > 0.8)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
