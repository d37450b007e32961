"""Benchmark of the kernel_meta cache: cold build, warm build (every kernel reused) and an incremental build.

Runnable as it is::

    PYTHONPATH=src python benchmarks/bench_cache.py [--repeat N] [--profile]

Every measurement runs in a fresh Python process (so nothing is served from a previous run's memory) against
a cache directory of its own, prints a table and writes benchmarks/results/cache.json.

The network is elementwise-only (``opbuild.models`` with the ResNet-style example did not exist when this
benchmark was written): 10 independent branches, each Sigmoid, Tanh, Mul, Add and ReLU on a (32, width)
float32 input with a distinct width per branch, i.e. 50 distinct kernels. "Build phase" is
``build_report().seconds``: everything ``Builder.build`` does for the graph (cache directory, toolchain
identity, descriptors and names, sweep, lookups with .info comparison and sha256 verification, dlopen).
The target for the warm build phase is at most 0.3 ms per kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "cache.json"
ROWS = 32
WIDTHS = [40 + 8 * i for i in range(10)]  # 10 branches x 5 ops = 50 distinct kernels
WARM_TARGET_MS = 0.3


def _child(cfg: dict) -> dict:
    """Runs in the fresh process: build and run the network once, return the build report and timings."""
    t0 = time.perf_counter()
    import numpy as np

    import opbuild as ms
    import opbuild.nn as nn
    import opbuild.ops as ops

    t_import = time.perf_counter() - t0
    widths = cfg["widths"]

    class Branches(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.sigmoid, self.tanh, self.relu = ops.Sigmoid(), ops.Tanh(), ops.ReLU()
            self.mul, self.add = ops.Mul(), ops.Add()

        def construct(self, *xs):
            return tuple(self.relu(self.add(self.mul(self.sigmoid(x), self.tanh(x)), x)) for x in xs)

    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(0)
    xs = [ms.Tensor(rng.standard_normal((ROWS, w)).astype(np.float32)) for w in widths]
    net = Branches()
    profiler = None
    if cfg.get("profile"):
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t1 = time.perf_counter()
    outs = net(*xs)
    first_call = time.perf_counter() - t1
    if profiler is not None:
        profiler.disable()
        import io
        import pstats

        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(25)
        sys.stderr.write(buf.getvalue())
    for x, y in zip(xs, outs, strict=True):  # a benchmark of wrong kernels is worthless: check them
        a = x.asnumpy()
        want = np.maximum((1 / (1 + np.exp(-a))) * np.tanh(a) + a, 0)
        np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)
    return {"report": ms.build_report().as_dict(), "first_call_s": first_call, "import_s": t_import}


def run_child(widths: list[int], cache: Path, profile: bool = False) -> dict:
    """One fresh process building the network against ``cache``."""
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(cache), RANK_ID="0", OPBUILD_PROGRESS="0")
    cfg = json.dumps({"widths": widths, "profile": profile})
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", cfg], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{proc.stdout}\n{proc.stderr}")
    if profile:
        sys.stderr.write(proc.stderr)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def _summary(runs: list[dict], n_expected: dict) -> dict:
    reps = [r["report"] for r in runs]
    for rep in reps:
        for k, v in n_expected.items():
            assert rep[k] == v, f"expected {k}={v}, got {rep}"
    build = [r["seconds"] for r in reps]
    n = len(reps[0]["kernels"])
    return {
        "kernels": n,
        "built": reps[0]["built"],
        "reused": reps[0]["reused"],
        "build_s_median": statistics.median(build),
        "build_s_min": min(build),
        "per_kernel_ms_median": 1e3 * statistics.median(build) / n,
        "per_kernel_ms_min": 1e3 * min(build) / n,
        "first_call_s_median": statistics.median(r["first_call_s"] for r in runs),
        "process_s_median": statistics.median(r["process_s"] for r in runs),
        "runs": len(runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per measurement (default 5)")
    parser.add_argument("--profile", action="store_true", help="cProfile one warm build (printed to stderr)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return

    n = 5 * len(WIDTHS)
    changed = list(WIDTHS)
    changed[3] += 4  # one layer's width
    cold, warm, incr = [], [], []
    with tempfile.TemporaryDirectory(prefix="opbuild-bench-") as tmp:
        for i in range(args.repeat):
            cache = Path(tmp) / f"cache{i}"
            cold.append(run_child(WIDTHS, cache))
            warm.append(run_child(WIDTHS, cache))
            inc_cache = Path(tmp) / f"incr{i}"
            # The same warm cache, copied with the batches' hard links kept (as the original has them).
            subprocess.run(["cp", "-a", str(cache), str(inc_cache)], check=True)
            incr.append(run_child(changed, inc_cache))
            warm.append(run_child(WIDTHS, cache))
        if args.profile:
            run_child(WIDTHS, Path(tmp) / "cache0", profile=True)

    results = {
        "network": f"elementwise-only: {len(WIDTHS)} branches x 5 ops on ({ROWS}, width) float32, {n} kernels",
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                    "cores": os.cpu_count(), "loadavg_1m": os.getloadavg()[0]},
        "cold": _summary(cold, {"built": n, "reused": 0}),
        "warm": _summary(warm, {"built": 0, "reused": n}),
        "incremental": _summary(incr, {"built": 5, "reused": n - 5}),
        "warm_target_ms_per_kernel": WARM_TARGET_MS,
    }
    results["warm"]["meets_target"] = results["warm"]["per_kernel_ms_median"] <= WARM_TARGET_MS
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")

    print(f"{results['network']}; {args.repeat} x fresh processes per row\n")
    head = f"{'build':<12}{'kernels':>8}{'built':>7}{'reused':>8}{'build phase':>14}{'per kernel':>13}" \
           f"{'first call':>13}{'process':>10}"
    print(head)
    print("-" * len(head))
    for label in ("cold", "warm", "incremental"):
        r = results[label]
        print(f"{label:<12}{r['kernels']:>8}{r['built']:>7}{r['reused']:>8}{r['build_s_median'] * 1e3:>11.2f} ms"
              f"{r['per_kernel_ms_median']:>10.3f} ms{r['first_call_s_median'] * 1e3:>10.1f} ms"
              f"{r['process_s_median']:>8.2f} s")
    w = results["warm"]
    print(f"\nwarm build phase: {w['per_kernel_ms_median']:.3f} ms/kernel median, {w['per_kernel_ms_min']:.3f} min "
          f"(target <= {WARM_TARGET_MS} ms: {'met' if w['meets_target'] else 'NOT met'})")
    print(f"written to {RESULTS.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
