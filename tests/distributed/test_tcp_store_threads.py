"""One TCPStore used from several threads: a ``get`` waiting for a key on one thread does not hold up the
``set`` of that key on another (on one shared connection the set waited out the get's whole timeout and the
get then failed); an amount outside int64 is refused by name."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest

from opbuild.communication.tcp_store import TCPStore

from .test_tcp_store import _master


@pytest.mark.parametrize("same_store", [True, False])
def test_a_waiting_get_does_not_block_a_set_from_another_thread(same_store) -> None:
    master, port = _master(timeout=timedelta(seconds=20))
    store = master if same_store else TCPStore("127.0.0.1", port, timeout=timedelta(seconds=20))
    got: list[bytes] = []
    waiter = threading.Thread(target=lambda: got.append(store.get("ready")))
    waiter.start()
    time.sleep(0.2)  # the get is waiting at the master
    store.set("ready", "yes")
    waiter.join(30)
    # Before the fix the set went through only once the get had timed out: the get then failed.
    assert got == [b"yes"]


def test_an_amount_outside_int64_is_refused() -> None:
    master, _ = _master()
    with pytest.raises(ValueError, match="'amount' must fit in int64"):
        master.add("n", 1 << 63)
    assert master.add("n", (1 << 63) - 1) == (1 << 63) - 1
