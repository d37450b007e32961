"""A checkpoint temporary whose pid is not a pid (issue 23, point 3) is someone else's file: saves beside it
work and leave it alone, while a dead save's temporary is still removed."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild.core import owners


def test_saves_ignore_temporaries_with_malformed_pids(tmp_path):
    final = tmp_path / "net.ckpt"
    planted = [tmp_path / f".net.ckpt.abcd_123.{pid}.tmp" for pid in ("99999999999999999999", "0", "007")]
    for p in planted:
        p.write_bytes(b"x")
    dead = tmp_path / f".net.ckpt.abcd_123.{owners.MAX_PID}.tmp"
    dead.write_bytes(b"x")
    for _ in range(2):
        ms.save_checkpoint([{"name": "w", "data": ms.Tensor(np.ones(3, np.float32))}], str(final))
    assert all(p.exists() for p in planted)
    assert dead.exists() is owners.pid_alive(owners.MAX_PID)
    np.testing.assert_array_equal(ms.load_checkpoint(str(final))["w"].asnumpy(), np.ones(3, np.float32))
