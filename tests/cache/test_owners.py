"""Owners parsed from disk or the shared tier are data (issue 23, point 3): a pid that does not fit a C long,
a negative or zero pid, a malformed host or name is foreign debris (ignored, or cleared by age), never an
``OverflowError`` out of ``os.kill`` that stops every build, ``verify`` and ``cache clear``."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.builder.stores import PRIVATE_PREFIX, sweep_private_dirs
from opbuild.cache import fsio
from opbuild.cache.admin.evict import clear
from opbuild.cache.admin.verify import verify
from opbuild.cache.layout import TMP_DIR
from opbuild.cache.shared import tier
from opbuild.core import owners
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import kernel_meta

HUGE = "99999999999999999999"
SPECS = [REGISTRY["Square"].spec({}, [TensorType((n,), "float32")]) for n in (3, 5)]


@pytest.mark.parametrize("text, pid", [("1", 1), ("4194304", owners.MAX_PID), ("123", 123)])
def test_parse_pid_accepts_bounded_decimal_pids(text, pid):
    assert owners.parse_pid(text) == pid


@pytest.mark.parametrize("text", [HUGE, "4194305", "0", "-1", "+5", " 5", "5 ", "05", "", "١٢", "1e3", "0x10",
                                  None, 5, "5\n"])
def test_parse_pid_refuses_anything_else(text):
    assert owners.parse_pid(text) is None


def test_pid_alive_never_calls_kill_out_of_range():
    for pid in (0, -1, -os.getpid(), 10 ** 20, owners.MAX_PID + 1):
        assert owners.pid_alive(pid) is False  # no OverflowError, no signal to a process group
    assert owners.pid_alive(os.getpid()) is True


def test_temporary_names_parse_strictly():
    mine = fsio.tmp_name("relu_ab.so")
    assert owners.parse_tmp_name(mine) == (fsio._HOST, os.getpid(), "relu_ab.so")
    for bad in (f".tmp.{fsio._HOST}.{HUGE}.x", f".tmp.{fsio._HOST}.{HUGE}.0123abcd.relu.so",
                f".tmp.{fsio._HOST}.-5.0123abcd.relu.so", f".tmp.{fsio._HOST}.0.0123abcd.relu.so",
                ".tmp.ho/st.12.0123abcd.relu.so", ".tmp..12.0123abcd.relu.so"):
        assert fsio.parse_tmp(bad) is None, bad


def test_host_names_are_written_in_the_form_they_parse_back():
    assert owners.name_host("a.b:c/d é") == "a_b_c_d__"
    assert owners.name_host("x" * 300) == "x" * 64
    assert owners.name_host("") == "host"


def test_lease_owners_parse_strictly():
    assert owners.parse_lease_owner(f"{tier._HOST}:{os.getpid()}:abcdef") == (tier._HOST, os.getpid(), "abcdef")
    for bad in (f"{tier._HOST}:{HUGE}:abcdef", f"{tier._HOST}:-1:abcdef", f"{tier._HOST}:0:ab", "x", "", None,
                f"{tier._HOST}:12:", f"{tier._HOST}:12:x y", 12):
        assert owners.parse_lease_owner(bad) is None, bad
        assert tier._dead_here(bad) is False  # never taken over, never a crash


def test_a_dead_lease_owner_of_this_host_is_still_recognised():
    assert tier._dead_here(f"{tier._HOST}:{owners.MAX_PID}:abcdef") is not owners.pid_alive(owners.MAX_PID)
    assert tier._dead_here(f"{tier._HOST}:{os.getpid()}:abcdef") is False


@pytest.fixture
def store_root(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.delenv("OPBUILD_CACHE", raising=False)
    return tmp_path / "cache"


def _plant_tmp(km: Path, name: str, age: float = 0.0) -> Path:
    (km / TMP_DIR).mkdir(parents=True, exist_ok=True)
    path = km / TMP_DIR / name
    path.write_bytes(b"debris")
    if age:
        os.utime(path, (time.time() - age, time.time() - age))
    return path


def test_a_temporary_with_a_huge_pid_breaks_no_build_verify_or_clear(store_root):
    km = kernel_meta(store_root)
    km.mkdir(parents=True)
    fresh = _plant_tmp(km, f".tmp.{fsio._HOST}.{HUGE}.x")
    old = _plant_tmp(km, f".tmp.{fsio._HOST}.{HUGE}.0123abcd.square_x.so", age=2 * fsio.FOREIGN_TMP_MAX_AGE)
    _, report = Builder().build(SPECS)
    assert report.built == len(SPECS)
    assert fresh.exists(), "a fresh temporary of unknown owner may still be written: left alone"
    assert not old.exists(), "an old one is foreign debris: swept like another host's"
    old = _plant_tmp(km, f".tmp.{fsio._HOST}.{HUGE}.0123abcd.square_y.so", age=2 * fsio.FOREIGN_TMP_MAX_AGE)
    found = verify(km)
    assert [p.path for p in found.problems if p.kind == "temporary"] == [old.name]
    assert verify(km, repair=True).problems and not old.exists() and fresh.exists()
    clear(km)  # no OverflowError


def test_a_private_directory_with_a_huge_pid_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    planted = [tmp_path / f"{PRIVATE_PREFIX}{HUGE}-x", tmp_path / f"{PRIVATE_PREFIX}-1-x",
               tmp_path / f"{PRIVATE_PREFIX}0-x", tmp_path / f"{PRIVATE_PREFIX}{HUGE}"]
    for d in planted:
        d.mkdir()
    dead = tmp_path / f"{PRIVATE_PREFIX}{owners.MAX_PID}-abc"
    dead.mkdir()
    sweep_private_dirs()
    assert all(d.is_dir() for d in planted)
    assert dead.exists() is owners.pid_alive(owners.MAX_PID)


def test_cache_off_builds_beside_a_planted_private_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("OPBUILD_CACHE", "0")
    (tmp_path / f"{PRIVATE_PREFIX}{HUGE}-x").mkdir()
    _, report = Builder().build(SPECS)
    assert report.built == len(SPECS)
