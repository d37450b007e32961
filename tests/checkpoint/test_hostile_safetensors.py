"""Safetensors files a hostile or broken writer made: every malformed header entry is a SafetensorsError
naming the file and the entry, never a NumPy traceback or an array of the wrong size; tensors that share or
skip bytes and repeated names are refused as the reference reader refuses them. Conversions whose
``name_map`` would put two entries under one name are refused instead of dropping one."""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest

import opbuild as ms
from opbuild.checkpoint.safetensors import SafetensorsError, load_file, save_file


def _write(path, header: bytes | dict, data: bytes = b"") -> str:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return str(path)


def _entry(shape, offsets, dtype="F32"):
    return {"dtype": dtype, "shape": shape, "data_offsets": offsets}


@pytest.mark.parametrize("header, data, message", [
    ([1, 2], b"", "JSON header that is a list"),
    ({"a": 3}, b"", "'a' .* is a int in the header"),
    # a negative dimension whose product matches end - begin < 0 used to read as an empty (0,) array
    ({"a": _entry([-1], [4, 0])}, b"\0" * 8, r"shape \[-1\]"),
    ({"a": _entry([2], [-8, 0])}, b"\0" * 8, r"data_offsets \[-8, 0\]"),
    ({"a": _entry([2.0], [0, 8])}, b"\0" * 8, r"shape \[2.0\]"),
    ({"a": _entry([True, 2], [0, 8])}, b"\0" * 8, r"shape \[True, 2\]"),
    ({"a": _entry("ab", [0, 8])}, b"\0" * 8, "shape 'ab'"),
    ({"a": _entry([2], ["0", "8"])}, b"\0" * 8, "data_offsets"),
    ({"a": _entry([2], [8])}, b"\0" * 8, r"data_offsets \[8\]"),
    ({"a": {"dtype": "F32", "shape": [0]}}, b"", "data_offsets None"),
    ({"a": _entry([1 << 40, 1 << 40, 1 << 40], [0, 0])}, b"", "do not fit its shape"),
    # two names over the same bytes: the reference reader refuses overlapping offsets
    ({"a": _entry([2], [0, 8]), "b": _entry([2], [0, 8])}, b"\0" * 8, "'b' .*overlapping or gapped"),
    ({"a": _entry([1], [4, 8])}, b"\0" * 8, "overlapping or gapped"),
    ({"a": _entry([1], [0, 4])}, b"\0" * 8, "holds 8 data bytes but its tensors cover 4"),
    ({"__metadata__": [1], "a": _entry([1], [0, 4])}, b"\0" * 4, "__metadata__ that is not an object"),
    ({"__metadata__": {"k": 1}, "a": _entry([1], [0, 4])}, b"\0" * 4, "__metadata__ that is not an object"),
])
def test_malformed_headers_are_safetensors_errors(tmp_path, header, data, message) -> None:
    path = _write(tmp_path / "bad.safetensors", header, data)
    with pytest.raises(SafetensorsError, match=message) as info:
        load_file(path)
    assert "bad.safetensors" in str(info.value)


def test_a_repeated_name_is_refused_not_the_last_kept(tmp_path) -> None:
    text = (b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
            b'"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}')
    path = _write(tmp_path / "dup.safetensors", text, np.array([1, 2], np.float32).tobytes())
    with pytest.raises(SafetensorsError, match="names 'a' twice"):
        load_file(path)
    with pytest.raises(SafetensorsError, match="names 'a' twice"):
        ms.safetensors_to_ckpt(path, save_path=str(tmp_path / "out"))
    assert not (tmp_path / "out" / "dup.ckpt").exists()


def test_valid_files_still_load_with_empty_tensors(tmp_path) -> None:
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "e": np.zeros((0, 4), np.int64),
              "b": np.array([True, False])}
    save_file(arrays, tmp_path / "ok.safetensors", metadata={"format": "ms"})
    back, meta = load_file(tmp_path / "ok.safetensors")
    assert meta == {"format": "ms"} and set(back) == set(arrays)
    for k, v in arrays.items():
        np.testing.assert_array_equal(back[k], v)
        assert back[k].dtype == v.dtype and back[k].shape == v.shape


@pytest.mark.parametrize("direction", ["ckpt_to_safetensors", "safetensors_to_ckpt"])
def test_a_name_map_merging_two_entries_is_refused(tmp_path, direction) -> None:
    a, b = np.ones(2, np.float32), np.zeros(3, np.float32)
    if direction == "ckpt_to_safetensors":
        ms.save_checkpoint([{"name": "a", "data": a}, {"name": "b", "data": b}], str(tmp_path / "m.ckpt"))
        src = tmp_path / "m.ckpt"
    else:
        save_file({"a": a, "b": b}, tmp_path / "m.safetensors")
        src = tmp_path / "m.safetensors"
    convert = getattr(ms, direction)
    with pytest.raises(ValueError, match="the same name 'b'"):
        convert(str(src), save_path=str(tmp_path / "o"), name_map={"a": "b"})
    with pytest.raises(ValueError, match="non-empty str names"):
        convert(str(src), save_path=str(tmp_path / "o"), name_map={"a": 5})
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").iterdir())
    convert(str(src), save_path=str(tmp_path / "o"), name_map={"a": "c"})  # a rename without a clash works


def test_a_failed_write_keeps_the_previous_file(tmp_path, monkeypatch) -> None:
    path = tmp_path / "m.safetensors"
    save_file({"w": np.ones(3, np.float32)}, path)
    before = path.read_bytes()

    def full_disk(fd):  # the data is written but cannot be made durable: the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        save_file({"w": np.zeros(5, np.float32)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.safetensors"]  # no temporary left behind
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_missing_folder_is_named_not_the_temporary(tmp_path) -> None:
    message = r"cannot create a file in the folder .*/nowhere \(.*\); create the folder"
    with pytest.raises(OSError, match=message) as info:
        save_file({"w": np.ones(3, np.float32)}, tmp_path / "nowhere" / "m.safetensors")
    assert ".tmp" not in str(info.value)


def test_the_temporary_of_a_killed_write_is_swept_by_the_next(tmp_path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / f".m.safetensors.0a1b2c3d4e5f.{int(dead.stdout)}.tmp"
    leftover.write_bytes(b"cut short")
    save_file({"w": np.ones(3, np.float32)}, tmp_path / "m.safetensors")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.safetensors"]


def test_a_pipe_or_folder_is_refused_without_reading(tmp_path) -> None:
    fifo = tmp_path / "p.safetensors"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    for path in (fifo, tmp_path, tmp_path / "missing.safetensors"):
        with pytest.raises(SafetensorsError, match="does not exist or is not a regular file"):
            load_file(path)
    with pytest.raises(SafetensorsError, match="is not a regular file"):
        ms.load_checkpoint_async(str(fifo)).result()

