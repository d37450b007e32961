"""The CNN kernels of issue 26 side by side: opbuild against onnxruntime and torch, per kernel, in one run.

Cases: MaxPool 3x3 stride 2 pad 1 on 1x64x48x48 (ResNet's stem pool), AvgPool with the same window (padding
counted, as PyTorch's default), GlobalAvgPool on 1x1280x7x7 (MobileNetV2's head), the 1x1280 by 1280x1000
MatMul of a batch-1 classifier head, six convolutions of small CNNs at batch 1 (7x7/2 stem, 3x3 at 24x24,
6x6 and 3x3 maps, 3x3/2, a 1x1 projection), the 1x1 and depthwise (3x3 to 7x7) convolutions of the late
stages of MobileNet, EfficientNet and ConvNeXt, and a whole small CNN (torchvision's mobilenet_v2 when
torchvision imports, else a hand-built ResNet-style CNN) exported through ``torch.onnx.export`` at 96x96.

What is timed
-------------
- opbuild, single kernels: the compiled kernel alone (``bench_kernels.kernel_call``: one ctypes call into the
  generated C function on preallocated buffers); the whole CNN: ``opbuild.onnx.load(model).run(feeds)``.
- onnxruntime: ``InferenceSession.run`` of a one-node ONNX model per kernel (its per-call overhead, a few
  microseconds, is included), and of the exported CNN.
- torch: the eager functional call (``F.max_pool2d``, ``x @ w``, ...) under ``torch.inference_mode``, and the
  CNN module's forward.

opbuild runs in child processes, one per source tree, so ``--baseline-src DIR`` (a checkout's ``src`` folder,
e.g. from ``git archive <commit> src | tar -x -C DIR/..``) measures the code before a change against the
current code in the same run, in alternating rounds. Every figure is the best of ``--repeat`` rounds, each the
mean over calls lasting ``--min-time`` seconds. All runtimes use ``--threads`` threads (default 1: opbuild's
BLAS and OpenMP through OPENBLAS_NUM_THREADS/OMP_NUM_THREADS, onnxruntime's intra-op threads,
``torch.set_num_threads``). The machine may be shared: read ratios, not absolute times.

Usage: ``python benchmarks/bench_cnn_kernels.py [--baseline-src DIR] [--threads N] [--repeat R]
[--min-time S] [--clock wall|thread] [--json PATH]``; results go to ``benchmarks/results/cnn_kernels.json``.
``--clock thread`` (one thread only) times with the calling thread's CPU time, which a shared machine's other
jobs inflate far less than the wall clock.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
RESULTS = HERE / "results" / "cnn_kernels.json"

# name -> (onnx op, opbuild op, input shapes, onnx attrs, opbuild attrs)
KERNELS: dict[str, tuple] = {
    "MaxPool 3x3/2 1x64x48x48": ("MaxPool", "MaxPool", [(1, 64, 48, 48)],
                                 {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
                                 {"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1}),
    "AvgPool 3x3/2 1x64x48x48": ("AveragePool", "AvgPool", [(1, 64, 48, 48)],
                                 {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                                  "count_include_pad": 1},
                                 {"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1,
                                  "count_include_pad": True}),
    "GlobalAvgPool 1x1280x7x7": ("GlobalAveragePool", "GlobalAvgPool", [(1, 1280, 7, 7)], {}, {}),
    "MatMul 1x1280 @ 1280x1000": ("MatMul", "MatMul", [(1, 1280), (1280, 1000)], {}, {}),
}


def _conv(x_shape, w_shape, pad: int, stride: int, group: int = 1) -> tuple:
    return ("Conv", "Conv2D", [x_shape, w_shape],
            {"kernel_shape": list(w_shape[2:]), "pads": [pad] * 4, "strides": [stride] * 2, "group": group},
            {"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "pad_mode": "pad", "pad": pad,
             "stride": stride, "group": group})


def _dw(c: int, hw: int, k: int, stride: int = 1) -> tuple:
    return _conv((1, c, hw, hw), (c, 1, k, k), k // 2, stride, c)


# Convolutions of small CNNs at batch 1 (the weight is an initializer of the one-node ONNX model, as in a real
# one, so onnxruntime may prepack it; opbuild reads it in place as it reads a graph's parameters).
KERNELS |= {
    "Conv 7x7/2 3->32 1x3x96x96": _conv((1, 3, 96, 96), (32, 3, 7, 7), 3, 2),
    "Conv 3x3 32->32 1x32x24x24": _conv((1, 32, 24, 24), (32, 32, 3, 3), 1, 1),
    "Conv 3x3/2 32->64 1x32x24x24": _conv((1, 32, 24, 24), (64, 32, 3, 3), 1, 2),
    "Conv 3x3 128->128 1x128x6x6": _conv((1, 128, 6, 6), (128, 128, 3, 3), 1, 1),
    "Conv 3x3 512->512 1x512x3x3": _conv((1, 512, 3, 3), (512, 512, 3, 3), 1, 1),
    "Conv 1x1 96->24 1x96x56x56": _conv((1, 96, 56, 56), (24, 96, 1, 1), 0, 1),
    # the depthwise layers and the 1x1 convolutions of the late stages of MobileNet, EfficientNet, ConvNeXt
    "Conv 1x1 256->256 1x256x6x6": _conv((1, 256, 6, 6), (256, 256, 1, 1), 0, 1),
    "Conv 1x1 512->512 1x512x3x3": _conv((1, 512, 3, 3), (512, 512, 1, 1), 0, 1),
    "Conv 1x1 160->1280 1x160x3x3": _conv((1, 160, 3, 3), (1280, 160, 1, 1), 0, 1),
    "Conv dw3x3 96 1x96x24x24": _dw(96, 24, 3),
    "Conv dw3x3/2 144 1x144x24x24": _dw(144, 24, 3, 2),
    "Conv dw3x3 256 1x256x6x6": _dw(256, 6, 3),
    "Conv dw5x5 576 1x576x3x3": _dw(576, 3, 5),
    "Conv dw7x7 32 1x32x24x24": _dw(32, 24, 7),
    "Conv dw7x7 256 1x256x3x3": _dw(256, 3, 7),
}
CNN = "CNN 1x3x96x96"


def _inputs(shapes, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


# The clock of every measurement: wall time, or (``--clock thread``, one thread only) the calling thread's CPU
# time, which leaves out the time other jobs of a shared machine hold the core (their cache traffic stays in).
CLOCK = {"wall": time.perf_counter, "thread": time.thread_time}
_clock = CLOCK["wall"]


def _per_call(fn: Callable[[], object], min_time: float) -> float:
    fn()
    n = 1
    while True:
        t0 = _clock()
        for _ in range(n):
            fn()
        t = _clock() - t0
        if t >= min_time:
            return t / n
        n = max(n * 2, int(n * min_time / max(t, 1e-9)) + 1)


# ---- models ---------------------------------------------------------------------------------------

def _one_node_model(onnx_op: str, shapes, attrs: dict, path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node(onnx_op, names, ["y"], **attrs)
    n_fed = 1 if onnx_op == "Conv" else len(shapes)  # a convolution's weight is an initializer
    inits = [numpy_helper.from_array(a, n) for n, a in zip(names[n_fed:], _inputs(shapes)[n_fed:], strict=True)]
    graph = helper.make_graph([node], onnx_op, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
                                                for n, s in zip(names[:n_fed], shapes, strict=False)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def _cnn_module():
    """torchvision's mobilenet_v2 (random weights) if it imports, else a small ResNet-style CNN; eval mode."""
    import torch
    from torch import nn

    try:
        import torchvision

        return torchvision.models.mobilenet_v2(num_classes=1000).eval(), "torchvision mobilenet_v2"
    except ImportError:
        pass

    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                        nn.MaxPool2d(3, 2, 1), block(32, 32, 1), block(32, 64, 2), block(64, 128, 2),
                        nn.AvgPool2d(3, 1, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 1000))
    return net.eval(), "hand-built ResNet-style CNN (torchvision not installed)"


def _export_cnn(path: Path):
    import torch

    net, label = _cnn_module()
    x = torch.from_numpy(_inputs([(1, 3, 96, 96)])[0])
    torch.onnx.export(net, (x,), str(path), input_names=["x0"], output_names=["y"], opset_version=17,
                      dynamo=False)
    return net, label


# ---- the opbuild child ----------------------------------------------------------------------------

def child(models: Path, min_time: float, out: Path) -> None:
    """Time opbuild's kernels and the CNN once each (one round) in this process; write seconds per call."""
    sys.path.insert(0, str(HERE))
    from bench_kernels import kernel_call

    import opbuild.onnx

    times = {}
    for name, (_, op, shapes, _, attrs) in KERNELS.items():
        call, _ = kernel_call(op, attrs, _inputs(shapes))
        times[name] = _per_call(call, min_time)
    model = opbuild.onnx.load(str(models / "cnn.onnx"))
    feeds = {"x0": _inputs([(1, 3, 96, 96)])[0]}
    times[CNN] = _per_call(lambda: model.run(feeds), min_time)
    out.write_text(json.dumps(times))


def _spawn(src: Path, models: Path, min_time: float, cache: Path, threads: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), OPBUILD_CACHE_PATH=str(cache),
               OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               BENCH_CNN_CLOCK=next(k for k, v in CLOCK.items() if v is _clock))
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    try:
        subprocess.run([sys.executable, __file__, "--child", str(models), "--min-time", str(min_time),
                        "--child-out", str(out)], env=env, check=True)
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


# ---- peers ----------------------------------------------------------------------------------------

def _ort_calls(models: Path, threads: int) -> dict[str, Callable[[], object]]:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    calls = {}
    for i, (name, (onnx_op, _, shapes, _, _)) in enumerate(KERNELS.items()):
        sess = ort.InferenceSession(str(models / f"k{i}.onnx"), opts, providers=["CPUExecutionProvider"])
        feeds = {f"x{j}": a for j, a in enumerate(_inputs(shapes)[:1 if onnx_op == "Conv" else None])}
        calls[name] = lambda sess=sess, feeds=feeds: sess.run(None, feeds)
    sess = ort.InferenceSession(str(models / "cnn.onnx"), opts, providers=["CPUExecutionProvider"])
    feeds = {"x0": _inputs([(1, 3, 96, 96)])[0]}
    calls[CNN] = lambda: sess.run(None, feeds)
    return calls


def _torch_calls(net, threads: int) -> dict[str, Callable[[], object]]:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    t = {name: [torch.from_numpy(a) for a in _inputs(spec[2])] for name, spec in KERNELS.items()}
    names = list(KERNELS)

    def inference(fn):
        def call():
            with torch.inference_mode():
                return fn()
        return call

    x_cnn = torch.from_numpy(_inputs([(1, 3, 96, 96)])[0])
    calls = {
        names[0]: inference(lambda: F.max_pool2d(t[names[0]][0], 3, 2, 1)),
        names[1]: inference(lambda: F.avg_pool2d(t[names[1]][0], 3, 2, 1)),
        names[2]: inference(lambda: F.adaptive_avg_pool2d(t[names[2]][0], 1)),
        names[3]: inference(lambda: t[names[3]][0] @ t[names[3]][1]),
    }
    for name, (onnx_op, _, _, attrs, _) in KERNELS.items():
        if onnx_op == "Conv":
            x, w = t[name]
            calls[name] = inference(lambda x=x, w=w, a=attrs: F.conv2d(x, w, stride=a["strides"][0],
                                                                       padding=a["pads"][0], groups=a["group"]))
    return {**calls, CNN: inference(lambda: net(x_cnn))}


def main(argv: list[str] | None = None) -> int:
    """Run every case, print the table, write the JSON results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline-src", type=Path, default=None,
                   help="a src/ folder of the code before a change, measured in the same run")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--json", type=Path, default=RESULTS)
    p.add_argument("--clock", choices=sorted(CLOCK), default=os.environ.get("BENCH_CNN_CLOCK", "wall"),
                   help="wall time, or the thread's CPU time (one thread only; steadier on a shared machine)")
    p.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.clock == "thread" and args.threads != 1:
        p.error("--clock thread measures the calling thread only: use it with --threads 1")
    global _clock
    _clock = CLOCK[args.clock]
    if args.child is not None:
        child(args.child, args.min_time, args.child_out)
        return 0
    if args.baseline_src is not None and not (args.baseline_src / "opbuild" / "__init__.py").is_file():
        p.error(f"--baseline-src {args.baseline_src} holds no opbuild package (give the src/ folder of a checkout)")

    trees = {"opbuild": SRC} | ({"opbuild-before": args.baseline_src.resolve()} if args.baseline_src else {})
    with tempfile.TemporaryDirectory(prefix="bench-cnn-") as tmp:
        models, cache = Path(tmp), Path(tmp) / "cache"
        for i, (_, (onnx_op, _, shapes, attrs, _)) in enumerate(KERNELS.items()):
            _one_node_model(onnx_op, shapes, attrs, models / f"k{i}.onnx")
        net, cnn_label = _export_cnn(models / "cnn.onnx")
        peers = {"onnxruntime": _ort_calls(models, args.threads), "torch": _torch_calls(net, args.threads)}
        best: dict[str, dict[str, float]] = {r: {} for r in [*trees, *peers]}
        for _ in range(args.repeat):  # alternating rounds: load changes hit every runtime alike
            for label, src in trees.items():
                for case, s in _spawn(src, models, args.min_time, cache, args.threads).items():
                    best[label][case] = min(s, best[label].get(case, s))
            for label, calls in peers.items():
                for case, fn in calls.items():
                    s = _per_call(fn, args.min_time)
                    best[label][case] = min(s, best[label].get(case, s))

    runtimes = list(best)
    cases = [*KERNELS, CNN]
    head = f"{'case':<32}" + "".join(f"{r:>16}" for r in runtimes) + f"{'vs ort':>8}"
    print(f"{cnn_label}; {args.threads} thread(s); best of {args.repeat} rounds; ms per call ({args.clock} clock)")
    print(head)
    print("-" * len(head))
    for case in cases:
        ratio = best["opbuild"][case] / best["onnxruntime"][case]
        print(f"{case:<32}" + "".join(f"{best[r][case] * 1e3:16.4f}" for r in runtimes) + f"{ratio:8.2f}")
    result = {"cnn": cnn_label, "threads": args.threads, "repeat": args.repeat, "min_time": args.min_time,
              "clock": args.clock,
              "cpu_count": os.cpu_count(), "load_avg": os.getloadavg(), "machine": platform.machine(),
              "baseline_src": str(args.baseline_src) if args.baseline_src else None,
              "seconds_per_call": best}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
