"""`opbuild cache ls` and `stats` show the scenario of each entry (forward / backward / update), derived from
the op's declaration (OpDef.scenario)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from opbuild.ops.registry import REGISTRY, SCENARIOS, OpDef, scenario_of

from .conftest import child_env, run_cli, run_json

# A gradient through ReLU: the forward kernels (ReLU, Square, ...) and ReLU's backward kernel (ReluGrad).
_TRAIN = """
import numpy as np, opbuild as ms, opbuild.ops as ops
f = lambda x: ops.ReduceSum()(ops.square(ops.relu(x)))
g = ms.grad(f)(ms.Tensor(np.array([-1.0, 2.0, 3.0], np.float32)))
assert np.allclose(g.asnumpy(), [0, 4, 6]), g
"""


def test_declarations_set_the_scenario():
    assert scenario_of("Square") == "forward"
    for name in ("ReluGrad", "Conv2DBackpropInput", "MaxPoolGrad", "BiasAddGrad", "StridedSliceGrad"):
        assert scenario_of(name) == "backward", name
    assert scenario_of("NoSuchOp") == "unknown"
    assert set(SCENARIOS) == {"forward", "backward", "update"}
    assert {d.scenario for d in REGISTRY.values()} <= set(SCENARIOS)
    with pytest.raises(ValueError, match="scenario"):
        OpDef("Bogus", lambda a, i: [], lambda a: None, scenario="inference")


def test_ls_and_stats_show_the_scenario_of_each_entry(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _TRAIN], env=child_env(tmp_path), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    listing = run_json("cache", "ls", root=tmp_path)
    scen = {e["op"]: e["scenario"] for e in listing["entries"]}
    assert scen["ReLU"] == "forward" and scen["Square"] == "forward"
    assert scen["ReluGrad"] == "backward"
    text = run_cli("cache", "ls", root=tmp_path).stdout
    assert "SCENARIO" in text.splitlines()[0]
    assert any("ReluGrad" in line and "backward" in line for line in text.splitlines())
    stats = run_json("cache", "stats", root=tmp_path)
    every = [e["scenario"] for e in listing["entries"]]  # an op may have several entries (shapes)
    expected = {"forward": every.count("forward"), "backward": every.count("backward")}
    assert stats["scenarios"] == expected and expected["backward"] >= 1
    assert sum(stats["scenarios"].values()) == stats["entries"]
    assert f"{expected['backward']} backward" in run_cli("cache", "stats", root=tmp_path).stdout
