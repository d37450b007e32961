"""float16 and bfloat16 against float32: time per call and memory of MatMul, Conv2D, Add, GeLU, a small MLP and
row kernels (ReduceSum, Softmax, LayerNorm over 1024 x 1024) and a fused broadcast map (ReLU(x * row)).

Usage: ``python benchmarks/bench_dtypes.py [--quick] [--steady SECONDS] [--out PATH]``. Runs in this process
(set OMP_NUM_THREADS to fix the thread count) with a private temporary cache. Every case is a GRAPH_MODE Cell,
built once, then called repeatedly (build_worker.steady: median time per call). Memory: the bytes of the
parameters and of the graph's activations (its inputs plus the memory plan's arena, what the executor
allocates). A half case whose op rejects the dtype is reported ``n/a`` with the error. Prints a Markdown
table (docs/benchmarks.md) and writes JSON (default benchmarks/results/bench_dtypes.json).

What to expect: the half kernels load each element into float32, compute in float32 and round on store
(float16 converting blocks of elements with F16C, targets/cpu/blocked.py), and the half GEMM converts both
operands to float32 and calls the float32 BLAS (docs/dtypes.md), so half types save memory, not time, on a CPU
without native half arithmetic.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

DTYPES = ("float32", "float16", "bfloat16")


def _cases(quick: bool) -> dict[str, Callable]:
    """name -> builder(dtype) returning (Cell, inputs, parameter bytes)."""
    import opbuild as ms
    from opbuild import Parameter, Tensor, nn, ops

    n = 128 if quick else 512
    elems = 1 << (16 if quick else 20)
    rng = np.random.default_rng(0)

    def arr(shape, dt, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32).astype(np.dtype(dt))

    class Apply(nn.Cell):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def construct(self, *xs):
            return self.fn(*xs)

    def matmul(dt):
        return Apply(ops.MatMul()), [Tensor(arr((n, n), dt)), Tensor(arr((n, n), dt))], 0

    def conv(dt):
        c, hw = (8, 16) if quick else (32, 56)
        return (Apply(ops.Conv2D(c, 3, pad_mode="same")),
                [Tensor(arr((1, c, hw, hw), dt)), Tensor(arr((c, c, 3, 3), dt, 0.1))], 0)

    def add(dt):
        return Apply(ops.Add()), [Tensor(arr((elems,), dt)), Tensor(arr((elems,), dt))], 0

    def gelu(dt):
        return Apply(ops.GeLU()), [Tensor(arr((elems,), dt))], 0

    class MLP(nn.Cell):
        """x @ w1 + b1 -> GeLU -> @ w2 + b2 -> Softmax, parameters in the benchmark's dtype."""

        def __init__(self, dt, d_in, hidden, d_out):
            super().__init__()
            self.w1 = Parameter(arr((d_in, hidden), dt, d_in ** -0.5), name="w1")
            self.b1 = Parameter(arr((hidden,), dt, 0.1), name="b1")
            self.w2 = Parameter(arr((hidden, d_out), dt, hidden ** -0.5), name="w2")
            self.b2 = Parameter(arr((d_out,), dt, 0.1), name="b2")
            self.mm, self.bias, self.gelu, self.softmax = ops.MatMul(), ops.BiasAdd(), ops.GeLU(), ops.Softmax()

        def construct(self, x):
            h = self.gelu(self.bias(self.mm(x, self.w1), self.b1))
            return self.softmax(self.bias(self.mm(h, self.w2), self.b2))

    def mlp(dt):
        batch, d_in, hidden, d_out = (32, 64, 128, 10) if quick else (128, 512, 1024, 10)
        net = MLP(dt, d_in, hidden, d_out)
        return net, [Tensor(arr((batch, d_in), dt))], sum(p.asnumpy().nbytes for p in net.get_parameters())

    rows = (64, 256) if quick else (1024, 1024)

    def reduce_sum(dt):
        return Apply(lambda x: ops.ReduceSum()(x, -1)), [Tensor(arr(rows, dt))], 0

    def softmax(dt):
        return Apply(ops.Softmax()), [Tensor(arr(rows, dt))], 0

    def layer_norm(dt):
        ln = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
        return (Apply(lambda x, g, b: ln(x, g, b)[0]),
                [Tensor(arr(rows, dt)), Tensor(arr(rows[1:], dt)), Tensor(arr(rows[1:], dt))], 0)

    def fused(dt):  # one FusedElementwise kernel: two float16 members, a broadcast row
        return (Apply(lambda x, y: ops.ReLU()(ops.Mul()(x, y))),
                [Tensor(arr(rows, dt)), Tensor(arr((1, rows[1]), dt))], 0)

    del ms
    return {"MatMul": matmul, "Conv2D": conv, "Add": add, "GeLU": gelu, "MLP": mlp, "ReduceSum": reduce_sum,
            "Softmax": softmax, "LayerNorm": layer_norm, "Fused": fused}


def measure(build: Callable, dt: str, steady_s: float) -> dict:
    """One (case, dtype): build, call, time; or n/a with the error when the op rejects the dtype."""
    import build_worker

    import opbuild as ms

    try:
        cell, inputs, param_bytes = build(dt)
        cell(*inputs)
    except ms.ShapeError as e:
        return {"status": "n/a", "reason": str(e).split(" (input")[0]}
    (compiled,) = cell.compile_info()
    plan = compiled.graph.memory_plan
    input_bytes = sum(x.asnumpy().nbytes for x in inputs)
    fig = build_worker.steady(lambda: cell(*inputs), steady_s)
    return {"status": "ok", "param_bytes": param_bytes, "activation_bytes": input_bytes + plan.arena_bytes,
            "kernels": len(plan.kernel_nodes), **fig}


def _fmt_bytes(b: int) -> str:
    return f"{b / 2**20:.2f} MiB" if b >= 2**20 else f"{b / 1024:.1f} KiB"


def table(results: dict) -> list[str]:
    rows = ["| case | dtype | time / call | vs float32 | parameters | activations | memory vs float32 |",
            "|---|---|---|---|---|---|---|"]
    for case, by_dt in results.items():
        base = by_dt["float32"]
        for dt in DTYPES:
            r = by_dt[dt]
            if r["status"] != "ok":
                rows.append(f"| {case} | {dt} | n/a | | | | {r['reason']} |")
                continue
            mem, mem32 = r["param_bytes"] + r["activation_bytes"], base["param_bytes"] + base["activation_bytes"]
            rows.append(f"| {case} | {dt} | {r['steady_s'] * 1e3:.3f} ms | {r['steady_s'] / base['steady_s']:.2f}x "
                        f"| {_fmt_bytes(r['param_bytes']) if r['param_bytes'] else '-'} "
                        f"| {_fmt_bytes(r['activation_bytes'])} | {mem / mem32:.2f}x |")
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--steady", type=float, default=2.0, help="seconds of steady-state calls per measurement")
    p.add_argument("--out", type=Path, default=HERE / "results" / "bench_dtypes.json", help="JSON output")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opbuild-dtypes-bench-") as root:
        os.environ["OPBUILD_CACHE_PATH"] = root
        import opbuild as ms

        ms.set_context(mode=ms.GRAPH_MODE)
        results = {case: {dt: measure(build, dt, a.steady) for dt in DTYPES}
                   for case, build in _cases(a.quick).items()}
    print("\n".join(table(results)))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"quick": a.quick, "steady_s": a.steady, "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "machine": platform.machine(), "processor": platform.processor(), "cpus": os.cpu_count()}
    a.out.write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
