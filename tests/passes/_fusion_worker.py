"""Subprocess worker of the fusion cache tests: build and run a two-layer network, print a JSON result.

Usage: ``python _fusion_worker.py ACT2``: layer 1 is Dense + SiLU (x * sigmoid(x)), layer 2 is Dense + an
elementwise epilogue chosen by ACT2 (``relu`` or ``tanh``), then ``* 0.5 + 1``. The output is checked against
NumPy; the last stdout line is ``{"kernels": [[name, op, status], ...], "members": {name: [member ops]}}``
(the member lists read back from each fused kernel's ``.info``). With fusion on, each layer is one kernel:
a FusedMatMul whose epilogue is the bias add and the layer's elementwise chain (passes/epilogue.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import config

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    """Two layers, each a Dense followed by an elementwise chain the fusion pass turns into one kernel."""

    def __init__(self, act2: str):
        super().__init__()
        self.fc1 = nn.Dense(6, 5, weight_init="normal")
        self.fc2 = nn.Dense(5, 4, weight_init="normal")
        self.act2 = {"relu": ops.ReLU(), "tanh": ops.Tanh()}[act2]

    def construct(self, x):
        h = self.fc1(x)
        h = h * ops.Sigmoid()(h)
        return self.act2(self.fc2(h)) * 0.5 + 1.0


def main() -> None:
    act2 = sys.argv[1]
    ms.set_seed(0)
    net = Net(act2)
    x = np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 6)
    out = net(ms.Tensor(x)).asnumpy()
    w1, b1 = net.fc1.weight.asnumpy(), net.fc1.bias.asnumpy()
    w2, b2 = net.fc2.weight.asnumpy(), net.fc2.bias.asnumpy()
    h = x @ w1.T + b1
    h = h / (1 + np.exp(-h))
    z = h @ w2.T + b2
    z = np.maximum(z, 0) if act2 == "relu" else np.tanh(z)
    np.testing.assert_allclose(out, z * 0.5 + 1, rtol=1e-5, atol=1e-6)
    report = ms.build_report()
    members = {}
    for k in report.kernels:
        if k.op.startswith("Fused"):
            info = json.loads((config.cache_dir() / f"{k.name}.info").read_text())
            members[k.name] = [m["op"] for m in info["attrs"]["members"]]
    print(json.dumps({"kernels": [[k.name, k.op, k.status] for k in report.kernels], "members": members}))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
