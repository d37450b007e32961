"""`opbuild run MODEL.onnx`: random inputs, --input files, --output-dir, the report, unsupported models."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.cli.conftest import run_cli

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "onnx"
RESNET = FIXTURES / "resnet.onnx"


def test_run_with_random_inputs_prints_shapes_timing_and_report(tmp_path) -> None:
    proc = run_cli("run", str(RESNET), "--repeat", "2", root=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "input   pixel_values       float32[1, 3, 32, 32]  random" in out
    assert "output  last_hidden_state  float32[1, 64, 2, 2]" in out
    assert "first call" in out and "steady state" in out and "(median of 2)" in out
    assert "kernels: 0 reused" in proc.stderr and "built" in proc.stderr
    again = run_cli("run", str(RESNET), "--repeat", "0", root=tmp_path / "cache")
    assert again.returncode == 0 and " 0 built" in again.stderr and "steady state" not in again.stdout


def test_run_with_given_inputs_saves_the_outputs(tmp_path) -> None:
    data = np.load(FIXTURES / "resnet.npz")
    x = tmp_path / "x.npy"
    np.save(x, data["input:pixel_values"])
    report = tmp_path / "report.json"
    proc = run_cli("run", "--report", str(report), str(RESNET), "--input", f"pixel_values={x}", "--output-dir",
                   str(tmp_path / "out"), root=tmp_path / "cache")
    assert proc.returncode == 0, proc.stderr
    for name in ("last_hidden_state", "pooler_output"):
        np.testing.assert_allclose(np.load(tmp_path / "out" / f"{name}.npy"), data[f"output:{name}"], rtol=1e-4,
                                   atol=1e-4)
    model = json.loads(report.read_text())["model"]
    assert model["inputs"] == {"pixel_values": "float32[1, 3, 32, 32]"}
    assert model["first_call_seconds"] > 0 and model["steady_seconds"] > 0


def test_bad_inputs_are_usage_errors(tmp_path) -> None:
    assert run_cli("run", str(RESNET), "--input", "nope", root=tmp_path).returncode == 2
    proc = run_cli("run", str(RESNET), "--input", f"other={tmp_path / 'missing.npy'}", root=tmp_path)
    assert proc.returncode == 2 and "cannot read" in proc.stderr
    np.save(tmp_path / "x.npy", np.zeros(3, np.float32))
    proc = run_cli("run", str(RESNET), "--input", f"other={tmp_path / 'x.npy'}", root=tmp_path)
    assert proc.returncode == 2 and "the model's inputs are pixel_values" in proc.stderr
    assert run_cli("run", str(tmp_path / "missing.onnx"), root=tmp_path).returncode == 2


def test_an_unsupported_model_lists_its_problems_and_exits_1(tmp_path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Unique", ["a"], ["y"], name="s")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "sign.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), str(path))
    proc = run_cli("run", str(path), root=tmp_path)
    assert proc.returncode == 1
    assert "Unique (node 's', opset 20): operator not supported" in proc.stderr
    assert "Traceback" not in proc.stderr
