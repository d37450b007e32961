"""Training kernels of issue 26 against torch's, per kernel, in one run: pooling gradients, BatchNorm in
training mode and its gradient, activation gradients, bias gradients and the optimizer updates.

What is timed
-------------
- opbuild: the compiled kernel alone (``bench_kernels.kernel_call``: one ctypes call into the generated C
  function on preallocated buffers), built through the public build path, so flags and caching are the real
  ones. Update kernels (ApplyMomentum, Adam) write their state in place: calling them repeatedly is what a
  training loop does.
- torch: the ATen kernel torch's eager autograd calls for the same gradient (``max_pool2d_with_indices_backward``
  with the forward's indices, ``avg_pool2d_backward``, ``native_batch_norm[_backward]``,
  ``threshold_backward``, ...), and for the updates the single-tensor eager step ``torch.optim.SGD`` /
  ``torch.optim.Adam`` run (``foreach=False``), plus Adam's ``fused=True`` CPU kernel. torch is given what its
  autograd saved (MaxPool's indices): opbuild's MaxPoolGrad recomputes each window's argmax from x, as
  MindSpore's signature ``(x, y, dout)`` implies.

Every result is checked against torch's before it is timed. Each figure is the best of ``--repeat`` rounds,
each the mean over calls lasting ``--min-time`` seconds, opbuild and torch alternating. ``--threads N``
(default 1) sets OPENBLAS_NUM_THREADS/OMP_NUM_THREADS (the script re-executes itself so the libraries read
them) and ``torch.set_num_threads``. The machine may be shared: read the ratios.

Usage: ``python benchmarks/bench_train_kernels.py [--quick] [--threads N] [--repeat R] [--min-time S]
[--json PATH]``; results go to ``benchmarks/results/train_kernels.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "train_kernels.json"
THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


@dataclass
class Row:
    """One case: seconds per call for opbuild and torch, and their ratio (< 1: opbuild is faster)."""

    case: str
    opbuild_s: float
    torch_s: float
    ratio: float


def _pool_cases(quick: bool) -> list[tuple]:
    # (name, N, C, H, W, kernel, stride, pad): ResNet's stem pool at batch 8, a VGG-style 2x2 pool.
    cases = [("3x3/2 pad 1", 8, 64, 56, 56, 3, 2, 1), ("2x2/2", 8, 128, 28, 28, 2, 2, 0)]
    return cases[:1] if quick else cases


def pool_rows(args, rng, np, torch, kernel_call, compare, check) -> list[Row]:
    """MaxPoolGrad and AvgPoolGrad against torch's backward kernels."""
    from opbuild.core.ir import TensorType
    from opbuild.ops.registry import get

    F = torch.nn.functional
    rows = []
    for name, n, c, h, w, k, s, p in _pool_cases(args.quick):
        x = rng.standard_normal((n, c, h, w)).astype(np.float32)
        xt = torch.from_numpy(x)
        # The gradient ops take the forward's normalized attributes, as the gradient rule passes them.
        attrs = get("MaxPool").spec({"kernel_size": k, "strides": s, "pad_mode": "pad", "pad": p},
                                    [TensorType(x.shape, "float32")]).attrs
        avg_attrs = get("AvgPool").spec({"kernel_size": k, "strides": s, "pad_mode": "pad", "pad": p,
                                         "count_include_pad": True}, [TensorType(x.shape, "float32")]).attrs
        y_max, idx = F.max_pool2d(xt, k, s, p, return_indices=True)
        dy = rng.standard_normal(tuple(y_max.shape)).astype(np.float32)
        dyt = torch.from_numpy(dy)
        call, (out,) = kernel_call("MaxPoolGrad", attrs, [x, y_max.numpy(), dy])

        def peer(dyt=dyt, xt=xt, idx=idx, k=k, s=s, p=p):
            return torch.ops.aten.max_pool2d_with_indices_backward(dyt, xt, [k, k], [s, s], [p, p], [1, 1],
                                                                     False, idx)

        call()
        check(f"MaxPoolGrad {name}", out, peer().numpy())
        rows.append(Row(f"MaxPoolGrad {name} {n}x{c}x{h}x{w}", *compare(call, peer)))

        # A training step pays the forward too: torch's forward saves the indices its backward reads,
        # opbuild's MaxPool saves nothing and MaxPoolGrad finds each window's maximum again.
        fwd, _ = kernel_call("MaxPool", {"kernel_size": k, "strides": s, "pad_mode": "pad", "pad": p}, [x])

        def step(call=call, fwd=fwd):
            fwd()
            call()

        def peer_step(dyt=dyt, xt=xt, k=k, s=s, p=p):
            y, i = torch.ops.aten.max_pool2d_with_indices(xt, [k, k], [s, s], [p, p])
            return torch.ops.aten.max_pool2d_with_indices_backward(dyt, xt, [k, k], [s, s], [p, p], [1, 1],
                                                                     False, i)

        rows.append(Row(f"MaxPool + MaxPoolGrad {name} {n}x{c}x{h}x{w}", *compare(step, peer_step)))

        y_avg = F.avg_pool2d(xt, k, s, p, count_include_pad=True)
        call, (out,) = kernel_call("AvgPoolGrad", avg_attrs, [x, y_avg.numpy(), dy])

        def peer_avg(dyt=dyt, xt=xt, k=k, s=s, p=p):
            return torch.ops.aten.avg_pool2d_backward(dyt, xt, [k, k], [s, s], [p, p], False, True, None)

        call()
        check(f"AvgPoolGrad {name}", out, peer_avg().numpy())
        rows.append(Row(f"AvgPoolGrad {name} {n}x{c}x{h}x{w}", *compare(call, peer_avg)))
    return rows


def batchnorm_rows(args, rng, np, torch, kernel_call, compare, check) -> list[Row]:
    """BatchNorm's training forward (batch statistics, moving averages) and its gradient."""
    rows = []
    shapes = [(8, 64, 56, 56)] if args.quick else [(8, 64, 56, 56), (8, 256, 14, 14)]
    for shape in shapes:
        c = shape[1]
        x = rng.standard_normal(shape).astype(np.float32)
        gamma, beta = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
        mean, var = np.zeros(c, np.float32), np.ones(c, np.float32)
        call, outs = kernel_call("BatchNormTraining", {"epsilon": 1e-5, "momentum": 0.1},
                                 [x, gamma, beta, mean.copy(), var.copy()])
        xt, gt, bt = torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)
        rm, rv = torch.zeros(c), torch.ones(c)

        def peer(xt=xt, gt=gt, bt=bt, rm=rm, rv=rv):
            return torch.ops.aten.native_batch_norm(xt, gt, bt, rm, rv, True, 0.1, 1e-5)

        call()
        y, _, _, save_mean, save_rstd = outs[0], outs[1], outs[2], outs[3], outs[4]
        check(f"BatchNormTraining {shape}", y, peer()[0].numpy())
        label = "x".join(map(str, shape))
        rows.append(Row(f"BatchNormTraining {label}", *compare(call, peer)))

        dy = rng.standard_normal(shape).astype(np.float32)
        call, (dx, _, _) = kernel_call("BatchNormGrad", {}, [dy, x, gamma, save_mean.copy(), save_rstd.copy()])
        _, tmean, trstd = peer()
        dyt = torch.from_numpy(dy)

        def peer_grad(dyt=dyt, xt=xt, gt=gt, tmean=tmean, trstd=trstd):
            return torch.ops.aten.native_batch_norm_backward(dyt, xt, gt, None, None, tmean, trstd, True, 1e-5,
                                                              [True, True, True])

        call()
        check(f"BatchNormGrad {shape}", dx, peer_grad()[0].numpy())
        rows.append(Row(f"BatchNormGrad {label}", *compare(call, peer_grad)))
    return rows


def elementwise_rows(args, rng, np, torch, kernel_call, compare, check) -> list[Row]:
    """ReluGrad and BiasAddGrad (the per-channel sum of dy) on a ResNet activation."""
    shape = (8, 64, 56, 56)
    y = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    dy = rng.standard_normal(shape).astype(np.float32)
    yt, dyt = torch.from_numpy(y), torch.from_numpy(dy)
    rows = []
    call, (out,) = kernel_call("ReluGrad", {}, [dy, y])

    def relu_peer():
        return torch.ops.aten.threshold_backward(dyt, yt, 0.0)

    call()
    check("ReluGrad", out, relu_peer().numpy())
    rows.append(Row("ReluGrad 8x64x56x56", *compare(call, relu_peer)))

    call, (out,) = kernel_call("BiasAddGrad", {}, [dy])

    def bias_peer():
        return dyt.sum(dim=(0, 2, 3))

    call()
    check("BiasAddGrad", out, bias_peer().numpy())
    rows.append(Row("BiasAddGrad 8x64x56x56", *compare(call, bias_peer)))
    return rows


def _inplace_call(np, op: str, arrays: list, n_state: int):
    """The kernel of the update ``op`` called as a compiled graph calls it: its first ``n_state`` outputs at
    their state inputs' addresses (updated in place, no copy-in)."""
    import ctypes

    from opbuild.core.ir import TensorType
    from opbuild.ops.registry import get
    from opbuild.runtime.session import session

    spec = get(op).spec({}, [TensorType(a.shape, a.dtype.name) for a in arrays])
    (kernel,), _ = session().builder.build([spec])
    assert len(spec.outputs) == n_state, (op, spec.outputs)
    addresses = [a.ctypes.data for a in arrays] + [a.ctypes.data for a in arrays[:n_state]]
    ptrs = (ctypes.c_void_p * len(addresses))(*addresses)

    def call(fn=kernel.fn, ptrs=ptrs, keep=arrays) -> None:
        fn(ptrs)

    return call


def optimizer_rows(args, rng, np, torch, kernel_call, compare, check) -> list[Row]:
    """ApplyMomentum and Adam on one parameter tensor against torch's eager (and fused) steps; both sides
    update their state in place, step after step."""
    n = 1 << 20
    rows = []
    p0 = rng.standard_normal(n).astype(np.float32)
    g = rng.standard_normal(n).astype(np.float32)
    lr, mom = np.float32(0.01), np.float32(0.9)

    var, acc = p0.copy(), np.zeros(n, np.float32)
    call = _inplace_call(np, "ApplyMomentum", [var, acc, np.array(lr), g, np.array(mom)], 2)
    new_var = var
    tp = torch.nn.Parameter(torch.from_numpy(p0.copy()))
    tp.grad = torch.from_numpy(g)
    sgd = torch.optim.SGD([tp], lr=float(lr), momentum=float(mom), foreach=False)
    call()
    sgd.step()  # torch's first step copies the gradient into the buffer: the same update as opbuild's
    check("ApplyMomentum", new_var, tp.detach().numpy())
    rows.append(Row("ApplyMomentum 1M (SGD momentum, eager)", *compare(call, sgd.step)))

    b1, b2, eps = np.float32(0.9), np.float32(0.999), np.float32(1e-8)
    var, m, v = p0.copy(), np.zeros(n, np.float32), np.zeros(n, np.float32)
    scalars = [np.array(s, np.float32) for s in (b1, b2, lr, b1, b2, eps)]  # beta1_power, beta2_power, lr, ...
    call = _inplace_call(np, "Adam", [var, m, v, *scalars, g], 3)
    new_var = var
    for fused in (False, True):
        tp = torch.nn.Parameter(torch.from_numpy(p0.copy()))
        tp.grad = torch.from_numpy(g)
        adam = torch.optim.Adam([tp], lr=float(lr), betas=(float(b1), float(b2)), eps=float(eps), foreach=False,
                                fused=fused)
        if not fused:
            call()
            adam.step()
            # MindSpore's Adam adds epsilon to sqrt(v) before the bias correction, torch after it: they
            # differ where |g| is of the order of epsilon, so compare where it is not.
            big = np.abs(g) > 1e-3
            check("Adam", new_var[big], tp.detach().numpy()[big])
        rows.append(Row(f"Adam 1M ({'fused' if fused else 'eager'})", *compare(call, adam.step)))
    return rows


GROUPS: dict[str, Callable] = {"pool": pool_rows, "batchnorm": batchnorm_rows, "elementwise": elementwise_rows,
                               "optimizer": optimizer_rows}


def main(argv: list[str] | None = None) -> int:
    """Run the groups, print the table and write the JSON results."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one shape per group, short rounds")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=None, help="rounds per case (best kept); default 5, quick 3")
    p.add_argument("--min-time", type=float, default=None, help="seconds per round; default 0.2, quick 0.05")
    p.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated groups of {', '.join(GROUPS)}")
    p.add_argument("--json", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    if any(os.environ.get(v) != str(args.threads) for v in THREAD_VARS):
        # BLAS and OpenMP read their thread counts when they load: restart with them set.
        os.environ.update(dict.fromkeys(THREAD_VARS, str(args.threads)))
        os.execv(sys.executable, [sys.executable, *sys.argv])
    args.repeat = args.repeat or (3 if args.quick else 5)
    args.min_time = args.min_time or (0.05 if args.quick else 0.2)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    if unknown := [g for g in groups if g not in GROUPS]:
        p.error(f"unknown group(s) {unknown}; choose from {', '.join(GROUPS)}")

    import numpy as np
    import torch

    sys.path.insert(0, str(HERE))
    import bench_kernels as bk

    import opbuild

    torch.set_num_threads(args.threads)

    def compare(ours, theirs) -> tuple[float, float, float]:
        t_ob, t_torch = bk.compare(ours, theirs, repeat=args.repeat, min_time=args.min_time)
        return t_ob, t_torch, t_ob / t_torch

    def check(name: str, got, want) -> None:
        if not np.allclose(got, want, rtol=1e-3, atol=1e-4):
            err = float(np.abs(got.astype(np.float64) - want).max())
            raise SystemExit(f"{name}: opbuild's result differs from torch's (max abs err {err:.3g})")

    rng = np.random.default_rng(0)
    rows: list[Row] = []
    with torch.no_grad():
        for g in groups:
            rows += GROUPS[g](args, rng, np, torch, bk.kernel_call, compare, check)
    head = f"{'case':<48} {'opbuild':>10} {'torch':>10} {'ratio':>6}"
    print(head + "\n" + "-" * len(head))
    for r in rows:
        print(f"{r.case:<48} {r.opbuild_s * 1e3:8.3f}ms {r.torch_s * 1e3:8.3f}ms {r.ratio:6.2f}")
    result = {"opbuild_version": opbuild.__version__, "torch_version": torch.__version__,
              "machine": platform.machine(), "cpu_count": os.cpu_count(), "load_avg": os.getloadavg(),
              "threads": args.threads, "repeat": args.repeat, "min_time": args.min_time,
              "rows": [asdict(r) for r in rows]}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
