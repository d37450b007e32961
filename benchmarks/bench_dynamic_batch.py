"""A dynamic batch dimension against one static build per batch size (docs/dynamic-batch.md).

For each network, two instances with the same parameters run the same inputs in one process, on an empty
kernel cache (a temporary directory), one thread:

* ``static``: no declaration, as before: every new batch size traces and builds its kernels;
* ``chunks``: ``set_inputs(Tensor(shape=[None, ...]))`` (an ONNX ``dim_param`` batch for the ONNX model) under
  ``OPBUILD_DYNAMIC_BATCH=chunks``: its first call builds the chunk graphs (nn/batch_chunks.py) and later new
  sizes build nothing;
* ``runtime`` (``rt``): the same declaration with the default ``OPBUILD_DYNAMIC_BATCH=runtime``: its first call
  builds the graph once with kernels that take the batch size at run time (nn/batch_runtime.py).

Reported per batch size: the first call at that size (``new size``: the build, for static) and the median of
``--calls`` later calls (``steady``), both in ms, and the kernels built by the first call. The dynamic
instances' very first calls (batch 1, building) are reported on their own line. Results are compared with
the static run's (max abs difference of either). The ONNX model's static baseline is the same model with the dynamic
batch turned off on the instance (what every dim_param model did before).

Usage: ``python benchmarks/bench_dynamic_batch.py [--calls N] [--sizes 3,5,8,13,24,40] [--json PATH]`` (JSON
by default to ``benchmarks/results/dynamic_batch.json``).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ["OPBUILD_CACHE_PATH"] = tempfile.mkdtemp(prefix="bench-dynbatch-")  # an empty cache: real builds
atexit.register(shutil.rmtree, os.environ["OPBUILD_CACHE_PATH"], True)

import numpy as np  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import opbuild as ms  # noqa: E402
import opbuild.onnx  # noqa: E402
from opbuild import nn  # noqa: E402


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Dense(784, 256), nn.Dense(256, 128), nn.Dense(128, 10)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.l3(self.relu(self.l2(self.relu(self.l1(x)))))


class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 16, 3), nn.Conv2d(16, 32, 3)
        self.relu, self.pool = nn.ReLU(), nn.MaxPool2d(2, 2)
        self.flat, self.fc = nn.Flatten(), nn.Dense(32 * 8 * 8, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.c1(x)))
        return self.fc(self.flat(self.pool(self.relu(self.c2(x)))))


class Block(nn.Cell):
    """An attention block on (n, 16, 64): nn.Dense on 3-D values folds the batch with the sequence."""

    def __init__(self):
        super().__init__()
        self.qkv, self.o, self.ff = nn.Dense(64, 192), nn.Dense(64, 64), nn.Dense(64, 64)
        self.ln1, self.ln2 = nn.LayerNorm((64,)), nn.LayerNorm((64,))

    def construct(self, x):
        q, k, v = ms.ops.split(self.qkv(x), 64, axis=-1)
        att = ms.ops.softmax(ms.ops.bmm(q, ms.ops.transpose(k, (0, 2, 1))) * 0.125, -1)
        x = self.ln1(x + self.o(ms.ops.bmm(att, v)))
        return self.ln2(x + self.ff(ms.ops.gelu(x)))


def onnx_mlp(rng: np.random.Generator):
    dims = [784, 256, 128, 10]
    nodes, inits, prev = [], [], "x"
    for i in range(3):
        w = (rng.standard_normal((dims[i], dims[i + 1])) / np.sqrt(dims[i])).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        out = f"h{i}" if i < 2 else "y"
        nodes.append(helper.make_node("Gemm", [prev, f"w{i}"], [out if i == 2 else f"g{i}"]))
        if i < 2:
            nodes.append(helper.make_node("Relu", [f"g{i}"], [out]))
        prev = out
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 784])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], initializer=inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    proto.ir_version = 10
    return proto


def _call(net, x) -> tuple[np.ndarray, float, int]:
    t = time.perf_counter()
    y = net(ms.Tensor(x)).asnumpy()
    return y, (time.perf_counter() - t) * 1e3, ms.build_report().built


def _steady(net, x, calls: int) -> float:
    t = ms.Tensor(x)
    times = []
    for _ in range(calls):
        s = time.perf_counter()
        net(t)
        times.append((time.perf_counter() - s) * 1e3)
    return statistics.median(times)


def _first(net, mode: str, shape: tuple[int, ...], rng: np.random.Generator) -> tuple[float, int]:
    """The very first call of a dynamic instance under ``OPBUILD_DYNAMIC_BATCH=mode`` (read by that call)."""
    os.environ["OPBUILD_DYNAMIC_BATCH"] = mode
    _, ms_first, built = _call(net, rng.standard_normal((1, *shape)).astype(np.float32))
    return ms_first, built


def bench(name: str, static, chunked, runtime, shape: tuple[int, ...], sizes: list[int], calls: int) -> list[dict]:
    rng = np.random.default_rng(0)
    rows = []
    ms_c, built_c = _first(chunked, "chunks", shape, rng)
    ms_r, built_r = _first(runtime, "runtime", shape, rng)
    rows.append({"net": name, "batch": "first call", "dynamic_new_ms": ms_c, "dynamic_built": built_c,
                 "runtime_new_ms": ms_r, "runtime_built": built_r})
    _call(static, rng.standard_normal((1, *shape)).astype(np.float32))
    for b in sizes:
        x = rng.standard_normal((b, *shape)).astype(np.float32)
        ys, ms_s, built_s = _call(static, x)
        yd, ms_d, built_d = _call(chunked, x)
        yr, ms_r, built_r = _call(runtime, x)
        rows.append({"net": name, "batch": b, "static_new_ms": ms_s, "static_built": built_s,
                     "dynamic_new_ms": ms_d, "dynamic_built": built_d, "runtime_new_ms": ms_r,
                     "runtime_built": built_r,
                     "static_steady_ms": _steady(static, x, calls), "dynamic_steady_ms": _steady(chunked, x, calls),
                     "runtime_steady_ms": _steady(runtime, x, calls),
                     "max_abs_diff": max(float(np.abs(ys - yd).max()), float(np.abs(ys - yr).max()))})
    return rows


def _fmt(row: dict, key: str, width: int, digits: int = 2, kind: str = "f") -> str:
    v = row.get(key)
    if isinstance(v, float):
        return f"{v:{width}.{digits}{kind}}"
    return f"{'' if v is None else v:>{width}}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--sizes", default="3,5,8,13,24,40")
    ap.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                   "dynamic_batch.json"))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    ms.set_context(mode=ms.GRAPH_MODE)
    rows = []
    for name, cls, shape in (("mlp 784-256-128-10", MLP, (784,)), ("cnn 2 conv 32x32", CNN, (3, 32, 32)),
                             ("attention block 16x64", Block, (16, 64))):
        static, chunked, runtime = cls(), cls(), cls()
        for p, q, r in zip(static.get_parameters(), chunked.get_parameters(), runtime.get_parameters()):
            q.set_data(ms.Tensor(p.asnumpy().copy()))
            r.set_data(ms.Tensor(p.asnumpy().copy()))
        for net in (chunked, runtime):
            net.set_inputs(ms.Tensor(shape=[None, *shape], dtype=ms.float32))
        rows += bench(name, static, chunked, runtime, shape, sizes, args.calls)
    proto = onnx_mlp(np.random.default_rng(1))
    static, chunked, runtime = (opbuild.onnx.load(proto) for _ in range(3))
    object.__setattr__(static, "_dynamic_batch", lambda call_args: None)  # the behaviour before: per size
    rows += bench("onnx mlp (dim_param N)", static, chunked, runtime, (784,), sizes, args.calls)

    print(f"{'net':24} {'batch':>10} {'static new':>10} {'built':>5} {'chunks new':>10} {'built':>5} "
          f"{'rt new':>8} {'built':>5} {'static steady':>13} {'chunks steady':>13} {'rt steady':>9} {'diff':>8}")
    for r in rows:
        print(f"{r['net']:24} {r['batch']!s:>10} {_fmt(r, 'static_new_ms', 10)} {_fmt(r, 'static_built', 5)} "
              f"{_fmt(r, 'dynamic_new_ms', 10)} {_fmt(r, 'dynamic_built', 5)} {_fmt(r, 'runtime_new_ms', 8)} "
              f"{_fmt(r, 'runtime_built', 5)} {_fmt(r, 'static_steady_ms', 13, 3)} "
              f"{_fmt(r, 'dynamic_steady_ms', 13, 3)} {_fmt(r, 'runtime_steady_ms', 9, 3)} "
              f"{_fmt(r, 'max_abs_diff', 8, 1, 'e')}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
