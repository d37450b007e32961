"""Hostile or broken paths the CLI and the builder meet (issue 23, point 6): a regular file or a symbolic link
named kernel_meta/quarantine is moved into a fresh quarantine folder (never written through, never "File
exists"); verify, ls and stats on a symbolic link loop or an unreadable kernel_meta print one line naming the
path; a regular file at $TMPDIR/opbuild-failed-<uid> does not hide a compile error."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.cli import main
from opbuild.core.errors import CompileError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY

from .conftest import kernel_meta, names, run_cli

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("plant", ["file", "symlink"])
def test_a_foreign_quarantine_is_moved_aside_by_repair(cache, tmp_path, plant) -> None:
    km = kernel_meta(cache)
    outside = tmp_path / "outside"
    outside.mkdir()
    q = km / "quarantine"
    if q.exists():
        shutil.rmtree(q)
    if plant == "file":
        q.write_text("not a folder\n")
    else:
        q.symlink_to(outside, target_is_directory=True)
    victim = sorted(names(cache))[0]
    with open(km / f"{victim}.so", "ab") as f:  # one damaged entry: its repair must quarantine it
        f.write(b"garbage")
    proc = run_cli("cache", "verify", "--repair", root=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "File exists" not in proc.stdout and "failed" not in proc.stdout, proc.stdout
    assert q.is_dir() and not q.is_symlink()
    held = sorted(p.name for p in q.iterdir())
    assert any(n.startswith("quarantine.") for n in held), held  # the planted thing, kept for the user
    assert any(n.startswith(f"{victim}.so.") for n in held), held
    assert list(outside.iterdir()) == []  # nothing was written through the link
    again = run_cli("cache", "verify", root=cache)
    assert again.returncode == 0 and "no problems found" in again.stdout, again.stdout


@pytest.mark.parametrize("command", ["verify", "ls", "stats"])
def test_a_symlink_loop_is_one_line(tmp_path, command) -> None:
    rank = tmp_path / "root" / "rank_0"
    rank.mkdir(parents=True)
    (rank / "kernel_meta").symlink_to("kernel_meta")
    proc = run_cli("cache", command, root=tmp_path / "root")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "kernel_meta" in lines[0] and "symbolic link loop" in lines[0], proc.stderr


@pytest.mark.parametrize("command", ["verify", "ls", "stats"])
def test_an_unreadable_kernel_meta_is_one_line(cache, monkeypatch, capsys, command) -> None:
    # The tests may run as root, whom permissions do not stop: the refusal is simulated at the listing.
    km = kernel_meta(cache)
    real = os.scandir

    def refuse(path="."):
        if Path(path) == km:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refuse)
    with pytest.raises(SystemExit) as info:
        main(["cache", command, "--path", str(cache)])
    assert info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Permission denied" in err[0] and str(km) in err[0] and "permissions" in err[0]


def test_a_file_in_place_of_the_failed_sources_folder_hides_no_compile_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / f"opbuild-failed-{os.getuid()}").write_text("in the way\n")
    cc = tmp_path / "brokencc"
    cc.write_text('#!/bin/sh\necho "brokencc: internal error" >&2\nexit 1\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    with pytest.raises(CompileError) as info:
        Builder().build([REGISTRY["Square"].spec({}, [TensorType((3,), "float32")])])
    assert "brokencc: internal error" in str(info.value)
    kept = Path(info.value.source_path)
    assert kept.is_file() and kept.parent.name.startswith(f"opbuild-failed-{os.getuid()}-")


@pytest.mark.parametrize("value, why", [("~nouser-opbuild-test/x", "home directory is unknown"),
                                        ("/tmp/" + "c" * 300, "has a component of 300 bytes")])
def test_a_bad_cache_path_is_a_one_line_usage_error(tmp_path, value, why) -> None:
    proc = run_cli("cache", "ls", env={"OPBUILD_CACHE_PATH": value})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "OPBUILD_CACHE_PATH=" in lines[0] and why in lines[0], proc.stderr


def test_a_bad_path_option_is_a_one_line_usage_error(tmp_path) -> None:
    proc = run_cli("cache", "ls", "--path", "~nouser-opbuild-test/x", root=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--path='~nouser-opbuild-test/x'" in lines[0], proc.stderr
