"""Every host read of a Tensor whose newest bytes a device holds (core/host_writes.py's owners) downloads them
first; read-only paths leave the version alone (device copies stay current), paths that may write advance it,
and a host write that replaces the bytes drops the owner without a download. A fake owner stands in for a GPU
graph's mirrors (tests/targets/cuda/test_device_resident.py runs the real ones on the emulated device)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core import host_writes

FRESH = 7.0  # the device's bytes; the host array holds zeros


class FakeOwner:
    """Holds the newest bytes of one host array: ``fetch_into`` writes FRESH into it (what a download does)."""

    def __init__(self):
        self.fetches = 0

    def fetch_into(self, slot: int, array: np.ndarray) -> None:
        found = host_writes.owner(array)
        if found is not None and found[0] is self:
            array[...] = FRESH
            self.fetches += 1
            host_writes.disown(array, self)


@pytest.fixture
def owned():
    """``(tensor, owner)``: a float32 Parameter of zeros whose newest bytes (all 7.0) the owner holds."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p")
    array = p._data
    owner = FakeOwner()
    host_writes.watch(array)
    host_writes.own(array, owner, 0)
    yield p, owner
    host_writes.disown(array)
    host_writes.unwatch(array)


def _fresh(a) -> bool:
    return np.array_equal(np.asarray(a, np.float32), np.full((2, 3), FRESH, np.float32))


READS = {  # read-only paths: name -> what reads the tensor (the result must show the device's bytes)
    "repr": lambda p: "7." in repr(ms.Tensor._of(p._data)),  # a plain Tensor sharing the owned array
    "str": lambda p: "7." in str(ms.Tensor._of(p._data)),
    "print value()": lambda p: "7." in str(p.value()),
    "value": lambda p: _fresh(p.value()._data),
    "clone": lambda p: _fresh(p.clone()._data),
    "copy": lambda p: _fresh(p.copy()._data),
    "pickle": lambda p: _fresh(pickle.loads(pickle.dumps(p))._data),
    "deepcopy": lambda p: _fresh(copy.deepcopy(p)._data),
    "pynative op": lambda p: _fresh((p + 0.0)._data),
    "comparison": lambda p: bool(ops.all(p == FRESH)),
    "reduction": lambda p: float(ops.sum(p)) == 6 * FRESH,
}


@pytest.mark.parametrize("path", list(READS))
def test_a_read_only_path_downloads_and_keeps_device_copies_current(owned, path):
    p, owner = owned
    version = host_writes.version(p._data)
    assert READS[path](p)
    assert owner.fetches == 1 and host_writes.owner(p._data) is None
    assert host_writes.version(p._data) == version  # nothing was written: no mirror goes stale
    assert _fresh(p._data)


WRITES = {  # paths that hand the array out for writing: downloaded, then the version advances
    "asnumpy": lambda p: _fresh(p.asnumpy()),
    "numpy": lambda p: _fresh(p.numpy()),
    "__array__": lambda p: _fresh(np.asarray(p)),
    "tolist": lambda p: p.tolist() == [[FRESH] * 3] * 2,
    "Tensor(p)": lambda p: _fresh(ms.Tensor(p)._data),
    "get_bytes": lambda p: np.array_equal(np.frombuffer(p.get_bytes(), np.float32), np.full(6, FRESH)),
}


@pytest.mark.parametrize("path", list(WRITES))
def test_a_path_that_may_write_downloads_and_advances_the_version(owned, path):
    p, owner = owned
    version = host_writes.version(p._data)
    assert WRITES[path](p)
    assert owner.fetches == 1 and host_writes.owner(p._data) is None
    assert host_writes.version(p._data) > version


def test_set_data_of_the_same_array_supersedes_the_device_bytes_without_a_download(owned):
    p, owner = owned
    array, version = p._data, host_writes.version(p._data)
    array[...] = 3.0  # the caller refilled the array it holds, then sets it again
    p.set_data(array)
    assert owner.fetches == 0 and host_writes.owner(array) is None
    assert host_writes.version(array) > version and np.all(p.asnumpy() == 3.0)


def test_a_checkpoint_saves_the_device_bytes(owned, tmp_path):
    p, owner = owned
    version = host_writes.version(p._data)
    path = str(tmp_path / "p.ckpt")
    ms.save_checkpoint([p], path)
    assert owner.fetches == 1 and host_writes.version(p._data) == version
    assert _fresh(ms.load_checkpoint(path)["p"].asnumpy())


def test_a_cell_cast_converts_the_device_bytes(owned):
    p, owner = owned
    cell = nn.Cell()
    cell.p = p
    cell.to(dtype=ms.float64)
    assert owner.fetches == 1 and p.dtype == ms.float64 and np.all(p._data == FRESH)


def test_a_cpu_graph_reads_the_device_bytes(owned):
    p, owner = owned

    class Read(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = p

        def construct(self, x):
            return self.p * x

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Read()(ms.Tensor(np.float32(2.0)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert owner.fetches == 1 and np.all(out.asnumpy() == 2 * FRESH)


def test_a_dropped_owner_loses_nothing_it_did_not_hold():
    """An owner record whose owner is gone (its graph's finalizer already handed the bytes over) is dropped at
    the next read; the host bytes are read as they are."""
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="q")
    owner = FakeOwner()
    host_writes.watch(p._data)
    host_writes.own(p._data, owner, 0)
    del owner
    try:
        assert np.all(p.asnumpy() == 1.0) and host_writes.owner(p._data) is None
        assert id(p._data) not in host_writes.OWNED
    finally:
        host_writes.unwatch(p._data)


def test_without_devices_reads_touch_no_bookkeeping():
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="r")
    assert p.asnumpy() is p._data and p._read() is p._data
    assert id(p._data) not in host_writes.WATCHED and id(p._data) not in host_writes.OWNED


def test_a_record_of_a_dead_array_never_serves_a_new_array_with_its_id():
    # Records are keyed by id(array): a stale one (its array gone without being disowned) must not send a
    # device's bytes into a new array that reuses the id.
    import weakref

    owner, gone, fresh = FakeOwner(), np.zeros(3, np.float32), np.ones(3, np.float32)
    host_writes.OWNED[id(fresh)] = (weakref.ref(owner), 0, weakref.ref(gone))  # as if `gone` had fresh's id
    try:
        assert host_writes.owner(fresh) is None
        host_writes.fetch(fresh)
        assert owner.fetches == 0 and np.array_equal(fresh, np.ones(3, np.float32))
        assert id(fresh) not in host_writes.OWNED  # the stale record is dropped
    finally:
        host_writes.OWNED.pop(id(fresh), None)
