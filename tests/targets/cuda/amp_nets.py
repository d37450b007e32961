"""The examples' ResNet-style CNN and transformer encoder (opbuild.models, the small sizes of
scripts/gpu_check.py) trained under mixed precision (``amp.auto_mixed_precision`` at O1/O2/O3, float16 and
bfloat16): GRAPH_MODE TrainOneStepCell(Momentum) steps of ``mean(net(x) ** 2)`` on the current target. Shared
by tests/targets/cuda/test_amp_networks.py and scripts/gpu_check.py's network checks."""

from __future__ import annotations

import json

import numpy as np

import opbuild as ms
from opbuild import models, nn, ops
from opbuild.core import config

#: (network, level) pairs trained under both half types on both targets.
CASES = [(name, level) for name in ("resnet", "transformer") for level in ("O1", "O2", "O3")]
_CONV = {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"}
#: Ops each of them must run in the half type on the GPU (O2 keeps BatchNorm/LayerNorm in float32).
HALF_OPS = {("resnet", "O1"): _CONV,
            ("resnet", "O2"): _CONV | {"MaxPool", "MaxPoolGrad", "BiasAddGrad"},
            ("resnet", "O3"): _CONV | {"MaxPool", "MaxPoolGrad", "BiasAddGrad", "BatchNorm"},
            ("transformer", "O1"): {"MatMul"},
            ("transformer", "O2"): {"BatchMatMul", "Softmax", "Gather"},
            ("transformer", "O3"): {"BatchMatMul", "Softmax", "Gather", "LayerNorm"}}

TRANSFORMER = dict(vocab_size=500, hidden=64, heads=4, layers=2, intermediate=128, seq_len=16, batch=2)


def make(name: str):
    """(network, input) of the example network ``name`` ("resnet" or "transformer"), seeded weights."""
    if name == "resnet":
        return models.resnet_small(10, 8, [2, 2, 2]), models.resnet_input(2, 16)
    tc = models.TransformerConfig(**TRANSFORMER)
    return models.transformer_encoder(tc), models.transformer_input(tc)


class _Loss(nn.Cell):
    """mean(net(x) ** 2): a scalar whose gradient reaches every weight."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return ops.mean(self.net(x) ** 2)


def train(name: str, level: str, dtype: str, steps: int = 2, lr: float = 0.001) -> dict:
    """``steps`` GRAPH_MODE train steps of network ``name`` under ``level``/``dtype`` on the current target (lr
    1e-3: with MindSpore's initial weights the CNN's loss starts near 80 and a 1e-2 step overshoots to 131,
    amplifying half-precision rounding past the few-ulp tolerance the comparison allows):
    the losses, the float32 master weights after the steps, the ops of the first step's kernels and those of
    them with a half-type input or output (read from their entries' ``.info``), and how many it built."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = make(name)
    loss = _Loss(ms.amp.auto_mixed_precision(net, level, dtype=getattr(ms, dtype)))
    step = nn.TrainOneStepCell(loss, nn.Momentum(loss.trainable_params(), lr, 0.9))
    losses = [float(step(x).asnumpy())]
    report = ms.build_report()
    kernels = sorted({k.op for k in report.kernels})
    built = report.built
    half_ops = set()
    for k in report.kernels:
        info = config.cache_dir() / f"{k.name}.info"
        if info.is_file():
            meta = json.loads(info.read_text())
            if {t["dtype"] for t in meta["inputs"] + meta.get("outputs", [])} & {"float16", "bfloat16"}:
                half_ops.add(k.op)
    losses += [float(step(x).asnumpy()) for _ in range(steps - 1)]
    weights = [np.asarray(p.asnumpy(), np.float32).copy() for p in loss.trainable_params()]
    return {"losses": losses, "weights": weights, "ops": kernels, "half_ops": sorted(half_ops),
            "built": built}


__all__ = ["CASES", "HALF_OPS", "TRANSFORMER", "make", "train"]
