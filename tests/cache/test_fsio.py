"""Small crash-safe file primitives (cache/fsio.py) not covered through the store."""

from __future__ import annotations

import os

import pytest

from opbuild.cache.fsio import read_small


@pytest.mark.parametrize("size", [0, 1, 16383, 16384, 16385, 3 * 1024 * 1024 + 7])
def test_read_small_reads_whole_files(tmp_path, size):
    """fsio.read_small (the warm path's reader of .json/.info) returns every byte, whatever the size."""
    data = os.urandom(size)
    (tmp_path / "f").write_bytes(data)
    assert read_small(str(tmp_path / "f")) == data
    with pytest.raises(FileNotFoundError):
        read_small(str(tmp_path / "absent"))
    with pytest.raises(IsADirectoryError):
        read_small(str(tmp_path))
