"""Helpers shared by the op tests: run an op through either execution mode."""

from __future__ import annotations

import os
from pathlib import Path

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


HOOKS_DIR = Path(__file__).resolve().parent / "hooks"


def with_test_hooks(env: dict[str, str], **hooks: object) -> dict[str, str]:
    """``env`` for a subprocess that installs opbuild's test hooks (tests/hooks/opbuild_test_hooks.py): the hooks'
    folder first on PYTHONPATH (its ``sitecustomize`` patches them in at start-up) and ``hooks`` as variables,
    e.g. ``OPBUILD_TEST_COMPILE_DELAY=1``. The package reads no test hook itself."""
    out = dict(env)
    out["PYTHONPATH"] = os.pathsep.join([str(HOOKS_DIR), *filter(None, [out.get("PYTHONPATH")])])
    out.update({k: str(v) for k, v in hooks.items()})
    return out


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


#: Source of ``peak_rss_kb()`` for the code of a child process (which may not be able to import tests/): the
#: process's peak resident set size in KiB since it exec'd (``VmHWM``). Not ``getrusage``'s ``ru_maxrss``: Linux
#: carries that across ``execve`` from the parent, so a child of a large pytest process reports the parent's peak.
PEAK_RSS_SRC = """
def peak_rss_kb():
    with open("/proc/self/status") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
"""

