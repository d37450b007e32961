"""What the CLI prints stays readable (issue 23, point 13): a fused kernel's `cache ls` row names its member ops
instead of printing their whole descriptor (hundreds of characters), `--json` keeps everything, and `cache
import` of garbage prints the damage alone, on one line, not "imported 0 entries" first."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import child_env, run_cli

pytestmark = pytest.mark.slow

FUSED_NET = """
import numpy as np, opbuild as ms, opbuild.ops as ops
ms.set_context(mode=ms.GRAPH_MODE)  # fusion works on graphs; PyNative (the default) runs op by op
class N(ms.nn.Cell):
    def construct(self, x):
        y = ops.exp(x) * x + ops.sin(x) - ops.cos(x) * ops.tanh(x) + ops.sqrt(ops.abs(x))
        return ops.sigmoid(y) * y + ops.relu(y) - ops.square(y)
N()(ms.Tensor(np.ones((4, 8), np.float32)))
"""


def test_fused_rows_are_short_and_json_keeps_the_members(tmp_path) -> None:
    root = tmp_path / "root"
    subprocess.run([sys.executable, "-c", FUSED_NET], env=child_env(root, OPBUILD_FUSION="1"), check=True,
                   timeout=300, capture_output=True)
    listing = run_cli("cache", "ls", root=root)
    assert listing.returncode == 0, listing.stderr
    rows = [line for line in listing.stdout.splitlines() if line.startswith("fusedelementwise_")]
    assert rows, listing.stdout
    for row in rows:
        assert len(row) <= 250, row
        assert "members=" in row and "ops: " in row and '"args"' not in row
    data = json.loads(run_cli("cache", "ls", "--json", root=root).stdout)
    fused = [e for e in data["entries"] if e["op"] == "FusedElementwise"]
    assert fused and all(isinstance(e["attrs"]["members"], list) for e in fused)


def test_import_of_garbage_prints_the_damage_alone(tmp_path) -> None:
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"\x13\x37" * 50)
    proc = run_cli("cache", "import", str(garbage), root=tmp_path / "root")
    assert proc.returncode == 1
    assert "imported" not in proc.stdout, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "damaged" in lines[0], proc.stderr
