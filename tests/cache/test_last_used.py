"""An entry's "last used" time (its ``.json`` mtime) under clock skew: a time in the future is brought back to
now by the next use, so eviction (least recently used first) does not keep an unused entry stamped ahead of the
clock over the ones builds keep using."""

from __future__ import annotations

import os
import time

from opbuild.cache.usage import USE_RESOLUTION, note_use


def test_a_future_last_used_time_is_reset_on_use(tmp_path):
    path = tmp_path / "add_0123456789abcdef0123456789abcdef.json"
    path.write_text('{"build_seconds": 0.5}')
    ahead = time.time() + 30 * 86400
    os.utime(path, (ahead, ahead))
    now = time.time()
    assert note_use(path, now) == 0.5
    assert abs(path.stat().st_mtime - now) < 60


def test_a_recent_last_used_time_is_left_alone(tmp_path):
    path = tmp_path / "add_0123456789abcdef0123456789abcdef.json"
    path.write_text('{"build_seconds": 0.5}')
    now = time.time()
    recent = now - USE_RESOLUTION / 2
    os.utime(path, (recent, recent))
    note_use(path, now)
    assert path.stat().st_mtime == recent
