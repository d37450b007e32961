"""Data-parallel training on MPI: step time and scaling for 1 and 2 ranks, and the cold build of a job of 1, 2
and 4 ranks sharing a file:// tier (each kernel built once in the whole job).

    python benchmarks/bench_distributed.py [--steps 200] [--out benchmarks/results/bench_distributed.json]

Step time is weak scaling: every rank trains on the same per-rank batch, so 2 ranks process twice the global
batch per step; the ideal is an unchanged step time. Ranks beyond the machine's cores are oversubscribed
(``--oversubscribe``) and then measure contention, not MPI. Each cold build starts from an empty cache and an
empty tier; "built" sums the kernels compiled over all ranks (equal to the distinct kernels when each is built
once in the job) and the wall time is the slowest rank's build.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MPIRUN = shutil.which("mpirun", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
BATCH, FEATURES, HIDDEN, CLASSES = 64, 256, 512, 10


def worker(out: str, steps: int, warmup: int) -> None:
    import numpy as np

    import opbuild as ms
    from opbuild import communication as comm
    from opbuild import nn

    comm.init()
    ms.set_context(mode=ms.GRAPH_MODE)  # measured on compiled graphs; PYNATIVE_MODE is the default
    rank, size = comm.get_rank(), comm.get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = nn.SequentialCell([nn.Dense(FEATURES, HIDDEN), nn.ReLU(), nn.Dense(HIDDEN, HIDDEN), nn.ReLU(),
                             nn.Dense(HIDDEN, CLASSES)])
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    rng = np.random.default_rng(rank)
    x = ms.Tensor(rng.standard_normal((BATCH, FEATURES)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((BATCH, CLASSES)).astype(np.float32))
    t0 = time.perf_counter()
    step(x, y)  # traces and builds (cold or warm), then runs the first step
    first = time.perf_counter() - t0
    report = ms.build_report()
    for _ in range(warmup):
        step(x, y)
    times = []
    for _ in range(steps):
        t = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - t)
    times.sort()
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "size": size, "first_step_s": first, "build_s": report.seconds,
                   "built": report.built, "reused": report.reused,
                   "step_median_ms": 1e3 * times[len(times) // 2] if times else None,
                   "step_mean_ms": 1e3 * sum(times) / len(times) if times else None}, f)


def job(n: int, steps: int, warmup: int, cache: Path, tier: Path | None) -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-dist-out-"))
    env = dict(os.environ)
    env.pop("RANK_ID", None)
    env.pop("RANK_SIZE", None)
    env.pop("OPBUILD_REMOTE_CACHE", None)
    env.update({"PYTHONPATH": f"{SRC}{os.pathsep}{env.get('PYTHONPATH', '')}", "OPBUILD_CACHE_PATH": str(cache),
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_mpi_yield_when_idle": "1", "OMP_NUM_THREADS": "1"})
    if tier is not None:
        env["OPBUILD_REMOTE_CACHE"] = tier.as_uri()
    cmd = [MPIRUN, "-n", str(n), "--oversubscribe", "--bind-to", "none", sys.executable, __file__, "--worker",
           str(out), "--steps", str(steps), "--warmup", str(warmup)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"mpirun -n {n} failed:\n{proc.stdout}{proc.stderr}")
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]
    shutil.rmtree(out, ignore_errors=True)
    return {"ranks": n, "job_wall_s": wall, "per_rank": ranks}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--out", default=str(Path(__file__).with_name("results") / "bench_distributed.json"))
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps, args.warmup)
        return
    if MPIRUN is None:
        raise SystemExit("no mpirun: pip install 'opbuild[distributed]'")
    root = Path(tempfile.mkdtemp(prefix="bench-dist-"))
    results: dict = {"cores": os.cpu_count(), "load_avg_1min": os.getloadavg()[0], "batch_per_rank": BATCH,
                     "model": f"MLP {FEATURES}-{HIDDEN}-{HIDDEN}-{CLASSES}", "steps": args.steps,
                     "step": [], "cold_build": []}
    try:
        warm = root / "warm-cache"
        job(2, 0, 0, warm, None)  # builds every rank's kernels: the step-time runs start warm
        print(f"{'ranks':>5} {'step median ms':>15} {'step mean ms':>13} {'samples/s':>10} {'scaling':>8}")
        base = None
        for n in (1, 2):
            r = job(n, args.steps, args.warmup, warm, None)
            median = max(p["step_median_ms"] for p in r["per_rank"])
            mean = max(p["step_mean_ms"] for p in r["per_rank"])
            throughput = n * BATCH / (median / 1e3)
            base = base or throughput
            results["step"].append({**r, "step_median_ms": median, "step_mean_ms": mean,
                                    "samples_per_s": throughput, "scaling": throughput / base})
            print(f"{n:>5} {median:>15.2f} {mean:>13.2f} {throughput:>10.0f} {throughput / base:>7.2f}x")
        print(f"\n{'ranks':>5} {'built (sum)':>11} {'slowest build s':>16} {'job wall s':>11}")
        for n in (1, 2, 4):
            cache, tier = root / f"cold-{n}", root / f"tier-{n}"
            tier.mkdir()
            r = job(n, 0, 0, cache, tier)
            built = sum(p["built"] for p in r["per_rank"])
            slowest = max(p["build_s"] for p in r["per_rank"])
            results["cold_build"].append({**r, "built_total": built, "slowest_build_s": slowest})
            print(f"{n:>5} {built:>11} {slowest:>16.2f} {r['job_wall_s']:>11.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    results["load_avg_1min_after"] = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"\nload average {results['load_avg_1min']:.1f} -> {results['load_avg_1min_after']:.1f} on "
          f"{results['cores']} cores; wrote {args.out}")


if __name__ == "__main__":
    main()
