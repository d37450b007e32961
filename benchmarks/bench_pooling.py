"""Pooling kernels of common CNN shapes: opbuild against onnxruntime, one thread, in one run.

Cases: MaxPool and AvgPool with the windows networks use (ResNet's 3x3/2 stem pool at 96 and 224 pixels,
VGG's and DenseNet's 2x2/2, Inception's 3x3/1, AlexNet/SqueezeNet's 3x3/2 with ``ceil_mode``, a wide 400x400
plane) and GlobalAvgPool on the heads of ResNet-18 at 224 (512x7x7), MobileNetV2 at 96 and 224 (1280x3x3,
1280x7x7) and a 56x56 map. opbuild's figure is the compiled kernel alone (``bench_kernels.kernel_call``);
onnxruntime's is ``InferenceSession.run`` of a one-node model (its per-call overhead, a few microseconds,
included). Each row also says whether the outputs agree (max: equal; averages: within 1e-5 relative).

opbuild runs in child processes, one per source tree, so ``--baseline-src DIR`` (a checkout's ``src``
folder) measures the code before a change against the current code in the same run, in alternating rounds.
Every figure is the best of ``--repeat`` rounds, each the mean over calls lasting ``--min-time`` seconds of
the calling thread's CPU time (which the other jobs of a shared machine inflate far less than the wall clock).

Usage: ``python benchmarks/bench_pooling.py [--baseline-src DIR] [--repeat R] [--min-time S] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
ENV_ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _pool(kind: str, shape, k: int, s: int, p: int, ceil: bool = False) -> tuple:
    """(onnx op, opbuild op, input shape, onnx attrs, opbuild attrs) of a square-window pooling."""
    onnx_attrs = {"kernel_shape": [k, k], "strides": [s, s], "pads": [p] * 4, "ceil_mode": int(ceil)}
    attrs = {"kernel_size": k, "strides": s, "pad_mode": "pad", "pad": p, "ceil_mode": ceil}
    if kind == "max":
        return "MaxPool", "MaxPool", shape, onnx_attrs, attrs
    return "AveragePool", "AvgPool", shape, {**onnx_attrs, "count_include_pad": 1}, {**attrs, "count_include_pad": True}


def _gap(shape) -> tuple:
    return "GlobalAveragePool", "GlobalAvgPool", shape, {}, {}


CASES: dict[str, tuple] = {
    "MaxPool 3x3/2 p1 1x64x48x48": _pool("max", (1, 64, 48, 48), 3, 2, 1),
    "MaxPool 3x3/2 p1 1x64x112x112": _pool("max", (1, 64, 112, 112), 3, 2, 1),
    "MaxPool 2x2/2 1x64x56x56": _pool("max", (1, 64, 56, 56), 2, 2, 0),
    "MaxPool 3x3/1 p1 1x192x28x28": _pool("max", (1, 192, 28, 28), 3, 1, 1),
    "MaxPool 3x3/2 ceil 1x96x55x55": _pool("max", (1, 96, 55, 55), 3, 2, 0, True),
    "MaxPool 3x3/2 p1 1x8x400x400": _pool("max", (1, 8, 400, 400), 3, 2, 1),
    "AvgPool 3x3/2 p1 1x64x48x48": _pool("avg", (1, 64, 48, 48), 3, 2, 1),
    "AvgPool 3x3/1 p1 1x192x28x28": _pool("avg", (1, 192, 28, 28), 3, 1, 1),
    "AvgPool 2x2/2 1x256x28x28": _pool("avg", (1, 256, 28, 28), 2, 2, 0),
    "GlobalAvgPool 1x1280x7x7": _gap((1, 1280, 7, 7)),
    "GlobalAvgPool 1x1280x3x3": _gap((1, 1280, 3, 3)),
    "GlobalAvgPool 1x512x7x7": _gap((1, 512, 7, 7)),
    "GlobalAvgPool 1x256x56x56": _gap((1, 256, 56, 56)),
}


def _input(shape) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def _per_call(fn: Callable[[], object], min_time: float) -> float:
    """Thread CPU seconds per call (bench_kernels.per_call on this thread's clock)."""
    sys.path.insert(0, str(HERE))
    from bench_kernels import per_call

    return per_call(fn, min_time, time.thread_time)


def child(min_time: float, out: Path) -> None:
    """Time each case's opbuild kernel once (one round) in this process; write seconds per call and outputs."""
    sys.path.insert(0, str(HERE))
    from bench_kernels import kernel_call

    result = {}
    for name, (_, op, shape, _, attrs) in CASES.items():
        call, outs = kernel_call(op, attrs, [_input(shape)])
        call()
        result[name] = {"s": _per_call(call, min_time), "out": outs[0].ravel().tolist()[:4096]}
    out.write_text(json.dumps(result))


def _spawn(src: Path, min_time: float, cache: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), OPBUILD_CACHE_PATH=str(cache), **ENV_ONE_THREAD)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    try:
        subprocess.run([sys.executable, __file__, "--child-out", str(out), "--min-time", str(min_time)],
                       env=env, check=True)
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


def _ort_sessions(tmp: Path) -> dict[str, tuple[Callable[[], object], np.ndarray]]:
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    calls = {}
    for i, (name, (onnx_op, _, shape, attrs, _)) in enumerate(CASES.items()):
        graph = helper.make_graph([helper.make_node(onnx_op, ["x0"], ["y"], **attrs)], onnx_op,
                                  [helper.make_tensor_value_info("x0", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.save(model, str(tmp / f"p{i}.onnx"))
        sess = ort.InferenceSession(str(tmp / f"p{i}.onnx"), opts, providers=["CPUExecutionProvider"])
        feeds = {"x0": _input(shape)}
        calls[name] = (lambda sess=sess, feeds=feeds: sess.run(None, feeds), sess.run(None, feeds)[0])
    return calls


def _agrees(name: str, got: list, want: np.ndarray) -> bool:
    ref = want.ravel()[:len(got)]
    if CASES[name][1] == "MaxPool":
        return bool(np.array_equal(np.asarray(got, np.float32), ref))
    return bool(np.allclose(got, ref, rtol=1e-5, atol=1e-6))


def main(argv: list[str] | None = None) -> int:
    """Run every case, print the table, write the JSON results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline-src", type=Path, default=None,
                   help="a src/ folder of the code before a change, measured in the same run")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--json", type=Path, default=HERE / "results" / "pooling.json")
    p.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child_out is not None:
        child(args.min_time, args.child_out)
        return 0
    if args.baseline_src is not None and not (args.baseline_src / "opbuild" / "__init__.py").is_file():
        p.error(f"--baseline-src {args.baseline_src} holds no opbuild package (give the src/ folder of a checkout)")
    trees = {"opbuild": SRC} | ({"opbuild-before": args.baseline_src.resolve()} if args.baseline_src else {})
    best: dict[str, dict[str, float]] = {r: {} for r in [*trees, "onnxruntime"]}
    agree: dict[str, dict[str, bool]] = {r: {} for r in trees}
    with tempfile.TemporaryDirectory(prefix="bench-pool-") as tmp:
        ort_calls = _ort_sessions(Path(tmp))
        for _ in range(args.repeat):  # alternating rounds: load changes hit every runtime alike
            for label, src in trees.items():
                for case, r in _spawn(src, args.min_time, Path(tmp) / "cache").items():
                    best[label][case] = min(r["s"], best[label].get(case, r["s"]))
                    agree[label][case] = _agrees(case, r["out"], ort_calls[case][1])
            for case, (fn, _) in ort_calls.items():
                s = _per_call(fn, args.min_time)
                best["onnxruntime"][case] = min(s, best["onnxruntime"].get(case, s))
    head = f"{'case (ms per call)':<32}" + "".join(f"{r:>16}" for r in best) + f"{'vs ort':>8}  agree"
    print(f"one thread, best of {args.repeat} rounds, thread clock\n{head}\n{'-' * len(head)}")
    for case in CASES:
        ratio = best["opbuild"][case] / best["onnxruntime"][case]
        ok = all(agree[r][case] for r in trees)
        print(f"{case:<32}" + "".join(f"{best[r][case] * 1e3:16.4f}" for r in best) + f"{ratio:8.2f}  {ok}")
    result = {"repeat": args.repeat, "min_time": args.min_time, "load_avg": os.getloadavg(),
              "baseline_src": str(args.baseline_src) if args.baseline_src else None,
              "seconds_per_call": best, "agrees_with_onnxruntime": agree}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
