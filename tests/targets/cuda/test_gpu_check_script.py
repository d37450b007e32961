"""scripts/gpu_check.py's network checks, run on the emulated device: the example networks' forward, gradients
and Momentum train steps agree with the CPU; a network reaching an op without a GPU emitter is reported per
phase with the missing ops, not failed; a second run builds nothing; the bad-index checks pass, and fail
against an executor that ignores the kernels' reports."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from opbuild.targets.cuda.kernels import EMITTERS

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "gpu_check.py"


def _script():
    spec = importlib.util.spec_from_file_location("gpu_check_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_networks_agree_with_the_cpu_and_a_second_run_builds_nothing(gpu):
    # Forward, gradients of every weight and two Momentum train steps of the examples' MLP, ResNet-style CNN
    # and transformer encoder on the GPU target (emulated), each against the CPU target.
    check = _script()
    summary: dict = {"failures": []}
    check.check_networks(summary)
    assert summary["failures"] == []
    for name in ("executor", "mlp", "resnet", "transformer"):
        net = summary["networks"][name]
        assert [net[p] for p in ("forward", "backward", "train")] == ["ok"] * 3, (name, net)
        assert net["forward_built"] > 0
    assert check.warm_networks() == {"built": 0}


def test_a_network_reaching_an_op_without_a_gpu_kernel_is_reported_not_failed(gpu, monkeypatch):
    check = _script()
    networks = check._networks()
    monkeypatch.setattr(check, "_networks", lambda: {"mlp": networks["mlp"]})
    monkeypatch.delitem(EMITTERS, "FusedMatMul")
    summary: dict = {"failures": []}
    check.check_networks(summary)
    assert summary["failures"] == []
    mlp = summary["networks"]["mlp"]
    assert mlp["forward"] == "unsupported op FusedMatMul" and "FusedMatMul" in mlp["forward_missing"]


def test_the_bad_index_checks_pass_on_the_gpu_and_catch_a_silent_kernel(gpu, monkeypatch):
    check = _script()
    summary: dict = {"failures": []}
    check.check_bad_indices(summary)
    assert summary["failures"] == []
    # The control: a GPU graph executor that ignores the status words is caught (the graph checks fail).
    from opbuild.runtime import device_graph

    monkeypatch.setattr(device_graph, "raise_reported", lambda checked, words: None)
    summary = {"failures": []}
    check.check_bad_indices(summary)
    assert "bad indices, graph gather: no error" in summary["failures"], summary
    assert "bad indices, train step: no error" in summary["failures"], summary
