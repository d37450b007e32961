"""torchvision's resnet18 and mobilenet_v2 against onnxruntime, whole networks, one thread (issue 26).

The two architectures are written out here (torchvision's layer lists: BasicBlock ResNet-18, MobileNetV2's
inverted residuals with ReLU6) so the zoo regenerates without torchvision; random weights (BatchNorm
statistics drawn away from the identity so folding them is exercised), exported with ``torch.onnx.export``
at 1x3x96x96 (the size of issue 26's measurements). Each model runs through ``opbuild.onnx.load(...).run``
and onnxruntime's ``InferenceSession.run`` (one intra-op thread); outputs are compared.

``--baseline-src DIR`` also times the opbuild of another source tree (a ``src/`` folder) in a child process,
so a change is measured before and after in one run. Times are the best of ``--repeat`` rounds, each the mean
over ``--min-time`` seconds; ``--clock thread`` (the default) uses the calling thread's CPU time, which the
other jobs of a shared machine inflate far less than the wall clock (``--clock wall`` for the wall clock).

Usage: ``python benchmarks/bench_cnn_zoo.py [--baseline-src DIR] [--repeat R] [--min-time S] [--clock C]``.
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

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
NAMES = ("resnet18", "mobilenet_v2")
CLOCKS = {"wall": time.perf_counter, "thread": time.thread_time}


def _build(name: str):
    import torch
    from torch import nn

    class Basic(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
            self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
            self.down = None if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    class InvertedResidual(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int, t: int):
            super().__init__()
            h = cin * t
            layers = [nn.Conv2d(cin, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6()] if t != 1 else []
            layers += [nn.Conv2d(h, h, 3, stride, 1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
                       nn.Conv2d(h, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.f, self.res = nn.Sequential(*layers), stride == 1 and cin == cout

        def forward(self, x):
            return x + self.f(x) if self.res else self.f(x)

    torch.manual_seed(0)
    if name == "resnet18":
        layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Basic(cin, cout, stride), Basic(cout, cout, 1)]
            cin = cout
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    else:
        layers, cin = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()], 32
        for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                           (6, 160, 3, 2), (6, 320, 1, 1)):
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers += [nn.Conv2d(320, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6(), nn.AdaptiveAvgPool2d(1),
                   nn.Flatten(), nn.Linear(1280, 1000)]
    net = nn.Sequential(*layers).eval()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
    return net


def _input() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((1, 3, 96, 96)).astype(np.float32)


def _per_call(fn, min_time: float, clock) -> float:
    fn()
    n = 1
    while True:
        t0 = clock()
        for _ in range(n):
            fn()
        t = clock() - t0
        if t >= min_time:
            return t / n
        n = max(n * 2, int(n * min_time / max(t, 1e-9)) + 1)


def _time(calls: dict, repeat: int, min_time: float, clock) -> dict[str, float]:
    return {name: min(_per_call(fn, min_time, clock) for _ in range(repeat)) for name, fn in calls.items()}


def child(models: Path, repeat: int, min_time: float, clock: str, out: Path) -> None:
    """Time opbuild (the tree on PYTHONPATH) on every model in this process; write times and outputs."""
    import opbuild.onnx

    x = _input()
    calls = {}
    for name in NAMES:
        model = opbuild.onnx.load(str(models / f"{name}.onnx"))
        calls[name] = lambda model=model: model.run({"x0": x})
        np.save(models / f"{name}.{os.getpid()}.npy", calls[name]()[0])
    times = _time(calls, repeat, min_time, CLOCKS[clock])
    out.write_text(json.dumps({"times": times, "pid": os.getpid()}))


def _spawn(src: Path, models: Path, args, cache: Path) -> tuple[dict, dict]:
    env = dict(os.environ, PYTHONPATH=str(src), OPBUILD_CACHE_PATH=str(cache), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    out = models / f"child-{abs(hash(str(src)))}.json"
    subprocess.run([sys.executable, __file__, "--child", str(models), "--child-out", str(out), "--repeat",
                    str(args.repeat), "--min-time", str(args.min_time), "--clock", args.clock], env=env, check=True)
    got = json.loads(out.read_text())
    return got["times"], {n: np.load(models / f"{n}.{got['pid']}.npy") for n in NAMES}


def main(argv: list[str] | None = None) -> int:
    """Export the zoo, time every runtime, print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline-src", type=Path, default=None, help="a src/ folder of the code before a change")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--clock", choices=sorted(CLOCKS), default="thread")
    p.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--child-out", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        child(args.child, args.repeat, args.min_time, args.clock, args.child_out)
        return 0
    import onnxruntime as ort
    import torch

    with tempfile.TemporaryDirectory(prefix="bench-zoo-") as tmp:
        models = Path(tmp)
        x = _input()
        for name in NAMES:
            torch.onnx.export(_build(name), (torch.from_numpy(x),), str(models / f"{name}.onnx"),
                              input_names=["x0"], output_names=["y"], opset_version=17, dynamo=False)
        trees = {"opbuild": SRC} | ({"opbuild-before": args.baseline_src.resolve()} if args.baseline_src else {})
        results, outputs = {}, {}
        for label, src in trees.items():
            results[label], outputs[label] = _spawn(src, models, args, models / f"cache-{label}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 1, 1
        sessions = {n: ort.InferenceSession(str(models / f"{n}.onnx"), opts, providers=["CPUExecutionProvider"])
                    for n in NAMES}
        ref = {n: s.run(None, {"x0": x})[0] for n, s in sessions.items()}
        results["onnxruntime"] = _time({n: (lambda s=s: s.run(None, {"x0": x})) for n, s in sessions.items()},
                                       args.repeat, args.min_time, CLOCKS[args.clock])
    print(f"1x3x96x96, one thread, best of {args.repeat} rounds, ms per call ({args.clock} clock)")
    print(f"{'model':<14}" + "".join(f"{r:>16}" for r in results) + f"{'vs ort':>8}{'max diff':>10}")
    for n in NAMES:
        diff = max(float(np.abs(outputs[label][n] - ref[n]).max()) for label in trees)
        print(f"{n:<14}" + "".join(f"{results[r][n] * 1e3:16.3f}" for r in results)
              + f"{results['opbuild'][n] / results['onnxruntime'][n]:8.2f}{diff:10.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
