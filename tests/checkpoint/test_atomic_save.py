"""A save killed halfway (SIGKILL of a child process in the middle of writing) never leaves a partial
checkpoint under the final name; the next save removes the dead save's temporary."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import opbuild as ms

# The child saves four parameters and stops for good after the second one was written (the hook replaces the
# per-parameter encoder), leaving the save mid-file until the parent kills it.
CHILD = r"""
import sys, time
import numpy as np
import opbuild as ms
from opbuild.checkpoint import serialization as S

original, done = S._encode_value, []

def stalling(name, data):
    yield from original(name, data)
    done.append(name)
    if len(done) == 2:
        open(sys.argv[2], "w").close()
        time.sleep(600)

S._encode_value = stalling
ms.save_checkpoint([{"name": f"p{i}", "data": ms.Tensor(np.full(4096, 100.0 + i, np.float32))}
                    for i in range(4)], sys.argv[1])
"""


def kill_mid_save(final, marker):
    """Run the child until it stalls in the middle of the save, then SIGKILL it."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(final), str(marker)], env=dict(os.environ),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            if child.poll() is not None:
                raise AssertionError(f"child exited early: {child.communicate()}")
            if time.monotonic() > deadline:
                raise AssertionError("child never reached the middle of its save")
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()
    return child.pid


@pytest.mark.parametrize("existing", [False, True], ids=["fresh-name", "overwrite"])
def test_killed_save_leaves_previous_checkpoint_or_none(tmp_path, existing):
    final = tmp_path / "model.ckpt"
    old = np.arange(3, dtype=np.float32)
    if existing:
        ms.save_checkpoint([{"name": "old", "data": ms.Tensor(old)}], str(final))
    pid = kill_mid_save(final, tmp_path / "stalled")
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(f".{pid}.tmp")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".model.ckpt.")
    if existing:
        loaded = ms.load_checkpoint(str(final))
        assert list(loaded) == ["old"] and loaded["old"].asnumpy().tolist() == old.tolist()
    else:
        assert not final.exists()
    # The next save of the same name completes and sweeps the dead process's temporary.
    ms.save_checkpoint([{"name": "new", "data": ms.Tensor(np.float32(2.0))}], str(final))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "stalled") == ["model.ckpt"]
    assert float(ms.load_checkpoint(str(final))["new"]) == 2.0


def test_failed_save_removes_its_temporary(tmp_path, monkeypatch):
    from opbuild.checkpoint import serialization

    def broken(name, data):
        yield b"partial"
        raise OSError("disk full")

    monkeypatch.setattr(serialization, "_encode_value", broken)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint([{"name": "a", "data": ms.Tensor(1.0)}], str(tmp_path / "x.ckpt"))
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_named_not_the_temporary(tmp_path):
    # The error named '.a.ckpt.<random>.<pid>.tmp', a file the user never asked for; the type stays
    # FileNotFoundError, as MindSpore 2.10 raises.
    target = tmp_path / "no" / "such" / "a.ckpt"
    with pytest.raises(FileNotFoundError, match=r"folder .*no/such \(No such file or directory\); create") as info:
        ms.save_checkpoint([ms.Parameter(np.zeros(2, np.float32), name="w")], str(target))
    assert info.value.filename == str(target) and ".tmp" not in str(info.value)
