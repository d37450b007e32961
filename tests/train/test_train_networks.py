"""Training the ResNet-style CNN (Momentum) and the transformer encoder (AdamWeightDecay, a fine-tuning step)
of opbuild.models in GRAPH_MODE through TrainOneStepCell, each train step in fresh processes
(tests/train/train_worker.py) against one cache: the loss decreases, a second process builds nothing, and
changing one layer rebuilds exactly the forward, backward and update kernels of that layer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("train_worker.py")
STEPS = 5

# Kernels a one-layer edit must build (one per new descriptor), by op.
EDIT_OPS = {
    # Layer 1's first conv 4 -> 6 output channels: that conv and the next (6 input channels) forward, both
    # filter gradients and both input gradients; the BatchNorm between them (training forward, its grad, the
    # moving-statistics Assign of 6 channels); the ReLU between them and its grad; Momentum updates of the
    # (6, 4, 3, 3) and (4, 6, 3, 3) weights and of the 6-channel gamma/beta.
    "resnet": Counter({"Conv2D": 2, "Conv2DBackpropFilter": 2, "Conv2DBackpropInput": 2, "BatchNormTraining": 1,
                       "BatchNormGrad": 1, "Assign": 1, "ReLU": 1, "ReluGrad": 1, "ApplyMomentum": 3}),
    # The last layer's GELU -> ReLU: the ReLU and its grad (the other layer still uses the GELU kernels and
    # no parameter changes shape, so no update kernel is new). The epilogue pass fuses the ReLU into its
    # MatMul + BiasAdd (ReluGrad reads the ReLU's output, which the fused kernel writes; GeLUGrad reads GeLU's
    # input, so the GELU layer keeps its own kernel): the new forward kernel is that FusedMatMul.
    "transformer": Counter({"FusedMatMul": 1, "ReluGrad": 1}),
}
UPDATE_OP = {"resnet": "ApplyMomentum", "transformer": "AdamWeightDecay"}
BACKWARD_OPS = {"resnet": {"Conv2DBackpropFilter", "Conv2DBackpropInput", "BatchNormGrad", "ReluGrad",
                           "MaxPoolGrad", "BiasAddGrad"},
                "transformer": {"BiasAddGrad", "UnsortedSegmentSum"}}


def _train(net: str, variant: str, cache: Path) -> dict:
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(cache))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, str(WORKER), net, variant, str(STEPS)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _names(report: dict, status: str | None = None) -> set[str]:
    return {k["name"] for k in report["kernels"] if status is None or k["status"] == status}


@pytest.mark.parametrize("net", ["resnet", "transformer"])
def test_train_step_is_cached_and_incremental(net: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _train(net, "base", cache)
    losses = first["losses"]
    assert len(losses) == STEPS
    assert all(b < a for a, b in zip(losses, losses[1:])), losses  # every step lowers the training loss
    assert losses[-1] < 0.8 * losses[0], losses
    report = first["report"]
    ops = Counter(k["op"] for k in report["kernels"])
    assert report["built"] == len(report["kernels"]) > 0 and report["reused"] == 0
    # The one graph holds forward, backward and update kernels, all built through the cache.
    assert ops[UPDATE_OP[net]] > 0 and BACKWARD_OPS[net] <= set(ops), ops
    # No later step of the process built anything: the graph is compiled once, and build_report() after the
    # later steps describes that graph running again, every kernel reused from memory.
    after = first["after"]
    assert after["built"] == 0 and after["seconds"] == 0.0
    assert [k["name"] for k in after["kernels"]] == [k["name"] for k in report["kernels"]]
    assert all(k["status"] == "reused" for k in after["kernels"])

    second = _train(net, "base", cache)
    assert second["report"]["built"] == 0 and second["report"]["repaired"] == 0
    assert _names(second["report"], "reused") == _names(report)
    assert second["losses"] == pytest.approx(losses, rel=1e-6)  # the same program trains the same way

    edit = _train(net, "edit", cache)
    built = [k for k in edit["report"]["kernels"] if k["status"] == "built"]
    # Exactly the descriptors the edited train step has and the original has not are built...
    assert {k["name"] for k in built} == _names(edit["report"]) - _names(report)
    assert _names(edit["report"], "reused") == _names(edit["report"]) & _names(report)
    # ...and they are the changed layer's forward, backward and update kernels.
    assert Counter(k["op"] for k in built) == EDIT_OPS[net]
    assert edit["losses"][-1] < edit["losses"][0]
