"""benchmarks/bench_zoo.py on one architecture of each family it covers (a text encoder, a decoder through
the dynamo exporter, a windowed vision transformer, a hybrid CNN/transformer, two CNNs): each regenerated with
random weights, exported, run on opbuild and onnxruntime, and matched within 1e-3 of its output's scale. The
whole zoo (33 architectures, all matching) is the benchmark's run, in docs/benchmarks.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import TORCH_MISSING

pytest.importorskip("torch", reason=TORCH_MISSING)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("bert", "llama", "swin", "mobilevit", "convnext", "mobilenet_v2")


def test_zoo_families_run_and_match(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "zoo.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_zoo.py"), "--only", ",".join(FAMILIES), "--threads", "1",
         "--repeat", "1", "--min-time", "0.01", "--json", str(out)],
        env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    result = json.loads(out.read_text())
    assert result["export_failed"] == {}
    assert sorted(result["exported"]) == sorted(FAMILIES)
    rows = {r["model"]: r for r in result["rows"]}
    assert sorted(rows) == sorted(FAMILIES)
    for name, row in rows.items():
        assert "error" not in row, (name, row)
        assert row["match"] and row["rel_err"] <= 1e-3, (name, row)
        assert row["opbuild_s"] > 0 and row["ort_s"] > 0
    assert result["summary"]["1"]["run_and_match"] == len(FAMILIES)
    # The decoder's causal mask needed the dynamo exporter; the CNNs' BatchNorms hold random statistics.
    assert "Conv" in result["exported"]["convnext"]["ops"] and result["exported"]["llama"]["nodes"] > 0
