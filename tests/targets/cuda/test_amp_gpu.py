"""Mixed precision on the GPU target: a GRAPH_MODE network under ``amp.auto_mixed_precision`` at O1, O2 and O3,
with float16 and with bfloat16, builds every one of its GPU kernels (NVRTC, no GPU needed): Dense layers
(MatMul, its fused epilogue), elementwise ops, Softmax, a mean, ArgMax and the Casts the levels insert, each
in the dtype the level gives it. A second process builds none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.nvrtc import Nvrtc

pytestmark = pytest.mark.slow

try:
    Nvrtc("sm_90")
except NvrtcNotFoundError as e:  # only when the cuda extra is not installed
    pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}", allow_module_level=True)

AMP_NET = """
import json, numpy as np, opbuild as ms
from opbuild import Parameter, Tensor, nn, ops
from opbuild.targets.cuda.errors import CudaUnavailableError


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(16, 32, has_bias=False)
        self.b1 = Parameter(Tensor(np.full((32,), 0.1, np.float32)), name="b1")
        self.fc2 = nn.Dense(32, 8)

    def construct(self, x):
        h = ops.relu(self.fc1(x) + self.b1)
        y = self.fc2(h * 0.5)
        return ops.softmax(y, axis=-1), ops.mean(y, axis=0), ops.argmax(y, dim=-1)


ms.set_device("GPU")
ms.set_context(mode=ms.GRAPH_MODE)
results = []
for level in ("O1", "O2", "O3"):
    for dtype in ("float16", "bfloat16"):
        net = ms.amp.auto_mixed_precision(Net(), level, dtype=getattr(ms, dtype))
        try:
            net(Tensor(np.ones((4, 16), np.float32)))
            ran = "ran"
        except CudaUnavailableError as e:  # no GPU (or no GPU executor): the kernels are built all the same
            ran = str(e)
        report = ms.build_report()
        results.append({"level": level, "dtype": dtype, "ran": ran, "built": report.built,
                        "reused": report.reused, "kernels": [[k.op, k.name] for k in report.kernels]})
print(json.dumps(results))
"""


def _run(script, root):
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(root), OPBUILD_PROGRESS="0")
    env.setdefault("OPBUILD_CUDA_ARCH", "sm_90")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _input_dtypes(meta, name):
    return [t["dtype"] for t in json.loads((meta / f"{name}.info").read_text())["inputs"]]


def test_amp_levels_build_every_gpu_kernel_in_half_types(tmp_path):
    script = tmp_path / "amp_net.py"
    script.write_text(AMP_NET)
    cold = _run(script, tmp_path)
    meta = tmp_path / "rank_0" / "kernel_meta"
    assert len(cold) == 6
    for r in cold:
        assert r["ran"] == "ran" or "GPU" in r["ran"], r
        ops = {op for op, _ in r["kernels"]}
        assert {"Softmax", "ReduceMean", "ArgMax", "Cast"} <= ops, r
        assert ops & {"MatMul", "FusedMatMul"}, r
        by_op: dict[str, set[str]] = {}
        for op, name in r["kernels"]:
            assert (meta / f"{name}.cubin").is_file(), name
            by_op.setdefault(op, set()).update(_input_dtypes(meta, name))
        products = by_op.get("MatMul", set()) | by_op.get("FusedMatMul", set())
        assert r["dtype"] in products, r  # the Dense layers compute in the level's half type at every level
        # O1 keeps the rest in float32; O2 and O3 run the whole network in the half type
        assert (r["dtype"] in by_op["Softmax"]) == (r["level"] != "O1"), (r, by_op)
    warm = _run(script, tmp_path)  # a second process: every kernel from kernel_meta
    assert [(w["built"], w["reused"]) for w in warm] == [(0, c["built"] + c["reused"]) for c in cold]
