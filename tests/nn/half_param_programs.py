"""Layers with float32 parameters given a float16 input (MindSpore 2.10 computes them and answers in float16),
run by scripts/record_half_params.py under MindSpore and by tests/nn/test_half_params.py under opbuild.
``run(ms, nn, ops)`` gives each case's output dtype name and values (as float64 lists)."""

from __future__ import annotations

import numpy as np


def cases(ms, nn, ops) -> dict:
    rng = np.random.default_rng(0)
    x2 = rng.random((2, 4)).astype(np.float16) * 4 - 2
    x4 = rng.random((2, 4, 3, 3)).astype(np.float16) * 4 - 2
    ones, zeros = np.ones(4, np.float32), np.zeros(4, np.float32)
    return {
        "LayerNorm": lambda: nn.LayerNorm((4,))(ms.Tensor(x2)),
        "LayerNorm_axis2": lambda: nn.LayerNorm((3, 3), begin_norm_axis=2, begin_params_axis=2)(ms.Tensor(x4)),
        "GroupNorm": lambda: nn.GroupNorm(2, 4)(ms.Tensor(x4)),
        "PReLU": lambda: nn.PReLU()(ms.Tensor(x2)),
        "PReLU_channels": lambda: nn.PReLU(4, 0.1)(ms.Tensor(x4)),
        "ops_layer_norm": lambda: ops.layer_norm(ms.Tensor(x2), (4,), ms.Tensor(ones * 2), ms.Tensor(zeros + 1)),
    }


def run(ms, nn, ops) -> dict:
    out = {}
    for name, fn in cases(ms, nn, ops).items():
        try:
            y = fn()
            out[name] = {"dtype": str(y.dtype), "values": y.asnumpy().astype(np.float64).ravel().tolist()}
        except Exception as e:  # noqa: BLE001 - a refusal is a result to compare
            out[name] = type(e).__name__
    return out
