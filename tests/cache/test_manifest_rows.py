"""A graph manifest's rows belong to their kernels (issue 23, point 1): a manifest whose ``kernels`` rows were
reordered (two ReLU rows swapped: wrong numbers; two Conv2D rows: NaNs; all rotated: SIGSEGV, before) is a
miss. The build takes the ordinary path, reuses every entry (nothing is rebuilt: the entries are sound),
computes the right outputs and rewrites the manifest in the right order; ``opbuild cache verify`` reports
such a manifest and ``--repair`` removes it. Runs the network in child processes, so that a kernel called
with another's arguments cannot take pytest down with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opbuild.cache import manifest
from opbuild.cache.admin.verify import verify
from tests.cache._util import kernel_meta
from tests.cli.conftest import child_env

pytestmark = pytest.mark.slow
NET = Path(__file__).with_name("reorder_net.py")


def _run(root: Path) -> dict:
    proc = subprocess.run([sys.executable, str(NET)], env=child_env(root), capture_output=True, text=True,
                          timeout=300, cwd=root)
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cold(tmp_path_factory) -> tuple[Path, dict, dict]:
    """A cache root after one cold run, its reference outputs and its manifest."""
    root = tmp_path_factory.mktemp("rows")
    first = _run(root)
    assert first["report"]["built"] == 4
    (path,) = (kernel_meta(root) / manifest.MANIFEST_DIR).iterdir()
    data = json.loads(path.read_text())
    assert [row[1].split("_")[0] for row in data["kernels"]] == ["relu", "relu", "conv2d", "conv2d"]
    return root, first, data


def _tamper(rows: list, how: str) -> list:
    rows = [list(r) for r in rows]
    if how == "relu-swap":
        rows[0], rows[1] = rows[1], rows[0]
    elif how == "conv-swap":
        rows[2], rows[3] = rows[3], rows[2]
    elif how == "rotate":
        rows = rows[1:] + rows[:1]
    elif how == "relu-swap-renumbered":  # consistent rows, in the wrong places
        rows[0], rows[1] = rows[1], rows[0]
        for i, r in enumerate(rows):
            r[0] = i
    elif how == "conv-entries-swapped":  # the rows keep their number and kernel digest, name the other entry
        a, b = rows[2], rows[3]
        a[1:6], b[1:6] = b[1:6], a[1:6]
    return rows


@pytest.mark.parametrize("how", ["relu-swap", "conv-swap", "rotate", "relu-swap-renumbered",
                                 "conv-entries-swapped"])
def test_reordered_rows_are_a_miss_that_reuses_every_entry_and_rewrites_the_manifest(cold, how):
    root, first, data = cold
    km = kernel_meta(root)
    (path,) = (km / manifest.MANIFEST_DIR).iterdir()
    tampered = dict(data, kernels=_tamper(data["kernels"], how))
    path.write_text(json.dumps(tampered))
    problems = [p for p in verify(km).problems if p.kind == "manifest"]
    if how == "relu-swap-renumbered":
        # Numbered in order and each entry describing its row's kernel: only the graph can tell (below).
        assert problems == []
    else:
        assert len(problems) == 1, problems
        assert "reordered" in problems[0].detail or "another kernel" in problems[0].detail

    again = _run(root)
    for got, want in zip(again["outputs"], first["outputs"]):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert not np.isnan(np.asarray(again["outputs"][2])).any()
    np.testing.assert_array_equal(np.asarray(again["outputs"][0]), np.asarray(first["relu"][0]))
    report = again["report"]
    assert (report["built"], report["reused"], report["repaired"]) == (0, 4, 0)  # nothing rebuilt
    assert {k["source"] for k in report["kernels"]} == {"local"}
    assert json.loads(path.read_text())["kernels"] == data["kernels"]  # rewritten in the graph's order
    assert verify(km).problems == []


def test_verify_repair_removes_a_reordered_manifest(cold):
    root, _, data = cold
    km = kernel_meta(root)
    (path,) = (km / manifest.MANIFEST_DIR).iterdir()
    path.write_text(json.dumps(dict(data, kernels=_tamper(data["kernels"], "rotate"))))
    repaired = verify(km, repair=True)
    assert [(p.kind, p.repaired) for p in repaired.problems] == [("manifest", True)]
    assert not path.exists()
    assert verify(km).problems == []
    again = _run(root)  # no manifest: the ordinary path, which writes it again
    assert (again["report"]["built"], again["report"]["reused"]) == (0, 4)
    assert json.loads(path.read_text())["kernels"] == data["kernels"]
