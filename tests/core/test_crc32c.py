"""CRC32C (core/crc32c.py): the vectorised lane and batched paths give the byte-at-a-time loop's values."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.core import crc32c as c


def _loop(data: bytes) -> int:
    """The definition: the reflected Castagnoli polynomial, bit by bit."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_known_values():
    assert c.crc32c(b"123456789") == 0xE3069283  # the standard check value
    assert c.crc32c(b"") == 0
    assert c.masked_crc32c(b"") == 0xA282EAD8


@pytest.mark.parametrize("n", [1, 1023, c._SMALL - 1, c._SMALL, c._SMALL + 1, 9 * 1024 + 7, 65536, 300_001])
def test_lanes_equal_the_loop(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    want = c._raw_loop(data, 0xFFFFFFFF) ^ 0xFFFFFFFF
    assert c.crc32c(data) == want
    if n <= 20_000:
        assert want == _loop(data)


def test_many_slices_equal_one_at_a_time():
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 3000, 400)
    lengths[[3, 9]] = [c._BATCHED + 5, 0]
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) + 7
    buf = rng.integers(0, 256, int(lengths.sum()) + 20, dtype=np.uint8).tobytes()
    got = c.crc32c_many(buf, starts, lengths)
    assert [int(v) for v in got] == [c.crc32c(buf[s:s + n]) for s, n in zip(starts, lengths)]
    assert [int(v) for v in c.mask(got)] == [c.masked_crc32c(buf[s:s + n]) for s, n in zip(starts, lengths)]
