"""Subprocess worker of the epilogue cache test: build and run a small CNN, print a JSON result.

Usage: ``python _epilogue_worker.py ACT2``: layer 1 is Conv2d + BatchNorm2d (inference) + ReLU, layer 2 is
Conv2d (with bias) + a residual add of layer 1's output + ACT2 (``relu`` or ``tanh``), then Dense. The output
is checked against NumPy; the last stdout line is ``{"kernels": [[name, op, status], ...], "info": {name:
{"members": [member ops], "producer": producer attrs}}}`` read back from each fused kernel's ``.info``.
"""

from __future__ import annotations

import json
import sys

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import config

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    """conv-bn-relu, conv(+bias) + residual + ACT2, dense."""

    def __init__(self, act2: str):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3, pad_mode="same", has_bias=False, weight_init="normal")
        self.bn = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 4, 3, pad_mode="same", has_bias=True, weight_init="normal", bias_init="normal")
        self.act2 = {"relu": ops.ReLU(), "tanh": ops.Tanh()}[act2]
        self.fc = nn.Dense(4 * 5 * 5, 3, weight_init="normal")

    def construct(self, x):
        h = ops.ReLU()(self.bn(self.c1(x)))
        h = self.act2(self.c2(h) + h)
        return self.fc(ops.Reshape()(h, (x.shape[0], -1)))


def _conv(x, w, b=None):
    n, c, hh, ww = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], hh, ww), np.float64)
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hh, j:j + ww], w[:, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def main() -> None:
    act2 = sys.argv[1]
    ms.set_seed(0)
    net = Net(act2)
    net.set_train(False)
    x = np.linspace(-1, 1, 2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5)
    out = net(ms.Tensor(x)).asnumpy()
    p = {k: v.asnumpy().astype(np.float64) for k, v in net.parameters_and_names()}
    h = _conv(x, p["c1.weight"])
    g, beta, mean, var = (p[f"bn.{k}"].reshape(1, -1, 1, 1) for k in ("gamma", "beta", "moving_mean",
                                                                      "moving_variance"))
    h = np.maximum((h - mean) / np.sqrt(var + 1e-5) * g + beta, 0)
    z = _conv(h, p["c2.weight"], p["c2.bias"]) + h
    z = np.maximum(z, 0) if act2 == "relu" else np.tanh(z)
    want = z.reshape(2, -1) @ p["fc.weight"].T + p["fc.bias"]
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    report = ms.build_report()
    info = {}
    for k in report.kernels:
        if k.op.startswith("Fused"):
            attrs = json.loads((config.cache_dir() / f"{k.name}.info").read_text())["attrs"]
            info[k.name] = {"members": [m["op"] for m in attrs["members"]], "producer": attrs.get("producer")}
    print(json.dumps({"kernels": [[k.name, k.op, k.status] for k in report.kernels], "info": info}))


if __name__ == "__main__":
    main()
