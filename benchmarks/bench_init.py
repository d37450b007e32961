"""Weight construction: MindSpore's initializer fills (core/philox_fill.py) on the NumPy path against the
compiled ``PhiloxFill`` kernels (runtime/init_fill.py), and the construction of mindcv models with each.

Two tables:
- fills: nanoseconds per value of ``uniform_fill``, ``normal_fill`` and ``truncated_normal_fill`` drawing
  ``--n`` values, the best of ``--repeat`` rounds, wall time (the compiled kernels use OpenMP's threads) and
  CPU time of the process (all its threads); the compiled values are checked equal to the NumPy ones;
- construct: ``create_model(name)`` after ``set_seed(0)`` in a fresh process per row, wall and CPU seconds:
  ``numpy`` (the fills kept on the NumPy path), ``compiled cold`` (an empty kernel cache: includes building
  the kernels), ``compiled warm`` (a second process on that cache), and ``before`` when ``--before-src`` names
  another checkout's ``src`` (e.g. ``git archive <rev> src | tar -x -C /tmp/before``).

Usage: ``python benchmarks/bench_init.py [--n N] [--repeat R] [--models a,b] [--before-src PATH]
[--json PATH]``; results go to ``benchmarks/results/init.json``. The construct table needs mindcv (the test
extra); ``--models ''`` skips it. The machine may be shared: read the ratios within a run.
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
RESULTS = HERE / "results" / "init.json"
MODELS = ["resnet50", "vit_b_32_224"]

# Run in a file (mindcv under the MindSpore alias); argv: model name, mode (numpy or compiled).
CHILD = r'''
import json, sys, time
name, mode = sys.argv[1:3]
import opbuild
opbuild.alias_mindspore()
import mindspore as ms
from mindcv.models import create_model
if mode == "numpy":
    try:
        from opbuild.runtime import init_fill
        init_fill.FILLS._failed = True  # the fills stay on the NumPy path
    except ImportError:  # a checkout from before the compiled fills (--before-src)
        pass
ms.set_context(mode=ms.GRAPH_MODE)
ms.set_seed(0)
t0, c0 = time.perf_counter(), time.process_time()
net = create_model(name, num_classes=1000)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
n = sum(int(p.size) for p in net.get_parameters())
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "parameters": n}))
'''


def _best(fn, args: tuple, repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` calls of ``fn(*args)``."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(*args)
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu


def fills(n: int, repeat: int) -> list[dict]:
    """One row per fill: ns per value on the NumPy path and compiled, and whether the values are equal."""
    sys.path.insert(0, str(SRC))
    import numpy as np

    from opbuild.core import philox_fill as pf
    from opbuild.runtime.init_fill import FILLS

    if not FILLS.load():
        raise SystemExit("the compiled fills are not available here (no compiler, or a failed probe)")
    rows = []
    for name, fast, ref, args in (("uniform", pf.uniform_fill, pf.uniform_fill_numpy, (-0.05, 0.05)),
                                  ("normal", pf.normal_fill, pf.normal_fill_numpy, (0.0, 0.02)),
                                  ("truncated_normal", pf.truncated_normal_fill, pf.truncated_normal_fill_numpy,
                                   (-0.04, 0.04, 0.0, 0.02))):
        equal = np.array_equal(fast(7, (n,), *args).view(np.uint32), ref(7, (n,), *args).view(np.uint32))
        nw, nc = _best(ref, (7, (n,), *args), repeat)
        cw, cc = _best(fast, (7, (n,), *args), repeat)
        rows.append({"fill": name, "n": n, "numpy_ns": nw / n * 1e9, "compiled_ns": cw / n * 1e9,
                     "numpy_cpu_ns": nc / n * 1e9, "compiled_cpu_ns": cc / n * 1e9, "equal": bool(equal)})
    return rows


def _child(src: Path, name: str, mode: str, cache: str, script: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), OPBUILD_CACHE_PATH=cache)
    proc = subprocess.run([sys.executable, str(script), name, mode], env=env, capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def construct(models: list[str], before: Path | None) -> list[dict]:
    """One row per model: construction wall/CPU seconds in fresh processes, per mode."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(CHILD)
        for name in models:
            cache = str(Path(tmp) / f"cache-{name}")
            row = {"model": name, "numpy": _child(SRC, name, "numpy", cache, script),
                   "compiled_cold": _child(SRC, name, "compiled", cache, script),
                   "compiled_warm": _child(SRC, name, "compiled", cache, script)}
            if before is not None:
                row["before"] = _child(before, name, "numpy", str(Path(tmp) / f"before-{name}"), script)
            rows.append(row)
    return rows


def _fmt(r: dict) -> str:
    return "error" if "error" in r else f"{r['wall_s']:.2f} / {r['cpu_s']:.2f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1 << 22)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--before-src", type=Path, default=None, help="another checkout's src folder")
    p.add_argument("--json", default=str(RESULTS))
    a = p.parse_args()
    fill_rows = fills(a.n, a.repeat)
    print(f"fills, {a.n} values: ns per value, wall (cpu)\n")
    print("| fill | NumPy | compiled | speedup | equal bits |\n|---|---|---|---|---|")
    for r in fill_rows:
        print(f"| {r['fill']} | {r['numpy_ns']:.1f} ({r['numpy_cpu_ns']:.1f}) | {r['compiled_ns']:.1f} "
              f"({r['compiled_cpu_ns']:.1f}) | {r['numpy_ns'] / r['compiled_ns']:.1f}x | {r['equal']} |")
    models = [m for m in a.models.split(",") if m]
    rows = construct(models, a.before_src) if models else []
    if rows:
        print("\nconstruct (create_model after set_seed(0)): seconds, wall / cpu\n")
        cols = ["numpy", "compiled_cold", "compiled_warm"] + (["before"] if a.before_src else [])
        print("| model | parameters | " + " | ".join(cols) + " |\n|---|---|" + "---|" * len(cols))
        for r in rows:
            params = next((r[c]["parameters"] for c in cols if "parameters" in r[c]), "?")
            print(f"| {r['model']} | {params} | " + " | ".join(_fmt(r[c]) for c in cols) + " |")
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    Path(a.json).write_text(json.dumps({"n": a.n, "repeat": a.repeat, "fills": fill_rows, "construct": rows},
                                       indent=1))


if __name__ == "__main__":
    main()
