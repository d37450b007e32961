"""mindcv's models (a model zoo written for MindSpore, run unchanged under opbuild's MindSpore alias): the
incremental build at work and the steady call time, against MindSpore 2.10 itself when its interpreter is
given.

Per model, each in its own fresh process, GRAPH_MODE, batch 1, ``set_seed(0)``:
- opbuild cold: an empty kernel cache; time from ``create_model`` to the first output (construction, trace,
  kernel builds, first run) and the kernels built;
- opbuild warm: a second process on the same cache: the same time, kernels built (0 expected) and reused;
- steady: the best of ``--repeat`` means per call over ``--min-time`` seconds after the first call;
- MindSpore (``--ms-python``, an interpreter with mindspore and mindcv): its first output (graph compile and
  run) and its steady call time; its output is compared with opbuild's (largest difference over the output's
  largest magnitude: the weights are equal under ``set_seed``).

Usage: ``python benchmarks/bench_mindcv.py [--models a,b] [--size N] [--repeat R] [--min-time S]
[--ms-python PATH] [--json PATH]``; results go to ``benchmarks/results/mindcv.json``. Needs mindcv
(``pip install mindcv==0.3.0``, in the test extra). The machine may be shared: read the ratios within a run.
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
SRC = HERE.parent / "src"
RESULTS = HERE / "results" / "mindcv.json"
MODELS = ["resnet18", "mobilenet_v2_100", "densenet121", "convnext_tiny", "vit_b_32_224"]

# Run in a file, not with ``python -c``: MindSpore refuses GRAPH_MODE code it cannot read the source of.
CHILD = r'''
import json, sys, time
t_start = time.perf_counter()
engine, name, size, repeat, min_time, out = sys.argv[1:7]
if engine == "opbuild":
    import opbuild
    opbuild.alias_mindspore()
import numpy as np
import mindspore as ms
from mindcv.models import create_model

ms.set_context(mode=ms.GRAPH_MODE)
ms.set_seed(0)
t0 = time.perf_counter()
net = create_model(name, num_classes=1000)
net.set_train(False)
x = ms.Tensor(np.random.default_rng(0).standard_normal((1, 3, int(size), int(size))).astype(np.float32))
y = net(x).asnumpy()
t1 = time.perf_counter()
result = {"first_output_s": t1 - t0, "import_s": t0 - t_start}
if engine == "opbuild":
    report = opbuild.build_report()
    result.update(built=report.built, reused=report.reused, kernels=len(report.kernels), build_s=report.seconds)


def per_call(n_min):
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            net(x).asnumpy()
        t = time.perf_counter() - t
        if t >= n_min:
            return t / n
        n = max(2 * n, int(n * n_min / max(t, 1e-9)) + 1)


result["steady_s"] = min(per_call(float(min_time)) for _ in range(int(repeat)))
np.save(out, y)
print(json.dumps(result))
'''


def _run(python: str, engine: str, name: str, a: argparse.Namespace, env: dict, out: Path) -> dict:
    script = Path(a.workdir) / "child.py"
    script.write_text(CHILD)
    proc = subprocess.run([python, str(script), engine, name, str(a.size), str(a.repeat), str(a.min_time),
                           str(out)], env=env, capture_output=True, text=True, timeout=a.timeout)
    if proc.returncode:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench(name: str, a: argparse.Namespace) -> dict:
    import numpy as np

    root = Path(a.workdir) / name
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(root / "cache"), PYTHONPATH=str(SRC))
    row = {"model": name, "cold": _run(sys.executable, "opbuild", name, a, env, root / "op.npy"),
           "warm": _run(sys.executable, "opbuild", name, a, env, root / "op.npy")}
    if a.ms_python:
        ms_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        row["mindspore"] = _run(a.ms_python, "mindspore", name, a, ms_env, root / "ms.npy")
        if "error" not in row["mindspore"] and (root / "op.npy").exists():
            ours, theirs = np.load(root / "op.npy"), np.load(root / "ms.npy")
            row["max_diff_rel"] = float(np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-30))
    return row


def _fmt(row: dict) -> str:
    cold, warm, ms = row["cold"], row["warm"], row.get("mindspore", {})

    def s(d, k, scale=1.0, unit="s"):
        return f"{d[k] * scale:.2f} {unit}" if k in d else d.get("error", "-")[:40]

    ratio = f"{warm['steady_s'] / ms['steady_s']:.3f}x" if "steady_s" in warm and "steady_s" in ms else "-"
    diff = f"{row['max_diff_rel']:.1e}" if "max_diff_rel" in row else "-"
    return (f"| {row['model']} | {s(cold, 'first_output_s')} ({cold.get('built', '-')} built) "
            f"| {s(warm, 'first_output_s')} ({warm.get('built', '-')} built, {warm.get('reused', '-')} reused) "
            f"| {s(warm, 'steady_s', 1e3, 'ms')} | {s(ms, 'first_output_s')} | {s(ms, 'steady_s', 1e3, 'ms')} "
            f"| {ratio} | {diff} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=1.0)
    p.add_argument("--ms-python", default=None, help="an interpreter with mindspore 2.10 and mindcv")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--json", default=str(RESULTS))
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mindcv-") as work:
        a.workdir = work
        rows = []
        print("| model | opbuild cold first output | opbuild warm first output | opbuild steady | MindSpore first "
              "output | MindSpore steady | opbuild / MindSpore steady | output difference |")
        print("|---|---|---|---|---|---|---|---|")
        for name in a.models.split(","):
            rows.append(bench(name, a))
            print(_fmt(rows[-1]), flush=True)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps({"size": a.size, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
