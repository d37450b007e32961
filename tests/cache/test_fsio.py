"""Small crash-safe file primitives (cache/fsio.py) not covered through the store."""

from __future__ import annotations

import os

import pytest

from opbuild.cache.fsio import CorruptFile, parse_json, read_json, read_small


@pytest.mark.parametrize("size", [0, 1, 16383, 16384, 16385, 3 * 1024 * 1024 + 7])
def test_read_small_reads_whole_files(tmp_path, size):
    """fsio.read_small (the warm path's reader of .json/.info) returns every byte, whatever the size."""
    data = os.urandom(size)
    (tmp_path / "f").write_bytes(data)
    assert read_small(str(tmp_path / "f")) == data
    with pytest.raises(FileNotFoundError):
        read_small(str(tmp_path / "absent"))
    with pytest.raises(CorruptFile):
        read_small(str(tmp_path))


def test_read_small_rejects_special_files_without_blocking(tmp_path):
    """A FIFO, a symlink (even to a good file) and an oversized file are CorruptFile, and a FIFO without a
    writer is rejected at once instead of blocking the reader forever."""
    good = tmp_path / "good.json"
    good.write_bytes(b"{}")
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "link.json").symlink_to(good)
    (tmp_path / "big.json").write_bytes(b" " * 2048)
    for name in ("fifo.json", "link.json"):
        with pytest.raises(CorruptFile):
            read_small(str(tmp_path / name))
    with pytest.raises(CorruptFile):
        read_small(str(tmp_path / "big.json"), limit=1024)
    assert read_small(str(tmp_path / "big.json"), limit=4096) == b" " * 2048


@pytest.mark.parametrize(
    "data",
    [b"[" * 100_000, b"{\"a\":" * 100_000, b"\xff\xfe", b"", b"[1, 2]", b"\"text\"", b"{\"a\": 1", b"null"],
)
def test_parse_json_only_ever_raises_corrupt_file(tmp_path, data):
    """Deep nesting (RecursionError in json's C scanner), invalid UTF-8, truncation and non-object top levels
    all come out as CorruptFile, never as another exception that would stop a run."""
    with pytest.raises(CorruptFile):
        parse_json(data)
    (tmp_path / "x.json").write_bytes(data)
    with pytest.raises(CorruptFile) as info:
        read_json(str(tmp_path / "x.json"))
    assert "x.json" in str(info.value)
    assert parse_json(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
