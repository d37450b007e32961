"""MindSpore's random streams: the compiled GRAPH_MODE kernels (ops/ms_random_ops.py) against the PyNative host
draws (core/ms_random_streams.py) and opbuild's own counter-based stream (an unseeded program's).

Each row times one seeded sampler drawing ``--n`` values per call: ``graph`` is a GRAPH_MODE Cell call (kernel,
state Assign and the call's overhead), ``pynative`` the eager functional call after ``set_seed`` (NumPy on the
host), ``own stream`` the GRAPH_MODE Cell call before any ``set_seed`` (opbuild's splitmix64 kernels, what the
graph drew before). Figures are the best of ``--repeat`` rounds of wall seconds per call, after a warm-up call
that builds the kernels (cache in a temporary folder unless OPBUILD_CACHE_PATH is set).

Usage: ``python benchmarks/bench_random_graph.py [--n N] [--repeat R] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
OPS = ("rand", "randn", "randint")


def _draw(ops, name: str, n: int):
    if name == "randint":
        return ops.randint(0, 1000, (n,), dtype=None)
    return getattr(ops, name)(n)


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def child(name: str, mode: str, n: int, repeat: int) -> float:
    """Seconds per call of ``name`` in ``mode`` (graph, pynative, own) in this fresh process."""
    import opbuild as ms
    from opbuild import nn, ops

    if mode != "own":
        ms.set_seed(7)
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)

    class Draw(nn.Cell):
        def construct(self):
            return _draw(ops, name, n)

    cell = Draw()
    call = (lambda: _draw(ops, name, n).asnumpy()) if mode == "pynative" else (lambda: cell().asnumpy())
    call()  # builds the kernels
    return _best(call, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", nargs=2, metavar=("OP", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.n, args.repeat)))
        return
    env = dict(os.environ, PYTHONPATH=str(SRC))
    rows = {}
    with tempfile.TemporaryDirectory() as cache:
        env.setdefault("OPBUILD_CACHE_PATH", cache)
        for name in OPS:
            rows[name] = {}
            for mode in ("graph", "pynative", "own"):
                out = subprocess.run([sys.executable, __file__, "--child", name, mode, "--n", str(args.n),
                                      "--repeat", str(args.repeat)], env=env, capture_output=True, text=True,
                                     check=True)
                rows[name][mode] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"seconds per call, {args.n:,} values")
    print(f"{'op':<8} {'graph (MindSpore stream)':>26} {'pynative (host)':>16} {'graph (own stream)':>20}")
    for name, r in rows.items():
        print(f"{name:<8} {r['graph']:>26.4f} {r['pynative']:>16.4f} {r['own']:>20.4f}")
    if args.json:
        args.json.write_text(json.dumps({"n": args.n, "seconds_per_call": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
