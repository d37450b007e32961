"""The store-wide load lock (cache/locks.py): a warm build holds ONE shared lock while it verifies and loads its
entries, and anything that deletes an entry takes it exclusively for the moment of the deletion.

flock locks belong to open file descriptions, so two descriptors of one process exclude each other exactly as
two processes do: these tests run both sides in threads of the test process."""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from pathlib import Path

import pytest

from opbuild.builder import Builder, manifests
from opbuild.cache import locks
from opbuild.cache.admin import evict
from opbuild.cache.admin.scan import scan
from opbuild.cache.layout import LOCK_DIR
from opbuild.cache.local import KernelStore
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY

SPECS = [REGISTRY[op].spec({}, [TensorType((8,), "float32")] * k) for op, k in (("Square", 1), ("Add", 2))]


@pytest.fixture
def store(tmp_path, monkeypatch) -> KernelStore:
    """A cache holding the two kernels of SPECS."""
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.delenv("RANK_ID", raising=False)
    _, report = Builder().build(SPECS)
    assert report.built == 2
    return KernelStore(tmp_path / "rank_0" / "kernel_meta", create=False)


def _load_lock_free(store: KernelStore) -> bool:
    """Whether the load lock could be taken exclusively right now (from another open file description)."""
    fd = os.open(os.path.join(store.path, LOCK_DIR, locks.LOADING + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as e:
        assert e.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES)
        return False
    finally:
        os.close(fd)


def _hold_loading(store: KernelStore, seconds: float, started: threading.Event) -> threading.Thread:
    def run() -> None:
        with locks.loading(store):
            started.set()
            time.sleep(seconds)

    t = threading.Thread(target=run)
    t.start()
    return t


def test_warm_build_verifies_and_loads_under_the_load_lock(store, monkeypatch):
    seen: list[bool] = []
    inner = KernelStore.lookup

    def lookup(self, name, info):
        seen.append(_load_lock_free(self))
        return inner(self, name, info)

    monkeypatch.setattr(KernelStore, "lookup", lookup)
    monkeypatch.setattr(manifests, "MANIFEST_MIN_KERNELS", len(SPECS) + 1)  # the ordinary path: one lookup each
    _, report = Builder().build(SPECS)
    assert report.reused == 2 and seen == [False, False]  # held (shared) during every lookup
    assert _load_lock_free(store)  # and released at the end of the phase


def test_a_manifest_warm_start_verifies_and_loads_under_the_load_lock(store, monkeypatch):
    seen: list[bool] = []
    inner = KernelStore.check

    def check(self, *args, **kwargs):
        seen.append(_load_lock_free(self))
        return inner(self, *args, **kwargs)

    monkeypatch.setattr(manifests, "MANIFEST_MIN_KERNELS", len(SPECS))  # SPECS alone get a graph manifest
    Builder().build(SPECS)  # a warm build by the ordinary path: it writes the manifest
    monkeypatch.setattr(KernelStore, "check", check)
    _, report = Builder().build(SPECS)  # served by the manifest
    assert report.reused == 2 and seen == [False, False]
    assert _load_lock_free(store)


def test_loaders_share_the_lock(store):
    with locks.loading(store), locks.loading(store):  # a second loader does not wait for the first
        assert not _load_lock_free(store)


def test_deleter_waits_for_the_loads_in_flight(store):
    entry = next(e for e in scan(store.path).entries if e.name.startswith("square_"))
    started = threading.Event()
    loader = _hold_loading(store, 0.4, started)
    started.wait(10)
    t0 = time.monotonic()
    assert evict.remove_entry(store, entry) == "removed"
    assert time.monotonic() - t0 >= 0.3  # it waited for the loader to finish, then deleted
    loader.join()
    assert not (store.path / f"{entry.name}.json").exists()


def test_deleter_gives_up_on_loads_that_go_on(store, monkeypatch):
    monkeypatch.setattr(locks, "DRAIN_TIMEOUT", 0.2)
    entry = scan(store.path).entries[0]
    with locks.loading(store):
        assert evict.remove_entry(store, entry) == "in use"
    assert (store.path / f"{entry.name}.json").exists()
    assert evict.remove_entry(store, entry) == "removed"


def test_loader_waits_while_an_entry_is_being_deleted(store):
    entry = scan(store.path).entries[0]
    held = threading.Event()
    release = threading.Event()

    def deleter() -> None:
        with locks.try_exclusive(store, entry.name) as ok:
            assert ok
            held.set()
            release.wait(10)

    t = threading.Thread(target=deleter)
    t.start()
    held.wait(10)
    threading.Timer(0.3, release.set).start()
    t0 = time.monotonic()
    with locks.loading(store):
        waited = time.monotonic() - t0
    t.join()
    assert waited >= 0.2


def test_load_lock_file_is_not_an_entry(store):
    assert (Path(store.path) / LOCK_DIR / "loading.lock").exists()
    Builder().build(SPECS)
    assert sorted(e.name.split("_")[0] for e in scan(store.path).entries) == ["add", "square"]
