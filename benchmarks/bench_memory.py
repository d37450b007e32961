"""Memory-planning benchmark: activation memory of inference graphs, planned arena against the sum of all
intermediates (one buffer per node output, as before planning).

    python benchmarks/bench_memory.py [--quick] [--nets mlp,resnet,resnet50,bert] [--run] [--out DIR]

Networks are those of benchmarks/netspec.py (ResNet-50 at 224x224 batch 1, BERT-base at sequence 128 batch 1;
``--quick`` shrinks them). Each is traced in inference mode and run through the default pipeline (folding,
dead-code elimination, memory planning); the plan's invariants are checked (``MemoryPlan.verify``). Planning
needs no kernel; ``--run`` also builds the graph with and without the plan, runs both once on the same input
and checks that the outputs are equal, and times one call of each (median of 5; cold builds of the full-size
networks take minutes).

Prints a table and writes ``<out>/memory.json``. Target: arena <= 40% of the intermediates.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
TARGET = 0.40


def measure(net_name: str, quick: bool, run: bool) -> dict[str, Any]:
    """Trace ``net_name``, plan its memory, verify the plan; with ``run``, also execute planned vs unplanned."""
    sys.path.insert(0, str(HERE))
    from build_worker import _opbuild_net
    from netspec import config

    from opbuild.core import trace
    from opbuild.passes import DEFAULT_PIPELINE, ConstantFolding, DeadCodeElimination, Pipeline
    from opbuild.runtime.session import session

    net, x = _opbuild_net(config(net_name, quick))
    net.set_train(False)
    t0 = time.perf_counter()
    graph, _ = trace.trace(net.construct, [x])
    graph = DEFAULT_PIPELINE.run(graph)
    plan_s = time.perf_counter() - t0
    plan = graph.memory_plan
    plan.verify(graph)
    row = {"net": net_name, "nodes": len(graph.nodes), "plan_s": round(plan_s, 3), **plan.summary()}
    if run:
        planned = session().compile_graph(graph)
        g2, _ = trace.trace(net.construct, [x])
        unplanned = session().compile_graph(g2, Pipeline([ConstantFolding(), DeadCodeElimination()]))
        same = all(np.array_equal(a, b, equal_nan=True)
                   for a, b in zip(planned([x.asnumpy()]), unplanned([x.asnumpy()]), strict=True))
        row["outputs_equal"] = bool(same)
        # Interleaved, so a change in the machine's load between the two series does not favour one of them.
        times: dict[str, list[float]] = {"planned_call_s": [], "unplanned_call_s": []}
        for _ in range(5):
            for name, fn in (("unplanned_call_s", unplanned), ("planned_call_s", planned)):
                t0 = time.perf_counter()
                fn([x.asnumpy()])
                times[name].append(time.perf_counter() - t0)
        row.update({name: round(sorted(ts)[2], 4) for name, ts in times.items()})
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status (1 when a network misses the target)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="the shrunken networks of netspec.QUICK")
    p.add_argument("--nets", default="mlp,resnet,resnet50,bert", help="comma-separated networks")
    p.add_argument("--run", action="store_true", help="also build and run, planned against unplanned")
    p.add_argument("--out", type=Path, default=HERE / "results", help="output folder (memory.json)")
    args = p.parse_args(argv)
    rows = [measure(n, args.quick, args.run) for n in args.nets.split(",")]
    mib = 1 << 20
    print(f"{'net':<10}{'nodes':>7}{'kernels':>9}{'views':>7}{'reused':>9}{'buffers':>9}"
          f"{'intermediates MiB':>19}{'arena MiB':>11}{'ratio':>8}")
    for r in rows:
        print(f"{r['net']:<10}{r['nodes']:>7}{r['kernels']:>9}{r['views']:>7}{r['reused_inputs']:>9}{r['buffers']:>9}"
              f"{r['intermediate_bytes'] / mib:>19.2f}{r['arena_bytes'] / mib:>11.2f}{r['ratio']:>8.1%}"
              + ("" if "outputs_equal" not in r else f"  outputs equal: {r['outputs_equal']}, call "
                 f"{r['planned_call_s'] * 1e3:.1f} ms planned / {r['unplanned_call_s'] * 1e3:.1f} ms unplanned"))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "memory.json").write_text(json.dumps({"quick": args.quick, "target_ratio": TARGET,
                                                      "nets": rows}, indent=1) + "\n")
    missed = [r["net"] for r in rows if r["net"] in ("resnet50", "bert") and r["ratio"] > TARGET]
    if missed:
        print(f"target missed (arena > {TARGET:.0%} of intermediates): {', '.join(missed)}")
    return 1 if missed or not all(r.get("outputs_equal", True) for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
