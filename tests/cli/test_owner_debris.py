"""`opbuild cache verify`, `verify --repair`, `cache clear` and a run beside temporaries whose pid does not fit
a C long (issue 23, point 3): foreign debris, reported and cleared once old, never an OverflowError."""

from __future__ import annotations

import os
import time

import pytest

from opbuild.cache import fsio

from .conftest import kernel_meta, names, run_cli, run_json, run_net

pytestmark = pytest.mark.slow
HUGE = "99999999999999999999"


def test_commands_survive_temporaries_with_huge_pids(cache):
    km = kernel_meta(cache)
    (km / ".tmp").mkdir(exist_ok=True)
    fresh = km / ".tmp" / f".tmp.{fsio._HOST}.{HUGE}.x"
    old = km / ".tmp" / f".tmp.{fsio._HOST}.{HUGE}.0123abcd.square_x.so"
    for p in (fresh, old):
        p.write_bytes(b"debris")
    os.utime(old, (time.time() - 2 * fsio.FOREIGN_TMP_MAX_AGE,) * 2)

    report = run_json("cache", "verify", root=cache, expect=1)
    assert [(p["kind"], p["path"]) for p in report["problems"]] == [("temporary", old.name)]
    repaired = run_cli("cache", "verify", "--repair", root=cache)
    assert repaired.returncode == 0 and "Traceback" not in repaired.stderr, repaired.stderr
    assert not old.exists() and fresh.exists()
    run = run_net(cache, 3)  # a warm run beside it
    assert "Traceback" not in run.stderr
    before = names(cache)
    cleared = run_cli("cache", "clear", "--yes", root=cache)
    assert cleared.returncode == 0 and "Traceback" not in cleared.stderr, cleared.stderr
    assert before and names(cache) == set()
