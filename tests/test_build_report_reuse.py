"""build_report() describes the graph that ran last, also when that graph was compiled earlier and reused from
memory without a build (issue 23, point 13), and its summary says "1 kernel", not "1 kernels"."""

from __future__ import annotations

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.report import BuildReport, KernelRecord


class Exp(nn.Cell):
    def construct(self, x):
        return ops.Exp()(x)


class SquareAddNeg(nn.Cell):
    def construct(self, x):
        return ops.Neg()(ops.Square()(x) + x)


def test_a_reused_graph_is_what_build_report_describes(graph_mode) -> None:
    x = ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32))
    first, second = Exp(), SquareAddNeg()
    first(x)
    first_ops = {k.op for k in ms.build_report().kernels}
    second(x)
    second_ops = {k.op for k in ms.build_report().kernels}
    assert first_ops != second_ops
    first(x)  # compiled already: no build
    again = ms.build_report()
    assert {k.op for k in again.kernels} == first_ops
    assert again.built == 0 and again.reused == len(again.kernels) and again.seconds == 0.0 and again.rerun
    assert all(k.source == "memory" for k in again.kernels)
    second(x)
    assert {k.op for k in ms.build_report().kernels} == second_ops


def test_the_summary_says_one_kernel() -> None:
    one = BuildReport([KernelRecord("exp_0", "Exp", "built", 0.1)], 0.1)
    assert one.summary().startswith("1 kernel: ") and repr(one).startswith("BuildReport(1 kernel: ")
    two = BuildReport([KernelRecord("exp_0", "Exp", "built", 0.1)] * 2, 0.2)
    assert two.summary().startswith("2 kernels: ")
