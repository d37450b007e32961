"""Helpers shared by the op tests: run an op through either execution mode."""

from __future__ import annotations

import numpy as np

import opbuild as ms
import opbuild.nn as nn
from opbuild import Tensor

# Why torch-based tests skip where torch is absent (it is the reference of some tests, never a dependency of
# opbuild; .ci/run installs it, the README says how on other machines).
TORCH_MISSING = ("torch (the reference of this test) is not installed: pip install torch==2.13.0 "
                 "--index-url https://download.pytorch.org/whl/cpu")


class FnCell(nn.Cell):
    """A network whose construct is ``fn(*inputs)`` (static arguments live in ``fn``'s closure), so
    GRAPH_MODE runs the op through trace -> build -> executor."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def run_op(fn, *arrays, mode=ms.PYNATIVE_MODE) -> np.ndarray:
    """Apply ``fn`` to Tensors of ``arrays`` in ``mode`` (restored afterwards); returns a NumPy array."""
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        tensors = [Tensor(a) for a in arrays]
        out = FnCell(fn)(*tensors) if mode == ms.GRAPH_MODE else fn(*tensors)
    finally:
        ms.set_context(mode=old)
    return out.asnumpy()
