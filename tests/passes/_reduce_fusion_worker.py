"""Subprocess worker of the reduction-fusion cache test: build and run a small attention-like network, print a
JSON result.

The network: ``softmax(x @ w + mask)`` then ``LayerNorm`` of the result (both single ops, reducing the same
rows: one row kernel ``Add -> Softmax -> LayerNorm`` after the MatMul). The output is checked against NumPy.
The last stdout line is ``{"kernels": [[name, op, status], ...], "members": {name: [member ops]}}`` (member
lists read back from each row kernel's ``.info``).
"""

from __future__ import annotations

import json

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import config

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    """MatMul, a masked Softmax and a LayerNorm over the last axis."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8)), name="w")
        self.softmax = ops.Softmax()
        self.ln = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
        self.g = ms.Parameter(ms.Tensor(np.linspace(0.5, 1.5, 8, dtype=np.float32)), name="g")
        self.b = ms.Parameter(ms.Tensor(np.linspace(-0.1, 0.1, 8, dtype=np.float32)), name="b")

    def construct(self, x, mask):
        p = self.softmax(ops.matmul(x, self.w) + mask)
        return self.ln(p, self.g, self.b)[0]


def main() -> None:
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    mask = np.linspace(-2, 0, 8, dtype=np.float32)
    net = Net()
    out = net(ms.Tensor(x), ms.Tensor(mask)).asnumpy()
    z = x @ net.w.asnumpy() + mask
    e = np.exp(z - z.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    d = p - p.mean(-1, keepdims=True)
    want = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * net.g.asnumpy() + net.b.asnumpy()
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    report = ms.build_report()
    members = {}
    for k in report.kernels:
        if k.op == "FusedRowReduce":
            info = json.loads((config.cache_dir() / f"{k.name}.info").read_text())
            members[k.name] = [m["op"] for m in info["attrs"]["members"]]
    print(json.dumps({"kernels": [[k.name, k.op, k.status] for k in report.kernels], "members": members}))


if __name__ == "__main__":
    main()
