"""A warm start that a graph manifest serves loads its kernels without the CPU target's code generators: the
emitter modules (most of the target's import time) are imported only by a build that names or generates a
kernel (targets/cpu/generation.py, imported by the target on first use)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SCRIPT = """
import json, sys
import numpy as np
import opbuild as ms
from opbuild import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(8, 4)

    def construct(self, x):
        return ops.softmax(ops.relu(self.dense(x)) * 2.0 + 1.0, -1).sum(0) - ops.square(x).mean()


Net()(ms.Tensor(np.ones((3, 8), np.float32))).asnumpy()
r = ms.build_report()
print(json.dumps({"built": r.built, "reused": r.reused, "kernels": len(r.kernels),
                  "generators": sorted(m for m in sys.modules if m.startswith(("opbuild.targets.cpu.kernels",
                                                                                "opbuild.targets.cpu.codegen")))}))
"""


def _run(script: Path, root: Path) -> dict:
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(root), OPBUILD_PROGRESS="0")
    env.pop("RANK_ID", None)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_manifest_warm_start_imports_no_code_generator(tmp_path):
    script = tmp_path / "net.py"
    script.write_text(SCRIPT)
    cold = _run(script, tmp_path / "cache")
    assert cold["built"] == cold["kernels"] >= 4 and cold["generators"]  # building needs the emitters
    warm = _run(script, tmp_path / "cache")
    assert warm["built"] == 0 and warm["reused"] == cold["kernels"]
    assert warm["generators"] == [], warm["generators"]
