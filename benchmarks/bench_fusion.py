"""Steady time per call without fusion, with elementwise fusion only, and with GEMM/convolution epilogues too.

Usage: ``python benchmarks/bench_fusion.py [--nets bert,resnet,resnet50] [--quick] [--steady SECONDS]
[--rounds N] [--kernels] [--json PATH]``.

Networks (bench_build's, benchmarks/netspec.py): each (network, mode) measurement runs in a fresh process (one
thread: OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=1) over one shared temporary cache, builds the network in
inference mode, then measures the median time per call (build_worker.steady). Modes: ``off``
(OPBUILD_FUSION=0), ``elementwise`` (passes/reduce_fusion.py and passes/fusion.py: the worker removes the
epilogue pass from the default pipeline, whose identity then says so) and ``epilogue`` (the default
pipeline: row and elementwise fusion, then passes/epilogue.py). The modes are interleaved, ``--rounds``
times, and each keeps its best median: on a shared machine, load only ever slows a measurement down.

``--kernels``: single kernels in one process, MatMul + BiasAdd + GeLU and Conv2D + BatchNorm + ReLU, unfused
(three kernels), and fused (one kernel); the producer alone is the floor, so ``fused - producer`` is what the
epilogue costs (the part a per-block epilogue, run while the block is in cache, could at most save).

Prints Markdown tables for docs/benchmarks.md and writes JSON (``--json``, default
``benchmarks/results/fusion.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import netspec  # noqa: E402

MODES = ("off", "elementwise", "epilogue")


def measure(net: str, mode: str, quick: bool, steady_s: float) -> None:
    """Worker: build ``net`` under ``mode``, print one JSON line of figures."""
    import build_worker

    import opbuild as ms
    from opbuild.passes import DEFAULT_PIPELINE, EpilogueFusion

    if mode == "elementwise":  # the same pipeline object the session runs, without the epilogue pass
        DEFAULT_PIPELINE.passes = tuple(p for p in DEFAULT_PIPELINE.passes if not isinstance(p, EpilogueFusion))
    ms.set_context(mode=ms.GRAPH_MODE)
    model, x = build_worker._opbuild_net(netspec.config(net, quick))
    model.set_train(False)
    model(x)
    report = ms.build_report()
    (compiled,) = model.compile_info()
    fig = build_worker.steady(lambda: model(x), steady_s)
    nodes = compiled.graph.nodes
    print(json.dumps({"nodes": len(nodes), "kernels": len(report.kernels),
                      "fused": sum(n.op.startswith("Fused") for n in nodes),
                      "epilogues": sum(n.op in ("FusedMatMul", "FusedBatchMatMul", "FusedConv2D") for n in nodes),
                      "row_fused": sum(n.op == "FusedRowReduce" for n in nodes),
                      "arena_bytes": compiled.graph.memory_plan.arena_bytes, **fig}))


def _networks(a) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory(prefix="opbuild-fusion-bench-") as root:
        for net in a.nets.split(","):
            best: dict[str, dict] = {}
            for _ in range(a.rounds):
                for mode in MODES:
                    env = dict(os.environ, OPBUILD_CACHE_PATH=root, OPBUILD_FUSION="0" if mode == "off" else "1",
                               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OPBUILD_PROGRESS="0")
                    cmd = [sys.executable, __file__, "--worker", net, "--mode", mode, "--steady", str(a.steady),
                           *(["--quick"] if a.quick else [])]
                    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
                    fig = json.loads(out.strip().splitlines()[-1])
                    if mode not in best or fig["steady_s"] < best[mode]["steady_s"]:
                        best[mode] = fig
            row = {"net": net, "config": netspec.describe(netspec.config(net, a.quick)), **best}
            results.append(row)
            print(_net_row(row), flush=True)
    return results


def _net_row(r: dict) -> str:
    off, ew, ep = (r[m] for m in MODES)
    return (f"| {r['net']} ({r['config']}) | {off['steady_s'] * 1e3:.2f} ms | {ew['steady_s'] * 1e3:.2f} ms | "
            f"{ep['steady_s'] * 1e3:.2f} ms | {off['steady_s'] / ep['steady_s']:.2f}x | "
            f"{ew['steady_s'] / ep['steady_s']:.2f}x | {off['nodes']} -> {ew['nodes']} -> {ep['nodes']} | "
            f"{ep['epilogues']} / {ep.get('row_fused', 0)} | "
            f"{off['arena_bytes'] / 2**20:.2f} -> {ep['arena_bytes'] / 2**20:.2f} MiB |")


# ---- single kernels --------------------------------------------------------------------------------------------

KERNEL_CASES = {
    "dense 256x1024 @ 1024x1024 + bias + GeLU": "dense",
    "conv 64->64 3x3 on 1x64x56x56 + BN + ReLU": "conv",
    "conv 1x1 256->64 on 1x256x56x56 + BN + ReLU": "conv1x1",
}


def _kernel_case(kind: str):
    """(graph function, inputs, producer-only function) of one micro case."""
    import numpy as np

    import opbuild.nn as nn
    import opbuild.ops as ops
    from opbuild.core.tensor import Tensor

    rng = np.random.default_rng(0)
    if kind == "dense":
        x, w = rng.standard_normal((256, 1024), np.float32), rng.standard_normal((1024, 1024), np.float32) * 0.03
        b = Tensor(rng.standard_normal(1024).astype(np.float32))
        mm = ops.MatMul(transpose_b=True)
        return (lambda x, w: ops.GeLU()(ops.BiasAdd()(mm(x, w), b))), [x, w], (lambda x, w: mm(x, w))
    c_in, k = (64, 3) if kind == "conv" else (256, 1)
    x = rng.standard_normal((1, c_in, 56, 56), np.float32)
    w = rng.standard_normal((64, c_in, k, k), np.float32) * 0.05
    bn = nn.BatchNorm2d(64)
    bn.set_train(False)
    conv = ops.Conv2D(64, k, pad_mode="same")
    return (lambda x, w: ops.ReLU()(bn(conv(x, w)))), [x, w], (lambda x, w: conv(x, w))


def _kernels(a) -> list[dict]:
    """Unfused, fused and producer-only steady times of each micro case, interleaved rounds, best medians."""
    import build_worker

    from opbuild.core import trace
    from opbuild.core.tensor import Tensor
    from opbuild.runtime.session import session

    results = []
    for title, kind in KERNEL_CASES.items():
        fn, arrays, producer = _kernel_case(kind)
        compiled = {}
        for name, f, flag in (("unfused", fn, "0"), ("fused", fn, "1"), ("producer", producer, "0")):
            os.environ["OPBUILD_FUSION"] = flag
            graph, _ = trace.trace(f, [Tensor(v) for v in arrays])
            compiled[name] = (session().compile_graph(graph), [n.op for n in graph.nodes])
        best: dict[str, float] = {}
        for _ in range(a.rounds):
            for name, (cg, _) in compiled.items():
                t = build_worker.steady(lambda cg=cg, xs=arrays: cg(xs), a.steady / 3)["steady_s"]
                best[name] = min(t, best.get(name, t))
        row = {"case": title, **{f"{k}_s": v for k, v in best.items()},
               **{f"{k}_ops": v[1] for k, v in compiled.items()}}
        results.append(row)
        print(_kernel_row(row), flush=True)
    return results


def _kernel_row(r: dict) -> str:
    u, f, p = r["unfused_s"], r["fused_s"], r["producer_s"]
    return (f"| {r['case']} | {p * 1e3:.3f} ms | {u * 1e3:.3f} ms | {f * 1e3:.3f} ms | {u / f:.2f}x | "
            f"{(f - p) / p * 100:+.1f}% | {' + '.join(r['unfused_ops'])} -> {' + '.join(r['fused_ops'])} |")


def main(argv: list[str] | None = None) -> int:
    """Run the network modes (each in its own process) and, with ``--kernels``, the single-kernel cases."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default="bert,resnet", help="comma-separated names of benchmarks/netspec.py ('' for none)")
    p.add_argument("--quick", action="store_true", help="netspec's quick configurations")
    p.add_argument("--steady", type=float, default=3.0, help="seconds of steady-state calls per measurement")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (the best median of each is kept)")
    p.add_argument("--kernels", action="store_true", help="also the single-kernel epilogue cases")
    p.add_argument("--json", type=Path, default=HERE / "results" / "fusion.json", help="where to write the figures")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=MODES, default="epilogue", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        measure(a.worker, a.mode, a.quick, a.steady)
        return 0
    out: dict = {"threads": 1, "load_before": os.getloadavg()}
    if a.nets:
        out["networks"] = _networks(a)
    if a.kernels:
        with tempfile.TemporaryDirectory(prefix="opbuild-fusion-kernels-") as root:
            # Read when the BLAS and the kernels load: nothing of opbuild is loaded in this process yet.
            os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OPBUILD_CACHE_PATH=root,
                              OPBUILD_PROGRESS="0")
            out["kernels"] = _kernels(a)
    out["load_after"] = os.getloadavg()
    if "networks" in out:
        print("| network | steady / call, unfused | elementwise fusion | + epilogues | speed-up vs unfused | "
              "vs elementwise | graph nodes | epilogue / row kernels | arena |\n|---|---|---|---|---|---|---|---|---|")
        print("\n".join(_net_row(r) for r in out["networks"]))
    if "kernels" in out:
        print("\n| case | producer alone | unfused | fused | speed-up | epilogue cost over the producer | kernels |"
              "\n|---|---|---|---|---|---|---|")
        print("\n".join(_kernel_row(r) for r in out["kernels"]))
    print(f"load average before {out['load_before']}, after {out['load_after']}")
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
