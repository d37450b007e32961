"""Kernel speed of opbuild against NumPy: GEMM, batched GEMM, Conv2D and elementwise maps.

What is measured
----------------
For opbuild, the compiled kernel itself: each case builds its kernel through the public build path
(``session().builder.build([spec])``, the same builder GRAPH_MODE and PyNative use, so flags and caching are
the real ones), preallocates the input and output arrays once, and times ``kernel.fn(ptrs)``: one ctypes
call into the generated C function. That is what a node of a compiled graph costs at run time; it excludes
the per-call output copy and the Python of ``Cell.__call__`` (constant overheads that depend on the graph,
not on the kernel).

For NumPy, the fastest ordinary formulation with preallocated outputs (``np.matmul(a, b, out=c)``,
``np.exp(x, out=y)``, ...). GeLU has no NumPy ufunc: its baseline is the tanh approximation written with
in-place ufuncs (NumPy has no erf), which is cheaper than the exact erf form opbuild computes.

Conv2D is compared with a NumPy im2col (``sliding_window_view`` copied into a column matrix) + ``np.matmul``,
and additionally with ``np.matmul`` alone on the equivalent GEMM shapes (``gemm ratio``: how close the
convolution gets to the GEMM it reduces to; the target is <= 1.5).

Timing: best of ``--repeat`` rounds, each the mean over enough calls to last ~``--min-time`` seconds;
opbuild and NumPy are measured in alternating rounds so machine load affects both alike. The machine this
runs on may be shared: read ratios, not absolute times, and rerun before drawing conclusions.

OpenBLAS (NumPy's, which opbuild's GEMM kernels link too) uses every core by default; on a busy or shared
machine its spinning threads make GEMM timings erratic. opbuild's large elementwise loops (>= 2^17 elements)
run on OpenMP's threads, also every core by default; NumPy's elementwise maps run on one thread. ``--threads N``
sets ``OPENBLAS_NUM_THREADS`` and ``OMP_NUM_THREADS`` (the script re-executes itself so the libraries see them
at load time): ``--threads 1`` compares single-threaded code, ``--threads 2`` what a user of a 2-core machine
gets by default.

Usage: ``python benchmarks/bench_kernels.py [--quick] [--threads N] [--json PATH] [--only GROUP,...]
[--algo A]``
with groups gemm, batch, conv, convgrad (backward kernels against torch's), convhalf (float16/bfloat16 Conv2D
against float32), elementwise. ``--only`` defaults to every group but convgrad and convhalf.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

import opbuild
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.runtime.session import session

Call = Callable[[], None]
RESULTS = Path(__file__).resolve().parent / "results" / "kernels.json"


@dataclass
class Row:
    """One benchmark case: seconds per call for opbuild and for NumPy, and their ratio (< 1: opbuild wins)."""

    group: str
    case: str
    opbuild_s: float
    numpy_s: float
    ratio: float
    gemm_numpy_s: float | None = None
    gemm_ratio: float | None = None
    target: str = ""
    met: bool | None = None


def kernel_call(op: str, attrs: dict, arrays: list[np.ndarray]) -> tuple[Call, list[np.ndarray]]:
    """Build the kernel of ``op`` for ``arrays`` and return a zero-argument function calling it, plus the
    preallocated outputs (which the call overwrites)."""
    spec = get(op).spec(attrs, [TensorType(a.shape, a.dtype.name) for a in arrays])
    (kernel,), _ = session().builder.build([spec])
    outs = [np.empty(t.shape, dtype=t.dtype) for t in spec.outputs]
    size = get(op).workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
    scratch = [np.empty(size + 64, np.uint8)] if size else []  # the kernel's workspace (64-byte aligned)
    addresses = [a.ctypes.data for a in (*arrays, *outs)] + [-(-s.ctypes.data // 64) * 64 for s in scratch]
    status = [np.zeros(3, np.int64)] if get(op).status is not None else []  # its status words (kernel ABI 3)
    addresses += [w.ctypes.data for w in status]
    ptrs = (ctypes.c_void_p * len(addresses))(*addresses)

    def call(fn=kernel.fn, ptrs=ptrs, keep=(list(arrays), outs, scratch, status)) -> None:
        # ``keep`` holds the buffers whose raw addresses are in ``ptrs``: a caller that drops the returned
        # outputs must not leave the kernel writing into freed memory.
        fn(ptrs)

    return call, outs


def per_call(fn: Callable[[], object], min_time: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call of ``fn``: called (after one warm-up call) in batches that double until a batch takes
    ``min_time`` of ``clock`` (wall clock by default; ``time.thread_time`` for this thread's CPU time)."""
    fn()
    n, t = 1, 0.0
    while True:
        t0 = clock()
        for _ in range(n):
            fn()
        t = clock() - t0
        if t >= min_time:
            return t / n
        n = max(n * 2, int(n * min_time / max(t, 1e-9)) + 1)


def compare(*fns: Callable[[], None], repeat: int, min_time: float) -> list[float]:
    """Best-of-``repeat`` seconds per call of each function, measured in alternating rounds."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, t in zip(fns, times, strict=True):
            t.append(per_call(fn, min_time))
    return [min(t) for t in times]


def _check(name: str, got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> None:
    """Benchmarks of wrong results are worthless: verify each opbuild output against the NumPy one."""
    if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        err = float(np.nanmax(np.abs(got.astype(np.float64) - want)))
        raise SystemExit(f"{name}: opbuild result differs from NumPy (max abs err {err:.3g})")


# ---- cases ----------------------------------------------------------------------------------------

def bench_gemm(args, rng) -> list[Row]:
    rows = []
    for n in ([256, 512] if args.quick else [256, 512, 1024]):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        c = np.empty((n, n), np.float32)
        call, (out,) = kernel_call("MatMul", {}, [a, b])
        call()
        _check(f"MatMul {n}", out, a @ b, 1e-3, 1e-3 * n ** 0.5)
        t_ob, t_np = compare(call, lambda a=a, b=b, c=c: np.matmul(a, b, out=c), repeat=args.repeat,
                             min_time=args.min_time)
        rows.append(Row("gemm", f"MatMul {n}x{n}x{n} f32", t_ob, t_np, t_ob / t_np, target="<= 1.5",
                        met=t_ob / t_np <= 1.5))
    return rows


def bench_batch(args, rng) -> list[Row]:
    cases = [((32, 128, 128), (32, 128, 128)), ((8, 12, 64, 64), (8, 12, 64, 64)),
             ((16, 256, 128), (128, 256))]
    if args.quick:
        cases = cases[:1] + cases[2:]
    rows = []
    for sa, sb in cases:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        want = a @ b
        c = np.empty_like(want)
        call, (out,) = kernel_call("BatchMatMul", {}, [a, b])
        call()
        _check(f"BatchMatMul {sa}@{sb}", out, want, 1e-3, 1e-3 * sa[-1] ** 0.5)
        t_ob, t_np = compare(call, lambda a=a, b=b, c=c: np.matmul(a, b, out=c), repeat=args.repeat,
                             min_time=args.min_time)
        rows.append(Row("batch", f"BatchMatMul {sa}@{sb} f32", t_ob, t_np, t_ob / t_np, target="<= 1.5",
                        met=t_ob / t_np <= 1.5))
    return rows


def _numpy_conv(x: np.ndarray, w: np.ndarray, pad: int, stride: int, group: int, col: np.ndarray,
                out: np.ndarray) -> None:
    """NumPy im2col + matmul for a convolution with symmetric padding, a stride and groups (one batched
    matmul over the groups: (G, Og, Cg*K*K) @ (N, G, Cg*K*K, OH*OW))."""
    n, c, _, _ = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    oh, ow = win.shape[2:4]
    col6 = col.reshape(n, c, kh, kw, oh, ow)
    col6[...] = win.transpose(0, 1, 4, 5, 2, 3)
    np.matmul(w.reshape(group, o // group, cg * kh * kw), col.reshape(n, group, cg * kh * kw, oh * ow),
              out=out.reshape(n, group, o // group, oh * ow))


# (N, C, H, W, O, K, pad, stride, group): ResNet-style 3x3 layers and a 1x1 (direct gemm); MobileNetV2's
# depthwise 3x3 (stride 1 and 2) and 1x1 expansion/projection layers; the stem of a small CNN (direct).
CONV_CASES = [(8, 64, 28, 28, 64, 3, 1, 1, 1), (4, 32, 56, 56, 64, 3, 1, 1, 1), (8, 256, 14, 14, 256, 1, 0, 1, 1),
              (1, 144, 56, 56, 144, 3, 1, 1, 144), (1, 96, 112, 112, 96, 3, 1, 2, 96),
              (1, 576, 14, 14, 576, 3, 1, 1, 576), (1, 24, 56, 56, 144, 1, 0, 1, 1), (1, 144, 56, 56, 24, 1, 0, 1, 1),
              (1, 3, 32, 32, 16, 3, 1, 1, 1)]


def bench_conv(args, rng) -> list[Row]:
    cases = CONV_CASES
    if args.quick:
        cases = [(4, 64, 28, 28, 64, 3, 1, 1, 1), (4, 256, 14, 14, 256, 1, 0, 1, 1),
                 (1, 144, 56, 56, 144, 3, 1, 1, 144), (1, 144, 56, 56, 24, 1, 0, 1, 1)]
    rows = []
    for n, c, h, wd, o, k, pad, stride, group in cases:
        x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
        w = (rng.standard_normal((o, c // group, k, k)) / np.sqrt(c // group * k * k)).astype(np.float32)
        attrs = {"out_channel": o, "kernel_size": k, "pad_mode": "pad", "pad": pad, "stride": stride,
                 "group": group}
        if args.algo:
            attrs["algo"] = args.algo
        call, (out,) = kernel_call("Conv2D", attrs, [x, w])
        oh, ow = out.shape[2:]
        col = np.empty((n, c * k * k, oh * ow), np.float32)
        ref = np.empty((n, o, oh, ow), np.float32)
        _numpy_conv(x, w, pad, stride, group, col, ref)
        call()
        _check(f"Conv2D {x.shape}", out, ref, 1e-3, 1e-3)
        wm = w.reshape(group, o // group, -1)
        colg, gout = col.reshape(n, group, -1, oh * ow), ref.reshape(n, group, o // group, oh * ow)
        t_ob, t_np, t_gemm = compare(
            call,
            lambda x=x, w=w, pad=pad, s=stride, g=group, col=col, ref=ref: _numpy_conv(x, w, pad, s, g, col, ref),
            # The GEMM the convolution reduces to, in NumPy alone: (Og, Cg*K*K) @ (Cg*K*K, OH*OW) per image-group.
            lambda wm=wm, colg=colg, gout=gout: np.matmul(wm, colg, out=gout),
            repeat=args.repeat, min_time=args.min_time)
        tag = f" s{stride}" if stride > 1 else ""
        tag += f" g{group}" if group > 1 else ""
        rows.append(Row("conv", f"Conv2D N{n} C{c} {h}x{wd} O{o} k{k} p{pad}{tag} f32", t_ob, t_np, t_ob / t_np,
                        gemm_numpy_s=t_gemm, gemm_ratio=t_ob / t_gemm, target="gemm <= 1.5",
                        met=t_ob / t_gemm <= 1.5))
    return rows


def _np_sigmoid(x, y):
    np.negative(x, out=y)
    np.exp(y, out=y)
    y += 1
    np.reciprocal(y, out=y)


def _np_gelu_tanh(x, y, t):
    np.multiply(x, x, out=t)
    t *= 0.044715 * 0.7978845608
    t += 0.7978845608
    t *= x
    np.tanh(t, out=t)
    t += 1
    np.multiply(x, t, out=y)
    y *= 0.5


def bench_elementwise(args, rng) -> list[Row]:
    n = 1 << 20
    x = rng.standard_normal(n).astype(np.float32) * 3
    z = rng.standard_normal(n).astype(np.float32)
    y = np.empty(n, np.float32)
    t = np.empty(n, np.float32)
    x64, y64 = x.astype(np.float64), np.empty(n, np.float64)
    with np.errstate(all="ignore"):
        cases = {
            "Add": ([x, z], lambda: np.add(x, z, out=y), x + z),
            "Mul": ([x, z], lambda: np.multiply(x, z, out=y), x * z),
            "Square": ([x], lambda: np.square(x, out=y), x * x),
            "Exp": ([x], lambda: np.exp(x, out=y), np.exp(x)),
            "Tanh": ([x], lambda: np.tanh(x, out=y), np.tanh(x)),
            "Sigmoid": ([x], lambda: _np_sigmoid(x, y), 1 / (1 + np.exp(-x))),
            "ReLU": ([x], lambda: np.maximum(x, 0, out=y), np.maximum(x, 0)),
            "GeLU": ([x], lambda: _np_gelu_tanh(x, y, t), None),
            "Tanh f64": ([x64], lambda: np.tanh(x64, out=y64), np.tanh(x64)),
        }
    rows = []
    for case, (ins, np_fn, want) in cases.items():
        op = case.split()[0]
        call, (out,) = kernel_call(op, {}, ins)
        call()
        if want is None:  # exact erf GeLU: check against the op's own NumPy reference
            want = get(op).reference({}, x.astype(np.float64))
        tol = (1e-5, 1e-6) if out.dtype == np.float32 else (1e-12, 1e-14)
        _check(case, out, want, *tol)
        t_ob, t_np = compare(call, np_fn, repeat=args.repeat, min_time=args.min_time)
        rows.append(Row("elementwise", f"{op} 1M {'f32' if out.dtype == np.float32 else 'f64'}", t_ob, t_np,
                        t_ob / t_np, target="< 1", met=t_ob < t_np))
    return rows

# (N, C, H, W, O, K, pad, stride, group) of the backward cases: two MobileNetV2 depthwise layers (the
# ``direct`` backward), a ResNet 3x3 (im2col + GEMM) and a 1x1 (GEMM).
CONVGRAD_CASES = [(1, 144, 56, 56, 144, 3, 1, 1, 144), (1, 96, 112, 112, 96, 3, 1, 2, 96),
                  (8, 64, 28, 28, 64, 3, 1, 1, 1), (8, 256, 14, 14, 256, 1, 0, 1, 1)]


def bench_convgrad(args, rng) -> list[Row]:
    """Conv2DBackpropInput and Conv2DBackpropFilter kernels against torch's convolution_backward (the
    ``numpy`` column holds torch here: NumPy has no convolution gradient worth timing), same thread count."""
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1))
    rows = []
    for n, c, h, wd, o, k, pad, stride, group in CONVGRAD_CASES[:2] if args.quick else CONVGRAD_CASES:
        x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
        w = (rng.standard_normal((o, c // group, k, k)) / np.sqrt(c // group * k * k)).astype(np.float32)
        fwd = get("Conv2D").spec({"out_channel": o, "kernel_size": k, "pad_mode": "pad", "pad": pad,
                                  "stride": stride, "group": group},
                                 [TensorType(x.shape, "float32"), TensorType(w.shape, "float32")])
        attrs = {key: v for key, v in fwd.attrs.items() if key != "algo"}
        dy = rng.standard_normal(fwd.outputs[0].shape).astype(np.float32)
        xt, wt, dyt = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(dy)
        for op, extra, arrays, mask in (("Conv2DBackpropInput", {"input_size": list(x.shape)}, [dy, w],
                                         [True, False, False]),
                                        ("Conv2DBackpropFilter", {"filter_size": list(w.shape)}, [dy, x],
                                         [False, True, False])):
            call, (out,) = kernel_call(op, {**attrs, **extra}, arrays)

            def peer(mask=mask, dyt=dyt, xt=xt, wt=wt, stride=stride, pad=pad, group=group):
                return torch.ops.aten.convolution_backward(dyt, xt, wt, None, [stride] * 2, [pad] * 2, [1, 1],
                                                           False, [0, 0], group, mask)

            call()
            want = peer()[0 if mask[0] else 1].numpy()
            _check(f"{op} {x.shape}", out, want, 1e-3, 1e-3 * np.sqrt(np.abs(want).max() + 1))
            algo = get(op).spec({**attrs, **extra}, [TensorType(a.shape, "float32") for a in arrays]).attrs["algo"]
            with torch.no_grad():
                t_ob, t_peer = compare(call, peer, repeat=args.repeat, min_time=args.min_time)
            tag = f" s{stride}" if stride > 1 else ""
            tag += f" g{group}" if group > 1 else ""
            short = "dx" if mask[0] else "dW"
            rows.append(Row("convgrad", f"{short} N{n} C{c} {h}x{wd} O{o} k{k}{tag} {algo} vs torch", t_ob, t_peer,
                            t_ob / t_peer))
    return rows


def bench_conv_half(args, rng) -> list[Row]:
    """float16/bfloat16 Conv2D (float32 scratch + float32 kernel, conv_kernels.py half_wrap) against the
    float32 kernel of the same shape: the cost of the conversions."""
    import ml_dtypes

    rows = []
    for n, c, h, wd, o, k, pad, stride, group in [(8, 64, 28, 28, 64, 3, 1, 1, 1),
                                                  (1, 144, 56, 56, 144, 3, 1, 1, 144)]:
        x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
        w = (rng.standard_normal((o, c // group, k, k)) / np.sqrt(c // group * k * k)).astype(np.float32)
        attrs = {"out_channel": o, "kernel_size": k, "pad_mode": "pad", "pad": pad, "stride": stride,
                 "group": group}
        f32, (ref,) = kernel_call("Conv2D", attrs, [x, w])
        f32()
        for dt in (np.float16, ml_dtypes.bfloat16):
            call, (out,) = kernel_call("Conv2D", attrs, [x.astype(dt), w.astype(dt)])
            call()
            _check(f"Conv2D {np.dtype(dt).name}", out.astype(np.float32), ref, 0.02, 0.02)
            t_half, t_f32 = compare(call, f32, repeat=args.repeat, min_time=args.min_time)
            tag = f" g{group}" if group > 1 else ""
            rows.append(Row("convhalf", f"Conv2D N{n} C{c} {h}x{wd} O{o} k{k}{tag} {np.dtype(dt).name} vs f32",
                            t_half, t_f32, t_half / t_f32))
    return rows


GROUPS = {"gemm": bench_gemm, "batch": bench_batch, "conv": bench_conv, "convgrad": bench_convgrad,
          "convhalf": bench_conv_half, "elementwise": bench_elementwise}


def print_table(rows: list[Row]) -> None:
    head = f"{'case':<44} {'opbuild':>11} {'numpy':>11} {'ratio':>7} {'gemm-eq':>8}  target"
    print(head)
    print("-" * len(head))
    for r in rows:
        gemm = f"{r.gemm_ratio:8.2f}" if r.gemm_ratio is not None else " " * 8
        mark = "" if r.met is None else ("ok" if r.met else "MISSED")
        print(f"{r.case:<44} {r.opbuild_s * 1e3:9.3f}ms {r.numpy_s * 1e3:9.3f}ms {r.ratio:7.2f} {gemm}  "
              f"{r.target} {mark}")


def main(argv: list[str] | None = None) -> int:
    """Run the selected benchmark groups, print the table and write the JSON results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer and smaller cases, fewer repeats")
    p.add_argument("--repeat", type=int, default=None,
                   help="rounds per case (the best is kept); default 5, quick 3")
    p.add_argument("--min-time", type=float, default=None, help="seconds per round; default 0.2, quick 0.05")
    p.add_argument("--only", default="gemm,batch,conv,elementwise",
                   help=f"comma-separated groups of {', '.join(GROUPS)}")
    p.add_argument("--threads", type=int, default=None,
                   help="OPENBLAS_NUM_THREADS and OMP_NUM_THREADS (opbuild's elementwise threads)")
    p.add_argument("--algo", default=None, help="force Conv2D's algorithm (gemm, depthwise, direct, im2col)")
    p.add_argument("--json", type=Path, default=RESULTS, help=f"where to write results (default {RESULTS})")
    args = p.parse_args(argv)
    threads_env = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    if args.threads is not None and any(os.environ.get(v) != str(args.threads) for v in threads_env):
        # BLAS and OpenMP read their thread counts when they are loaded (NumPy's BLAS already is): restart.
        os.environ.update(dict.fromkeys(threads_env, str(args.threads)))
        os.execv(sys.executable, [sys.executable, *sys.argv])
    args.repeat = args.repeat or (3 if args.quick else 5)
    args.min_time = args.min_time or (0.05 if args.quick else 0.2)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        p.error(f"unknown group(s) {unknown}; choose from {', '.join(GROUPS)}")

    rng = np.random.default_rng(0)
    rows: list[Row] = []
    for g in groups:
        rows += GROUPS[g](args, rng)
    print_table(rows)
    result = {
        "opbuild_version": opbuild.__version__,
        "numpy_version": np.__version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_avg": os.getloadavg(),
        "cflags": os.environ.get("OPBUILD_CFLAGS", ""),
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS", ""),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "quick": args.quick,
        "repeat": args.repeat,
        "min_time": args.min_time,
        "rows": [asdict(r) for r in rows],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
