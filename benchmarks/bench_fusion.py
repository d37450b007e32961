"""Steady time per call with and without operator fusion (passes/fusion.py) on bench_build's networks.

Usage: ``python benchmarks/bench_fusion.py [--nets bert,resnet] [--quick] [--steady SECONDS]``. Each
(network, OPBUILD_FUSION) pair runs in a fresh process (one thread: OMP_NUM_THREADS=1) over one shared
temporary cache, builds the network, then measures the median time per call (build_worker.steady). Prints a
Markdown table for docs/benchmarks.md: steady ms per call unfused and fused, graph nodes (= kernel calls per
call), and the fused kernels by kind: elementwise chains (passes/fusion.py) and row reductions with their
prologue/epilogue (passes/reduce_fusion.py). Writes the figures as JSON (``--json``).
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


def measure(net: str, quick: bool, steady_s: float) -> None:
    """Worker: build ``net`` under the current OPBUILD_FUSION, print one JSON line of figures."""
    import build_worker

    import opbuild as ms

    ms.set_context(mode=ms.GRAPH_MODE)
    model, x = build_worker._opbuild_net(netspec.config(net, quick))
    model.set_train(False)
    model(x)
    report = ms.build_report()
    (compiled,) = model.compile_info()
    fig = build_worker.steady(lambda: model(x), steady_s)
    print(json.dumps({"nodes": len(compiled.graph.nodes), "kernels": len(report.kernels),
                      "fused": sum(n.op == "FusedElementwise" for n in compiled.graph.nodes),
                      "row_fused": sum(n.op == "FusedRowReduce" for n in compiled.graph.nodes), **fig}))


def main(argv: list[str] | None = None) -> int:
    """Run every (network, fusion) pair in its own process and print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default="bert,resnet", help="comma-separated names of benchmarks/netspec.py")
    p.add_argument("--quick", action="store_true", help="netspec's quick configurations")
    p.add_argument("--steady", type=float, default=3.0, help="seconds of steady-state calls per measurement")
    p.add_argument("--json", type=Path, default=HERE / "results" / "fusion.json", help="where to write results")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        measure(a.worker, a.quick, a.steady)
        return 0
    rows = ["| network | steady / call, unfused | fused | speed-up | nodes unfused -> fused | "
            "elementwise / row fused kernels |", "|---|---|---|---|---|---|"]
    results = {}
    with tempfile.TemporaryDirectory(prefix="opbuild-fusion-bench-") as root:
        for net in a.nets.split(","):
            res = {}
            for flag in ("0", "1"):
                env = dict(os.environ, OPBUILD_CACHE_PATH=root, OPBUILD_FUSION=flag, OMP_NUM_THREADS="1",
                           OPBUILD_PROGRESS="0")
                cmd = [sys.executable, __file__, "--worker", net, "--steady", str(a.steady),
                       *(["--quick"] if a.quick else [])]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
                res[flag] = json.loads(out.strip().splitlines()[-1])
            off, on = res["0"], res["1"]
            results[net] = {"unfused": off, "fused": on}
            rows.append(f"| {net} ({netspec.describe(netspec.config(net, a.quick))}) | "
                        f"{off['steady_s'] * 1e3:.2f} ms | {on['steady_s'] * 1e3:.2f} ms | "
                        f"{off['steady_s'] / on['steady_s']:.2f}x | {off['nodes']} -> {on['nodes']} | "
                        f"{on['fused']} / {on['row_fused']} |")
            print(rows[-1], flush=True)
    print("\n".join(rows))
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
