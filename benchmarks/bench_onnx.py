"""opbuild against onnxruntime on ONNX models: first-run latency (cold and warm) and steady-state latency.

What is measured
----------------
Every measurement runs in a fresh Python process (imports done before the clock starts), on the same inputs:

* first run, cold: from loading the model file to the first outputs. For opbuild: load, trace, build every
  kernel into an empty kernel cache, run. For onnxruntime: create the InferenceSession (graph optimisation,
  kernel selection), run.
* first run, warm: the same in a new process, the kernel cache now filled by the cold run (opbuild loads every
  kernel from ``kernel_meta`` instead of compiling it). onnxruntime keeps nothing between processes, so its
  warm run differs from its cold one only by the OS file cache.
* steady state: the median latency of ``--calls`` further calls in the warm process, inputs to outputs.

Outputs of both runtimes are compared (max abs difference): benchmarks of wrong results are worthless.

Threads: ``--threads N`` (default 1) sets OPENBLAS_NUM_THREADS for opbuild (whose GEMMs and convolutions use
OpenBLAS; its other kernels are single-threaded) and intra_op_num_threads for onnxruntime. One thread is the
like-for-like comparison, and the only stable one on a shared machine. Kernel builds use
OPBUILD_BUILD_JOBS (default: the machine's cores).

Models: ``benchmarks/models/*.onnx``, the full-size BERT-base, GPT-2, ViT-base, ResNet-50 and MobileNetV2
written by ``python scripts/export_onnx_fixtures.py --full`` (not committed: hundreds of MB); ``--tiny``
uses the committed test fixtures instead. onnxruntime reads ONNX IR versions up to 13 (the export script
writes 10).

Usage: ``python benchmarks/bench_onnx.py [--tiny] [--models DIR] [--only bert,gpt2] [--calls N] [--threads N]
[--json PATH]``. Needs the ``bench`` extra (onnxruntime). Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "onnx.json"
FULL = REPO / "benchmarks" / "models"
TINY = REPO / "tests" / "fixtures" / "onnx"
ORDER = ("bert", "gpt2", "vit", "resnet", "mobilenet")


# ---- child processes ------------------------------------------------------------------------------------

def _child(runtime: str, model: str, inputs: str, calls: int, threads: int, out: str) -> None:
    """Measure one runtime in this (fresh) process; write timings and outputs to ``out`` (.npz)."""
    data = np.load(inputs)
    feeds = {k: data[k] for k in data.files}
    if runtime == "opbuild":
        import opbuild.frontends.onnx  # noqa: F401  (imports onnx before the clock, as onnxruntime is imported)
        import opbuild.onnx

        t0 = time.perf_counter()
        m = opbuild.onnx.load(model)
        outs = m.run(feeds)
        first = time.perf_counter() - t0

        def call() -> list:
            return m.run(feeds)
    else:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        t0 = time.perf_counter()
        sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        outs = sess.run(None, feeds)
        first = time.perf_counter() - t0

        def call() -> list:
            return sess.run(None, feeds)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    np.savez(out, first=first, times=np.array(times), **{f"out{i}": o for i, o in enumerate(outs)})


def _spawn(runtime: str, model: Path, inputs: Path, calls: int, threads: int, cache: Path) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               OPBUILD_CACHE_PATH=str(cache), OPBUILD_PROGRESS="0",
               PYTHONPATH=os.pathsep.join([str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.npz"
        proc = subprocess.run([sys.executable, __file__, "--child", runtime, str(model), str(inputs), str(calls),
                               str(threads), str(out)], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{runtime} on {model.name} failed:\n{proc.stderr[-3000:]}")
        r = np.load(out)
        outs = sorted((k for k in r.files if k.startswith("out")), key=lambda k: int(k[3:]))
        return {"first": float(r["first"]), "steady": float(np.median(r["times"])) if r["times"].size else None,
                "outputs": [r[k] for k in outs]}


# ---- driver ---------------------------------------------------------------------------------------------

def _inputs(model: Path, dest: Path, seed: int = 0) -> dict[str, str]:
    """Inputs for ``model``: the fixture's stored ones if there are any, else random of the declared shapes
    (token ids below 100, masks of ones). Saved to ``dest``; returns their types."""
    import onnx

    stored = model.with_suffix(".npz")
    if stored.is_file():
        data = np.load(stored)
        feeds = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("input:")}
    else:
        rng = np.random.default_rng(seed)
        g = onnx.load(str(model), load_external_data=False).graph
        inits = {t.name for t in g.initializer}
        feeds = {}
        for vi in g.input:
            if vi.name in inits:
                continue
            dims = [d.dim_value or 1 for d in vi.type.tensor_type.shape.dim]
            dt = onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
            if "mask" in vi.name:
                feeds[vi.name] = np.ones(dims, dt)
            elif np.issubdtype(dt, np.integer):
                feeds[vi.name] = rng.integers(0, 100, dims).astype(dt)
            else:
                feeds[vi.name] = rng.standard_normal(dims).astype(dt)
    np.savez(dest, **feeds)
    return {k: f"{v.dtype}{list(v.shape)}" for k, v in feeds.items()}


def bench_model(model: Path, calls: int, threads: int) -> dict:
    """Cold and warm first runs and the steady state of both runtimes on one model."""
    with tempfile.TemporaryDirectory(prefix="bench-onnx-") as tmp:
        tmp = Path(tmp)
        inputs = _inputs(model, tmp / "inputs.npz")
        cache = tmp / "cache"
        ob_cold = _spawn("opbuild", model, tmp / "inputs.npz", 0, threads, cache)
        ob_warm = _spawn("opbuild", model, tmp / "inputs.npz", calls, threads, cache)
        ort_cold = _spawn("ort", model, tmp / "inputs.npz", 0, threads, cache)
        ort_warm = _spawn("ort", model, tmp / "inputs.npz", calls, threads, cache)
        n_kernels = len(list((cache / "rank_0" / "kernel_meta").glob("*.info")))
        shutil.rmtree(cache, ignore_errors=True)
    diff = max(float(np.abs(a - b).max()) if a.size else 0.0
               for a, b in zip(ob_warm["outputs"], ort_warm["outputs"], strict=True))
    return {"model": model.stem, "bytes": model.stat().st_size, "inputs": inputs, "kernels": n_kernels,
            "opbuild": {"cold_first_s": ob_cold["first"], "warm_first_s": ob_warm["first"],
                        "steady_s": ob_warm["steady"]},
            "onnxruntime": {"cold_first_s": ort_cold["first"], "warm_first_s": ort_warm["first"],
                            "steady_s": ort_warm["steady"]},
            "max_abs_diff": diff}


def _ms(s: float | None) -> str:
    """Milliseconds, three significant digits without an exponent."""
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def main(argv: list[str] | None = None) -> int:
    """Benchmark the models, print the table and write the JSON results."""
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, runtime, model, inputs, calls, threads, out = sys.argv
        _child(runtime, model, inputs, int(calls), int(threads), out)
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tiny", action="store_true", help=f"the committed fixtures ({TINY.relative_to(REPO)})")
    p.add_argument("--models", type=Path, help=f"directory of NAME.onnx files (default {FULL.relative_to(REPO)})")
    p.add_argument("--only", help="comma-separated model names")
    p.add_argument("--calls", type=int, default=10, help="steady-state calls per runtime (default 10)")
    p.add_argument("--threads", type=int, default=1, help="compute threads of both runtimes (default 1)")
    p.add_argument("--json", type=Path, default=RESULTS, help=f"where to write results (default {RESULTS})")
    args = p.parse_args(argv)
    directory = args.models or (TINY if args.tiny else FULL)
    models = sorted(directory.glob("*.onnx"), key=lambda m: (ORDER.index(m.stem) if m.stem in ORDER else 99, m.stem))
    if args.only:
        wanted = set(args.only.split(","))
        models = [m for m in models if m.stem in wanted]
    if not models:
        print(f"no models in {directory}: run `python scripts/export_onnx_fixtures.py --full` (or use --tiny)",
              file=sys.stderr)
        return 2
    import onnxruntime

    import opbuild

    rows = []
    header = (f"{'model':10s} {'kernels':>7s} | {'opbuild cold':>12s} {'warm':>8s} {'steady':>8s} | "
              f"{'ort cold':>9s} {'warm':>8s} {'steady':>8s} | {'steady ratio':>12s} {'max|diff|':>9s}")
    print(f"first-run and steady-state latency in ms ({args.threads} thread(s), median of {args.calls} calls)")
    print(header)
    print("-" * len(header))
    for model in models:
        r = bench_model(model, args.calls, args.threads)
        rows.append(r)
        ob, rt = r["opbuild"], r["onnxruntime"]
        ratio = ob["steady_s"] / rt["steady_s"] if ob["steady_s"] and rt["steady_s"] else None
        r["steady_ratio"] = ratio
        print(f"{r['model']:10s} {r['kernels']:7d} | {_ms(ob['cold_first_s']):>12s} {_ms(ob['warm_first_s']):>8s} "
              f"{_ms(ob['steady_s']):>8s} | {_ms(rt['cold_first_s']):>9s} {_ms(rt['warm_first_s']):>8s} "
              f"{_ms(rt['steady_s']):>8s} | {'-' if ratio is None else f'{ratio:.2f}x':>12s} "
              f"{r['max_abs_diff']:9.2e}", flush=True)
    result = {"benchmark": "onnx", "when": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.machine(),
              "cpus": os.cpu_count(), "python": platform.python_version(), "opbuild": opbuild.__version__,
              "onnxruntime": onnxruntime.__version__, "threads": args.threads, "calls": args.calls,
              "models_dir": str(directory), "rows": rows}
    print(json.dumps({"rows": [{k: v for k, v in r.items() if k != "inputs"} for r in rows]}))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
