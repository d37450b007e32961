"""scripts/gpu_check.py's network checks, run on the emulated device: the executor network's forward,
gradients and Momentum train step agree with the CPU; a network reaching an op without a GPU emitter is
reported per phase with the missing ops, not failed; a second run builds nothing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from opbuild.targets.cuda.kernels import EMITTERS

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "gpu_check.py"


def _script():
    spec = importlib.util.spec_from_file_location("gpu_check_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_network_checks_pass_and_name_what_is_missing(gpu, monkeypatch):
    check = _script()
    networks = check._networks()
    chosen = {"executor": networks["executor"], "mlp": networks["mlp"]}
    monkeypatch.setattr(check, "_networks", lambda: chosen)
    summary: dict = {"failures": []}
    check.check_networks(summary)
    assert summary["failures"] == []
    executor = summary["networks"]["executor"]
    assert [executor[p] for p in ("forward", "backward", "train")] == ["ok"] * 3
    assert executor["forward_built"] > 0
    mlp = summary["networks"]["mlp"]
    if "FusedMatMul" not in EMITTERS:  # until the GEMM epilogue kernels exist on the GPU
        assert mlp["forward"] == "unsupported op FusedMatMul" and "FusedMatMul" in mlp["forward_missing"]
    assert check.warm_networks() == {"built": 0}
