"""Benchmark of the shared cache tier: a cold build of one network by 1, 2 and 4 rank processes sharing a
Redis tier, versus the same ranks each building alone.

Runnable as it is::

    PYTHONPATH=src python benchmarks/bench_remote.py [--ranks 1 2 4] [--jobs 1] [--repeat 1]
                                                     [--network bert|elementwise]
                                                     [--url redis://host:port/db]

Without ``--url`` it starts its own redis-server (Debian package redis-server) on a free loopback port and
flushes it before every shared run. Every rank is a fresh Python process with an empty local cache; the ranks
of a job import opbuild and construct the network, then start building together. "Wall" is the job's time
from that common start until its last rank has traced the network and built all its kernels; "build" is the
longest build phase of a rank (``build_report().seconds``). Every rank then runs the network once and checks
its outputs against the reference interpreter.
Results: a table on stdout and benchmarks/results/remote.json.

The network: ``--network bert`` (the default) is the BERT-base encoder of ``opbuild.models`` (26 distinct
kernels: MatMul, BatchMatMul, LayerNorm, Softmax, Gather, ...); ``elementwise`` is an elementwise-only network
with the same number of distinct kernels on BERT-base-sized tensors (cheaper to set up: no 110M parameters per
rank). The network is chosen in :func:`make_network`.

Each rank compiles with ``--jobs`` parallel compiler calls (OPBUILD_BUILD_JOBS, default 1): N ranks building
alone then use N cores between them, as N cooperating ranks do, so the comparison is of the same hardware.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "remote.json"
ELEMENTWISE_OPS = ("Tanh", "Sigmoid", "Exp", "Neg", "Square", "Sin", "Cos", "Abs")
ELEMENTWISE_SHAPES = ((128, 768), (128, 3072), (12, 128, 128), (12, 128, 64))
KERNELS = 26  # distinct kernels of the BERT-base encoder (opbuild.models.BERT_BASE, batch 1, sequence 128)


# ---- the network ----------------------------------------------------------------------------------------
def make_network(kind: str):
    """(name, cell, list of input Tensors) of the benchmarked network."""
    if kind == "bert":
        from opbuild.models import BERT_BASE, transformer_encoder, transformer_input

        return "bert", transformer_encoder(BERT_BASE), [transformer_input(BERT_BASE)]
    return "elementwise", *_elementwise_network(KERNELS)


def _elementwise_network(kernels: int):
    """``kernels`` distinct (op, shape) pairs: every input runs through its chain of unary ops."""
    import numpy as np

    import opbuild as ms
    import opbuild.nn as nn
    import opbuild.ops as ops

    ms.set_context(mode=ms.GRAPH_MODE)  # measured on compiled graphs; PYNATIVE_MODE is the default
    plan = [(op, shape) for shape in ELEMENTWISE_SHAPES for op in ELEMENTWISE_OPS][:kernels]
    shapes = list(dict.fromkeys(shape for _, shape in plan))

    class Chains(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.chains = [[getattr(ops, op)() for op, s in plan if s == shape] for shape in shapes]

        def construct(self, *xs):
            outs = []
            for x, chain in zip(xs, self.chains):
                for op in chain:
                    x = op(x)
                outs.append(x)
            return tuple(outs)

    rng = np.random.default_rng(0)
    return Chains(), [ms.Tensor(rng.uniform(-1, 1, s).astype(np.float32)) for s in shapes]


# ---- one rank (a fresh process) -------------------------------------------------------------------------
def _rank(cfg: dict) -> None:
    import numpy as np

    import opbuild as ms
    from opbuild.core import trace
    from opbuild.runtime.reference import run_reference
    from opbuild.runtime.session import session

    ms.set_context(mode=ms.GRAPH_MODE)  # measured on compiled graphs; PYNATIVE_MODE is the default
    name, net, xs = make_network(cfg["network"])
    Path(cfg["gate"], f"ready.{os.environ['RANK_ID']}").touch()
    while not Path(cfg["gate"], "go").exists():
        time.sleep(0.005)
    graph, _ = trace.trace(net.construct, xs)
    session().compile_graph(graph)  # the cold build being measured
    done = time.time()
    report = ms.build_report()
    outs = net(*xs)  # run it once (its kernels now come from this process's memory) and check it
    outs = outs if isinstance(outs, tuple) else (outs,)
    refs = run_reference(graph, [x.asnumpy() for x in xs])
    # float32 through 12 encoder layers (sums over 768-3072 terms): rtol 1e-3, atol 1e-4.
    ok = all(np.allclose(o.asnumpy(), r, rtol=1e-3, atol=1e-4) for o, r in zip(outs, refs))
    print(json.dumps({"network": name, "done": done, "build_seconds": report.seconds, "built": report.built,
                      "fetched": report.fetched, "kernels": len(report.kernels), "ok": bool(ok)}))


# ---- the driver -----------------------------------------------------------------------------------------
class _Redis:
    def __init__(self, workdir: Path):
        exe = shutil.which("redis-server")
        if exe is None:
            sys.exit("redis-server not found: install the Debian package redis-server, or pass --url")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        sys.exit("redis-server did not start")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(10)


def _flush(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def _job(n: int, url: str | None, args, workdir: Path) -> dict:
    """Run ``n`` ranks together on empty local caches; with ``url`` they share that tier."""
    root = Path(tempfile.mkdtemp(prefix=f"ranks{n}.", dir=workdir))
    gate = root / "gate"
    gate.mkdir()
    procs = []
    for rank in range(n):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPBUILD_", "RANK_"))}
        env.update({"OPBUILD_CACHE_PATH": str(root), "RANK_ID": str(rank), "RANK_SIZE": str(n),
                    "OPBUILD_BUILD_JOBS": str(args.jobs), "OPBUILD_PROGRESS": "0"})
        if url:
            env["OPBUILD_REMOTE_CACHE"] = url
        cfg = json.dumps({"network": args.network, "gate": str(gate)})
        procs.append(subprocess.Popen([sys.executable, __file__, "--rank", cfg], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    while not all((gate / f"ready.{r}").exists() for r in range(n)):
        if any(p.poll() is not None for p in procs):
            sys.exit("a rank failed before the start:\n" + "".join(p.communicate()[1] for p in procs))
        time.sleep(0.01)
    start = time.time()
    (gate / "go").touch()
    ranks = []
    for p in procs:
        out, err = p.communicate(timeout=1800)
        if p.returncode != 0:
            sys.exit(f"a rank failed:\n{err}")
        ranks.append(json.loads(out.strip().splitlines()[-1]))
    if not all(r["ok"] for r in ranks):
        sys.exit("a rank computed wrong outputs")
    shutil.rmtree(root, ignore_errors=True)
    return {"ranks": n, "mode": "shared redis" if url else "alone", "network": ranks[0]["network"],
            "kernels": ranks[0]["kernels"], "wall": max(r["done"] for r in ranks) - start,
            "build": max(r["build_seconds"] for r in ranks),
            "total_compiles": sum(r["built"] for r in ranks), "fetched": sum(r["fetched"] for r in ranks),
            "compiles_per_rank": [r["built"] for r in ranks]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--jobs", type=int, default=1, help="OPBUILD_BUILD_JOBS of every rank")
    parser.add_argument("--network", choices=["bert", "elementwise"], default="bert")
    parser.add_argument("--url", help="a Redis URL to use instead of starting a redis-server")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row; the median wall time is shown")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--rank", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rank:
        return _rank(json.loads(args.rank))

    workdir = Path(tempfile.mkdtemp(prefix="opbuild-bench-remote."))
    server = None if args.url else _Redis(workdir)
    url = args.url or server.url
    rows = []
    try:
        for n in args.ranks:
            for shared in (None, url):
                runs = []
                for _ in range(args.repeat):  # a busy machine makes single timings noisy: report the median
                    if shared:
                        _flush(shared)
                    runs.append(_job(n, shared, args, workdir))
                runs.sort(key=lambda r: r["wall"])
                row = dict(runs[len(runs) // 2], walls=[r["wall"] for r in runs])
                row["total_compiles"] = max(r["total_compiles"] for r in runs)  # the worst run, not the median
                rows.append(row)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)

    print(f"network: {rows[0]['network']} ({rows[0]['kernels']} distinct kernels), {args.jobs} compile job(s) per "
          f"rank, {os.cpu_count()} cores, median of {args.repeat} run(s)")
    print(f"{'ranks':>5}  {'mode':<13} {'wall s':>7}  {'build s':>7}  {'compiles':>8}  {'fetched':>7}  per rank")
    for r in rows:
        print(f"{r['ranks']:>5}  {r['mode']:<13} {r['wall']:>7.2f}  {r['build']:>7.2f}  {r['total_compiles']:>8}  "
              f"{r['fetched']:>7}  {r['compiles_per_rank']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                                    "jobs_per_rank": args.jobs, "repeat": args.repeat, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
