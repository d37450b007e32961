"""load_checkpoint of a file whose ``save_checkpoint(async_save=True)`` is still writing it: the load waits for
that write and reads what it wrote, instead of the previous checkpoint (silently stale parameters); when that
write failed, the load says so instead of returning the file's older contents."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import opbuild as ms
from opbuild.checkpoint import serialization


def _slow_writes(monkeypatch) -> threading.Event:
    """Background writes that hold until the returned event is set (set 0.5 s later by a timer)."""
    release = threading.Event()
    write = serialization._atomic_write

    def held(final, chunks):
        release.wait(10)
        write(final, chunks)

    monkeypatch.setattr(serialization, "_atomic_write", held)
    threading.Timer(0.5, release.set).start()
    return release


def test_a_load_waits_for_the_async_save_of_its_file(tmp_path, monkeypatch):
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint([{"name": "w", "data": np.zeros(4, np.float32)}], path)
    _slow_writes(monkeypatch)
    ms.save_checkpoint([{"name": "w", "data": np.ones(4, np.float32)},
                        {"name": "b", "data": np.full(2, 3, np.int32)}], path, async_save=True)
    loaded = ms.load_checkpoint(path)
    assert sorted(loaded) == ["b", "w"]
    np.testing.assert_array_equal(loaded["w"].asnumpy(), np.ones(4, np.float32))
    assert not ms.async_ckpt_thread_status()


def test_a_load_after_a_failed_async_save_of_its_file_says_so(tmp_path, monkeypatch):
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint([{"name": "w", "data": np.zeros(4, np.float32)}], path)

    def failing(final, chunks):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(serialization, "_atomic_write", failing)
    ms.save_checkpoint([{"name": "w", "data": np.ones(4, np.float32)}], path, async_save=True)
    with pytest.raises(RuntimeError, match=r"async_save=True\) of .*m\.ckpt failed: .*No space left"):
        ms.load_checkpoint(path)
    monkeypatch.undo()
    # reported once: the file (the previous checkpoint, intact) loads again, and the next save goes ahead
    np.testing.assert_array_equal(ms.load_checkpoint(path)["w"].asnumpy(), np.zeros(4, np.float32))
    ms.save_checkpoint([{"name": "w", "data": np.ones(4, np.float32)}], path)
