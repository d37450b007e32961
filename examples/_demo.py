"""Shared driver of the example scripts: run a network twice in GRAPH_MODE, then build a fresh copy of it,
and print what the incremental build did each time."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import opbuild as ms
from opbuild import nn


def count_parameters(net: nn.Cell) -> int:
    """Number of scalar weights of ``net``."""
    return sum(p.size for p in net.get_parameters())


def run_demo(title: str, make_net: Callable[[], nn.Cell], x: ms.Tensor) -> np.ndarray:
    """Build ``make_net()``, call it twice on ``x``, then call a fresh instance once; print the output and the
    build report of each graph build. Returns the output of the first call."""
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    net = make_net()
    print(f"model: {title} ({count_parameters(net):,} parameters)")
    print(f"input: shape {x.shape} {x.dtype}")

    t0 = time.perf_counter()
    first = net(x).asnumpy()
    t1 = time.perf_counter()
    graph = net.compile_info()[0].graph
    print(f"call 1: output shape {first.shape}, {len(graph.nodes)} graph nodes, {t1 - t0:.3f} s "
          "(trace + build + run)")
    print(f"  build report: {ms.build_report().summary()}")

    t0 = time.perf_counter()
    second = net(x).asnumpy()
    t1 = time.perf_counter()
    print(f"call 2: output shape {second.shape}, {t1 - t0:.4f} s (compiled graph reused: "
          f"{len(net.compile_info())} graph(s), no trace, no build); same result: {np.array_equal(first, second)}")

    fresh = make_net()
    t0 = time.perf_counter()
    third = fresh(x).asnumpy()
    t1 = time.perf_counter()
    print(f"fresh instance: {t1 - t0:.3f} s, same result: {np.array_equal(first, third)}")
    print(f"  build report: {ms.build_report().summary()}")
    print(f"output[0, :5]: {np.array2string(first.reshape(first.shape[0], -1)[0, :5], precision=4)}")
    return first
