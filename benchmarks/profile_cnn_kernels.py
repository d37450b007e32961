"""Where an ONNX model's time goes in opbuild, kernel by kernel: every kernel call of the compiled graph timed
with the calling thread's CPU clock over ``--calls`` calls of the whole graph (so each kernel runs with its
neighbours' cache traffic, as in a real call), one thread.

Usage: ``python benchmarks/profile_cnn_kernels.py MODEL.onnx INPUT.npy [--calls N] [--top K] [--json PATH]``
(``bench_zoo.py --keep DIR`` writes ``DIR/<model>.onnx`` and ``DIR/<model>.<input>.npy``). Run it with
``PYTHONPATH`` set to the tree to measure; compare two trees by alternating runs, ratios within one pair.
onnxruntime's own per-node profile is no counterpart: its per-node times summed to 1.6-2.9x its whole call
here (docs/benchmarks.md)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import opbuild.onnx  # noqa: E402
from opbuild.runtime.executor import CompiledGraph  # noqa: E402


def _algo(attrs: dict) -> str:
    producer = attrs.get("producer")
    return str((producer if isinstance(producer, dict) else attrs).get("algo", ""))


def profile(model: Path, feed: np.ndarray, calls: int) -> list[dict]:
    """Per kernel node of ``model``'s largest compiled graph: op, algorithm, shapes and mean us per call."""
    m = opbuild.onnx.load(str(model))
    feeds = {_input_name(model): feed}
    m.run(feeds)
    graph = max((o for o in gc.get_objects() if isinstance(o, CompiledGraph)), key=lambda g: len(g._calls))
    nodes = list(graph.plan.kernel_nodes)  # one call each (a host node's too), in order
    total = np.zeros(len(graph._calls))
    clock = time.thread_time_ns

    def timed(i, fn):
        def call(ptrs):
            t = clock()
            fn(ptrs)
            total[i] += clock() - t
        return call

    graph._calls = [(timed(i, fn), ptrs) for i, (fn, ptrs) in enumerate(graph._calls)]
    graph._status = None  # the timed calls replace the status-checking steps
    for _ in range(20):
        m.run(feeds)
    total[:] = 0
    for _ in range(calls):
        m.run(feeds)
    return [{"op": n.op, "algo": _algo(n.attrs), "inputs": [list(v.type.shape) for v in n.inputs[:2]],
             "output": list(n.outputs[0].type.shape), "us": float(t / calls / 1e3)} for n, t in zip(nodes, total)]


def _input_name(model: Path) -> str:
    import onnx  # the bench extra; only the graph's first input name is read

    return onnx.load(str(model), load_external_data=False).graph.input[0].name


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("input", type=Path)
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()
    rows = profile(args.model, np.load(args.input), args.calls)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"{args.model.stem}: sum of kernels {sum(r['us'] for r in rows):.1f} us, {len(rows)} kernels")
    by: dict[tuple[str, str], float] = {}
    for r in rows:
        by[r["op"], r["algo"]] = by.get((r["op"], r["algo"]), 0.0) + r["us"]
    for (op, algo), us in sorted(by.items(), key=lambda kv: -kv[1]):
        print(f"  {us:8.1f} us  {op} {algo}")
    for r in sorted(rows, key=lambda r: -r["us"])[:args.top]:
        print(f"  {r['us']:7.2f}  {r['op']:14s} {r['algo']:9s} {r['inputs']} -> {r['output']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
