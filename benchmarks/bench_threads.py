"""Default threads against one thread on a loaded machine: a 784-256-128-10 MLP at batch 8 (docs/threads.md).

Each setting runs in a fresh process (thread counts are read when the libraries load): ``default`` leaves
OMP_NUM_THREADS and OPENBLAS_NUM_THREADS unset, ``1 thread`` sets both to 1. Every process traces the MLP
in GRAPH mode, warms it, then calls it for ``--seconds`` and reports the mean, median and 99th percentile
per call. The mean is the figure that matters: a stalled call (a BLAS worker waiting for a core) is rare
but costs tens of milliseconds. ``--hog N`` starts N busy-looping processes for the duration (default: one
per core), so the machine is loaded even when it is otherwise idle. Settings alternate for ``--rounds``
rounds; the policy's target is default <= 1.1x one thread.

Usage: ``python benchmarks/bench_threads.py [--seconds S] [--rounds R] [--hog N]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time

CHILD = r"""
import json, sys, time
import numpy as np
import opbuild as ms
from opbuild import Tensor, nn

ms.set_context(mode=ms.GRAPH_MODE)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Dense(784, 256), nn.Dense(256, 128), nn.Dense(128, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))


net = MLP()
x = Tensor(np.random.default_rng(0).standard_normal((8, 784)).astype(np.float32))
for _ in range(50):
    net(x)
times, end = [], time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < end:
    t0 = time.perf_counter()
    net(x)
    times.append(time.perf_counter() - t0)
t = np.array(times)
print(json.dumps({"calls": len(t), "mean": t.mean(), "median": float(np.median(t)),
                  "p99": float(np.percentile(t, 99))}))
"""


def _hog() -> None:
    while True:
        pass


def _run(threads: str | None, seconds: float) -> dict:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.pop(var, None)
        if threads is not None:
            env[var] = threads
    out = subprocess.run([sys.executable, "-c", CHILD, str(seconds)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Alternate the settings under the hog, print mean/median/p99 per call and the default/1-thread ratio."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--hog", type=int, default=os.cpu_count() or 1)
    args = p.parse_args(argv)
    hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(args.hog)]
    for h in hogs:
        h.start()
    results: dict[str, list[dict]] = {"default": [], "1 thread": []}
    try:
        time.sleep(0.5)
        for _ in range(args.rounds):
            results["default"].append(_run(None, args.seconds))
            results["1 thread"].append(_run("1", args.seconds))
    finally:
        for h in hogs:
            h.terminate()
    print(f"MLP 784-256-128-10, batch 8, {args.hog} hog process(es), load average {os.getloadavg()[0]:.1f}")
    for label, runs in results.items():
        for r in runs:
            print(f"{label:>9}: {r['calls']:6d} calls  mean {r['mean'] * 1e3:7.3f} ms  "
                  f"median {r['median'] * 1e3:6.3f} ms  p99 {r['p99'] * 1e3:7.2f} ms")
    ratio = (sum(r["mean"] for r in results["default"]) / sum(r["mean"] for r in results["1 thread"]))
    print(f"default / 1 thread (mean per call): {ratio:.2f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
