"""Per-call overhead: what a call costs above its kernels, for calls whose kernels take microseconds.

Measured in a fresh worker process per tree and round (warm cache, one thread, best of several batches of calls):

- ``pynative_op``: one eager ``ops.add`` of two float32 (4, 8) tensors in PyNative mode (the op's kernel is a
  few dozen nanoseconds: the figure is the dispatch: type inference, the kernel lookup, the call, the result);
- ``graph_call``: a small Cell (``x * 2 + 1`` then ``relu``) called in GRAPH_MODE on a float32 (4, 8) Tensor;
- ``onnx_run``: ``OnnxModel.run`` of the committed tiny ResNet (tests/fixtures/onnx/resnet.onnx, 14 kernels),
  with ``onnx_kernels``, the same graph's kernel calls alone in a loop, so ``onnx_run - onnx_kernels`` is the
  overhead of the layers above them;
- small calls of a network's life, all on float32 (PyNative unless named): ``x + y``, ``ops.mul``,
  ``ops.matmul``, ``Tensor.sum`` and ``ops.det`` of (8, 8) tensors, ``nn.Dense(16, 32)`` on a (1, 16) batch,
  a 2-layer MLP (Dense 16-32, ReLU, Dense 32-4) called in GRAPH_MODE on (1, 16), and one training step
  of that MLP (``TrainOneStepCell`` of MSE loss and SGD) in GRAPH_MODE.

``--baseline-src DIR`` measures another checkout's ``src`` too, alternating rounds in one run (the machine's
load changes between runs; compare ratios measured together). Prints a table and writes JSON
(``--json``, default benchmarks/results/call_overhead.json).

    python benchmarks/bench_call_overhead.py [--baseline-src OTHER/src] [--rounds 3] [--clock thread]
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

import numpy as np

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results" / "call_overhead.json"
MODEL = REPO / "tests" / "fixtures" / "onnx" / "resnet.onnx"
METRICS = ("pynative_op", "graph_call", "onnx_run", "onnx_kernels", "pn_add_8x8", "pn_mul_8x8", "pn_matmul_8x8",
           "pn_sum_8x8", "pn_det_8x8", "pn_dense", "graph_mlp", "graph_train_step")


# The clock of a worker (--clock): wall time, or the thread's CPU time, which a loaded machine disturbs less (time
# the process waits for a core is not counted; cache and frequency effects still are).
CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}
_clock = time.perf_counter


def _best_us(fn, calls: int, batches: int = 7) -> float:
    """Microseconds per call: the best of ``batches`` batches of ``calls`` calls (the least disturbed)."""
    best = float("inf")
    for _ in range(batches):
        t0 = _clock()
        for _ in range(calls):
            fn()
        best = min(best, _clock() - t0)
    return best / calls * 1e6


def worker() -> dict[str, float | None]:
    """Run in a fresh process with the tree under test first on sys.path; returns microseconds per call."""
    import opbuild as ms
    import opbuild.frontends.onnx as onnx_frontend
    from opbuild import Tensor, nn, ops

    rng = np.random.default_rng(0)
    x = Tensor(rng.random((4, 8), dtype=np.float32))
    y = Tensor(rng.random((4, 8), dtype=np.float32))
    out: dict[str, float | None] = {}

    ms.set_context(mode=ms.PYNATIVE_MODE)
    for _ in range(100):
        ops.add(x, y)
    out["pynative_op"] = _best_us(lambda: ops.add(x, y), 5000)

    class Small(nn.Cell):
        def construct(self, a):
            return ops.relu(a * 2 + 1)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Small()
    for _ in range(100):
        net(x)
    out["graph_call"] = _best_us(lambda: net(x), 5000)

    out.update(_small_calls(ms, Tensor, nn, ops, rng))

    model = onnx_frontend.load(str(MODEL))
    spec = model.inputs[0]
    image = rng.random(tuple(d if isinstance(d, int) else 1 for d in spec.shape), dtype=np.float32)
    for _ in range(100):
        model.run([image])
    out["onnx_run"] = _best_us(lambda: model.run([image]), 3000)
    # The kernels alone: the compiled graph's calls in a loop (internals; None where a tree has other ones).
    try:
        (program,) = model._graphs.values()
        calls = program.root.compiled._calls

        def kernels_only() -> None:
            for fn, ptrs in calls:
                fn(ptrs)

        out["onnx_kernels"] = _best_us(kernels_only, 3000)
    except (AttributeError, ValueError):
        out["onnx_kernels"] = None
    return out


def small_call_cases(ms, Tensor, nn, ops, rng) -> dict:
    """The small PyNative and GRAPH_MODE calls of the module docstring: name -> (mode, call); also counted in
    instructions by bench_call_instructions.py."""
    a = Tensor(rng.random((8, 8), dtype=np.float32))
    b = Tensor(rng.random((8, 8), dtype=np.float32))
    row = Tensor(rng.random((1, 16), dtype=np.float32))
    label = Tensor(rng.random((1, 4), dtype=np.float32))

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1, self.relu, self.l2 = nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 4)

        def construct(self, x):
            return self.l2(self.relu(self.l1(x)))

    dense, mlp, net = nn.Dense(16, 32), MLP(), MLP()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01))
    step.set_train()
    eager, graph = ms.PYNATIVE_MODE, ms.GRAPH_MODE
    return {"pn_add_8x8": (eager, lambda: a + b), "pn_mul_8x8": (eager, lambda: ops.mul(a, b)),
            "pn_matmul_8x8": (eager, lambda: ops.matmul(a, b)), "pn_sum_8x8": (eager, lambda: a.sum()),
            "pn_det_8x8": (eager, lambda: ops.det(a)), "pn_dense": (eager, lambda: dense(row)),
            "graph_mlp": (graph, lambda: mlp(row)), "graph_train_step": (graph, lambda: step(row, label))}


def _small_calls(ms, Tensor, nn, ops, rng) -> dict[str, float]:
    """Microseconds per call of :func:`small_call_cases`."""
    out: dict[str, float] = {}
    for name, (mode, fn) in small_call_cases(ms, Tensor, nn, ops, rng).items():
        ms.set_context(mode=mode)
        for _ in range(100):
            fn()
        out[name] = _best_us(fn, 2000 if name == "graph_train_step" else 3000)
    return out


def _measure(src: Path, cache: Path, clock: str) -> dict[str, float | None]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_CACHE_PATH"] = str(cache)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    proc = subprocess.run([sys.executable, __file__, "--worker", "--clock", clock], env=env, capture_output=True,
                          text=True, timeout=600, cwd=cache)
    if proc.returncode != 0:
        raise RuntimeError(f"worker for {src} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline-src", type=Path, help="another checkout's src folder, measured alongside")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per tree, alternating (best taken)")
    p.add_argument("--json", type=Path, default=RESULTS, help=f"where to write results (default {RESULTS})")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                   help="wall time (default) or the thread's CPU time (steadier on a loaded machine)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        global _clock
        _clock = CLOCKS[args.clock]
        print(json.dumps(worker()))
        return 0
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    if args.baseline_src is not None and not (args.baseline_src / "opbuild").is_dir():
        p.error(f"--baseline-src {args.baseline_src}: no opbuild package there (give a checkout's src folder)")
    trees = {"this": REPO / "src"}
    if args.baseline_src is not None:
        trees["baseline"] = args.baseline_src.resolve()
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="opbuild-overhead-") as tmp:
        for _ in range(args.rounds):
            for name, src in trees.items():
                cache = Path(tmp) / name  # per tree: the trees' kernels may differ
                cache.mkdir(exist_ok=True)
                runs[name].append(_measure(src, cache, args.clock))
    best = {name: {m: min((r[m] for r in rs if r.get(m) is not None), default=None) for m in METRICS}
            for name, rs in runs.items()}

    load = [round(v, 2) for v in os.getloadavg()]
    print(f"microseconds per call ({args.clock} clock), best of {args.rounds} process(es) per tree, 1 thread; "
          f"load average {load[0]} / {load[1]} / {load[2]} (1 / 5 / 15 min) at the end")
    print(f"{'call':14s} {'this tree':>10s}" + (f" {'baseline':>10s} {'ratio':>6s}" if len(trees) > 1 else ""))
    for m in METRICS:
        mine = best["this"][m]
        row = f"{m:14s} {mine if mine is not None else float('nan'):10.2f}"
        if len(trees) > 1:
            base = best["baseline"][m]
            ratio = mine / base if mine is not None and base else float("nan")
            row += f" {base if base is not None else float('nan'):10.2f} {ratio:6.2f}"
        print(row)
    for name in trees:
        run, kern = best[name]["onnx_run"], best[name]["onnx_kernels"]
        if run is not None and kern is not None:
            print(f"{name}: onnx_run above its kernels: {run - kern:.2f} us")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"trees": {k: str(v) for k, v in trees.items()}, "rounds": args.rounds,
                                     "clock": args.clock, "loadavg_at_end": load,
                                     "best_us": best, "runs": runs}, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
