"""The network every rank of the shared-tier tests builds: each input runs through the same chain of
elementwise ops, so it has len(OPS) * len(SHAPES) distinct kernels (op x shape), all cheap to compile."""

from __future__ import annotations

import numpy as np

import opbuild.nn as nn
import opbuild.ops as ops

OPS = ("Square", "Neg", "Sin", "Tanh")
SHAPES = ((3, 5), (4, 6), (2, 3, 4), (17,))
DISTINCT_KERNELS = len(OPS) * len(SHAPES)


class ChainNet(nn.Cell):
    """``tanh(sin(-(x * x)))`` for every input (one input per shape of SHAPES)."""

    def __init__(self) -> None:
        super().__init__()
        self.chain = [getattr(ops, name)() for name in OPS]

    def construct(self, *xs):
        outs = []
        for x in xs:
            for op in self.chain:
                x = op(x)
            outs.append(x)
        return tuple(outs)


def inputs(seed: int = 0) -> list[np.ndarray]:
    """One float32 input per shape, values in [-2, 2]."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2, 2, s).astype(np.float32) for s in SHAPES]
