#!/usr/bin/env python3
"""The one check to run on a machine with an NVIDIA GPU (under 5 minutes): the GPU target's kernels against
the CPU target's results, a warm second process that builds nothing, and timings.

    python scripts/gpu_check.py [--cache DIR] [--out FILE.json]
    python scripts/gpu_check.py --host    # no GPU: the same checks on the emulated device (no timings)

1. Cold build: every kernel of the GPU op suite (tests/targets/cuda/suite.py) through the Builder with
   ``set_device("GPU")`` into a fresh kernel_meta (``--cache``, default a temporary folder): built, seconds.
2. Correctness: each kernel launched on device buffers (driver API) on the suite's inputs, compared with the
   CPU target's kernel on the same inputs (an in-place update twice: separate output buffers, then each
   output at its input's address): exact for integers and booleans, rtol 1e-5 / atol 1e-6 for
   float32, 1e-12 for float64 (NaN where the CPU has NaN); kernels that accumulate (reductions, softmax,
   MatMul) by the CPU tests' rule for sums, rtol 1e-4 / atol 1e-4 * sqrt(terms) (float64: 1e-10).
3. Networks on the GPU executor (runtime/device_graph.py): the examples' MLP, ResNet-style CNN and
   transformer encoder (opbuild.models, small sizes), GRAPH_MODE forward, gradients of a loss with respect to
   every weight, and two TrainOneStepCell(Momentum) steps, against the same networks on the CPU target:
   rtol 1e-3 / atol 1e-3 * max|CPU| (a network chains many accumulating kernels; each kernel alone meets the
   tolerances of 2). A network with an op the GPU has no emitter for yet reports "unsupported op X" for that
   phase, which is not a failure (the summary lists them, and every op of that phase's CPU kernels that
   has no GPU emitter). One more network, "executor" (tests/targets/cuda/gpu_nets.py), is the executor
   tests' own: Gather, MatMul, Softmax, Transpose, elementwise and reductions, a Momentum step. And the CNN
   and transformer under mixed precision (tests/targets/cuda/amp_nets.py: ``amp.auto_mixed_precision`` at
   O1, O2 and O3, float16 and bfloat16; "resnet-O2-float16" ...): the same phases, rtol
   and atol * max|CPU| of 4 units in the last place of the half type (sums accumulate in other orders, so an
   intermediate may round one half ulp apart).
   Bad indices: an index out of range raises the CPU's KernelInputError from a GPU kernel's status words
   (PyNative, a compiled graph computing its indices, which then runs clean) and a refused train step
   leaves every Parameter unchanged (the GPU kernels claim the report with atomicCAS: many threads).
4. Warm start: this script again in a new process over the same cache, which must build 0 kernels (the
   suite's, and the networks' that built).
5. Timings: large elementwise, broadcast, reduction, softmax and MatMul kernels, GPU (CUDA events) against
   the CPU kernel of the same spec.
Prints one line per failure and a JSON summary (also written to ``--out``); exit code 1 on any failure.

``--host`` installs the emulated device of the tests (tests/targets/cuda/emulated_device.py: the driver on
host memory, each cubin's kernels compiled by g++ for one thread and one block), so that every check above
but the timings runs through the same code as on a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]  # the suite is a test helper: tests/targets/cuda/suite.py

import numpy as np  # noqa: E402
from tests.targets.cuda import amp_nets, gpu_nets  # noqa: E402
from tests.targets.cuda.emulated_device import install as install_emulation  # noqa: E402
from tests.targets.cuda.suite import Case, cases  # noqa: E402

import opbuild as ms  # noqa: E402
from opbuild import models, nn, ops  # noqa: E402
from opbuild.core.ir import TensorType  # noqa: E402
from opbuild.ops.registry import get as get_op  # noqa: E402
from opbuild.runtime.session import session  # noqa: E402
from opbuild.targets.cuda import codegen, device, has_status  # noqa: E402
from opbuild.targets.cuda.kernels import EMITTERS, launch_blocks  # noqa: E402

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12),
       # half types: one ulp of the result (the device's float32 math may straddle a rounding boundary)
       "float16": (2.0 ** -10, 2.0 ** -24), "bfloat16": (2.0 ** -7, 2.0 ** -133)}
# Kernels that accumulate (their order of additions differs from the CPU's): the CPU tests' rule for sums,
# rtol 1e-4 and atol 1e-4 * sqrt(terms) for float32, 1e-10 for float64.
ACCUMULATING = ("Reduce", "MatMul", "BatchMatMul", "Softmax", "LogSoftmax", "FusedRowReduce", "FusedMatMul",
                "FusedBatchMatMul", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits")
ACC_TOL = {"float32": 1e-4, "float64": 1e-10, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _ok(result, what: str):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what}: {getattr(err, 'name', err)}")
    return rest[0] if len(rest) == 1 else (rest or None)


class Buffers:
    """Device copies of host arrays, and outputs read back (driver API, the default stream)."""

    def __init__(self, drv):
        self.drv, self.ptrs = drv, []

    def put(self, a: np.ndarray) -> int:
        a = np.ascontiguousarray(a)
        ptr = _ok(self.drv.cuMemAlloc(max(a.nbytes, 1)), "cuMemAlloc")
        if a.nbytes:
            _ok(self.drv.cuMemcpyHtoD(ptr, a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
        self.ptrs.append(ptr)
        return int(ptr)

    def empty(self, t: TensorType) -> int:
        ptr = _ok(self.drv.cuMemAlloc(max(int(np.prod(t.shape, dtype=np.int64)) * np.dtype(t.dtype).itemsize, 1)),
                  "cuMemAlloc")
        self.ptrs.append(ptr)
        return int(ptr)

    def get(self, ptr: int, t: TensorType) -> np.ndarray:
        out = np.empty(t.shape, dtype=t.dtype)
        if out.nbytes:
            _ok(self.drv.cuMemcpyDtoH(out.ctypes.data, ptr, out.nbytes), "cuMemcpyDtoH")
        return out

    def free(self) -> None:
        for p in self.ptrs:
            self.drv.cuMemFree(p)
        self.ptrs = []


def gpu_run(kernel, spec, arrays, drv, aliased: bool = False) -> list[np.ndarray]:
    """``kernel`` on device copies of ``arrays``; ``aliased``: an in-place op's outputs at their inputs' addresses
    (``OpDef.inplace``), as the executor runs it."""
    bufs = Buffers(drv)
    try:
        ins = [bufs.put(a) for a in arrays]
        outs = [bufs.empty(t) for t in spec.outputs]
        if aliased:
            for o, i in get_op(spec.op).inplace:
                outs[o] = ins[i]
        # An op that declares a status takes its three words after the outputs (kernel ABI 2); the suite's
        # indices are all in range, so a report is a kernel bug.
        status = [bufs.put(np.zeros(3, np.int64))] if has_status(spec.op) else []
        kernel.fn([*ins, *outs, *status], n=launch_blocks(spec) * codegen.BLOCK)  # the executor's launch size
        _ok(drv.cuCtxSynchronize(), "cuCtxSynchronize")
        if status and bufs.get(status[0], TensorType((3,), "int64"))[0]:
            raise RuntimeError(f"{spec.op}: the kernel reported an index out of range on in-range indices")
        return [bufs.get(p, t) for p, t in zip(outs, spec.outputs, strict=True)]
    finally:
        bufs.free()


def on_cpu(fn):
    """``fn()`` with device_target CPU (the GPU restored afterwards)."""
    ms.set_device("CPU")
    try:
        return fn()
    finally:
        ms.set_device("GPU")


def cpu_run(spec, arrays) -> list[np.ndarray]:
    return on_cpu(lambda: session().run_eager(spec, arrays))


def tolerance(case: Case, dtype: str) -> tuple[float, float]:
    """(rtol, atol) of ``case``'s float output: elementwise, or the rule for sums (``ACCUMULATING``)."""
    spec = case.spec
    if hasattr(case, "tolerance"):  # a case stating its own rule (tests/targets/cuda/suite_gpunn.py)
        return case.tolerance(dtype)
    if spec.op.startswith(ACCUMULATING) and dtype in ACC_TOL:
        terms = max(t.size for t in spec.inputs) / max(spec.outputs[0].size, 1)
        if spec.op in ("MatMul", "BatchMatMul", "FusedMatMul", "FusedBatchMatMul"):
            terms = spec.inputs[0].shape[-1] if spec.inputs[0].rank else 1
        return ACC_TOL[dtype], ACC_TOL[dtype] * max(terms, 1) ** 0.5
    return TOL.get(dtype, (1e-5, 1e-6))


def compare(case: Case, got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    for g, w in zip(got, want, strict=True):
        if g.dtype.kind in "f" or g.dtype.name in TOL:  # bfloat16 (ml_dtypes) is of kind "V"
            rtol, atol = tolerance(case, g.dtype.name)
            g, w = g.astype(np.float64), np.asarray(w).astype(np.float64)
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
                return f"{int(bad.sum())} of {g.size} differ, max abs diff {np.nanmax(np.abs(g - w)):.3g}"
        elif not np.array_equal(g, w):
            return f"{int((g != w).sum())} of {g.size} differ"
    return None


def build_suite(suite: list[Case]):
    ms.set_device("GPU")
    t0 = time.perf_counter()
    kernels, report = session().builder.build([c.spec for c in suite])
    return kernels, report, time.perf_counter() - t0



# ---- networks on the GPU executor ------------------------------------------------------------------------

NET_TOL = 1e-3  # rtol, and atol relative to the largest CPU value (see the module docstring)
AMP_TOL = {"float16": 4 * 2.0 ** -10, "bfloat16": 4 * 2.0 ** -7}  # the mixed-precision networks'


class _ExecutorNet(nn.Cell):
    """The executor tests' network (tests/targets/cuda/gpu_nets.py: Gather, MatMul, Softmax, Transpose, ops
    with GPU emitters today), ending in a softmax (a MatMul's elementwise epilogue would be a FusedMatMul)."""

    def __init__(self):
        super().__init__()
        self.net = gpu_nets.Net(gpu_nets.weights())

    def construct(self, idx):
        return ops.softmax(self.net.logits(idx), axis=-1)


def _networks() -> dict:
    """name -> a function making (net, input) afresh (the same weights on every call: seeded)."""
    tc = models.TransformerConfig(vocab_size=500, hidden=64, heads=4, layers=2, intermediate=128, seq_len=16,
                                  batch=2)
    return {"executor": lambda: (_ExecutorNet(), gpu_nets.data()[1]),
            "mlp": lambda: (models.mlp(784, [256, 128], 10), models.mlp_input(8, 784)),
            "resnet": lambda: (models.resnet_small(10, 8, [2, 2, 2]), models.resnet_input(2, 16)),
            "transformer": lambda: (models.transformer_encoder(tc), models.transformer_input(tc)),
            **{f"{name}-{level}-{dtype}": _amp(name, level, dtype)
               for name, level in amp_nets.CASES for dtype in AMP_TOL}}


def _amp(name: str, level: str, dtype: str):
    """A function making network ``name`` under ``auto_mixed_precision(level, dtype)`` and its input."""
    def make():
        net, x = amp_nets.make(name)
        return ms.amp.auto_mixed_precision(net, level, dtype=getattr(ms, dtype)), x

    return make


def _tolerance(name: str) -> float:
    return AMP_TOL.get(name.rsplit("-", 1)[-1], NET_TOL)


class _Loss(nn.Cell):
    """mean(net(x) ** 2): a scalar whose gradient reaches every weight."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return ops.mean(self.net(x) ** 2)


class _WeightGrads(nn.Cell):
    def __init__(self, loss):
        super().__init__()
        self.grad = ms.grad(loss, grad_position=None, weights=loss.trainable_params())

    def construct(self, x):
        return self.grad(x)


def _phases(make) -> dict:
    """The results of each phase on the current target: forward, gradients, two train steps."""
    ms.set_context(mode=ms.GRAPH_MODE)
    out: dict = {}
    for phase in ("forward", "backward", "train"):
        net, x = make()
        try:
            if phase == "forward":
                out[phase] = [net(x).asnumpy()]
            elif phase == "backward":
                out[phase] = [g.asnumpy() for g in _WeightGrads(_Loss(net))(x)]
            else:
                loss = _Loss(net)
                # lr 1e-3: mean(out ** 2) starts near 80 for the seeded CNN, and a 1e-2 step overshoots (80 -> 131),
                # which amplifies half-precision rounding past the comparison's few-ulp tolerance.
                step = nn.TrainOneStepCell(loss, nn.Momentum(loss.trainable_params(), 0.001, 0.9))
                losses = [step(x).asnumpy()]
                out[phase + "_built"] = ms.build_report().built  # the first step's (the second reuses it)
                out[phase + "_ops"] = sorted({k.op for k in ms.build_report().kernels})
                losses.append(step(x).asnumpy())
                out[phase] = losses + [p.asnumpy().copy() for p in loss.trainable_params()]
            out.setdefault(phase + "_built", ms.build_report().built)
            out.setdefault(phase + "_ops", sorted({k.op for k in ms.build_report().kernels}))
        except codegen.Unsupported as e:
            found = re.search(r"operator '([^']+)'", str(e))
            out[phase] = f"unsupported op {found.group(1)}" if found else f"unsupported: {e}"
    return out


def _close(got: list, want: list, tol: float = NET_TOL) -> str | None:
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        scale = max(1.0, float(np.nanmax(np.abs(w)))) if w.size else 1.0
        if g.shape != w.shape or not np.allclose(g, w, rtol=tol, atol=tol * scale, equal_nan=True):
            diff = float(np.nanmax(np.abs(g - w))) if g.shape == w.shape and g.size else "shape"
            return f"result {i} differs from the CPU's (max abs diff {diff})"
    return None


def check_networks(summary: dict) -> None:
    """Every network's phases on the GPU against the CPU; fills ``summary["networks"]`` and its failures."""
    summary["networks"] = {}
    for name, make in _networks().items():
        t0 = time.perf_counter()
        try:
            gpu = _phases(make)
            cpu = on_cpu(lambda make=make: _phases(make))
        except Exception as e:  # noqa: BLE001 (one line per failing network; the run goes on)
            summary["failures"].append(f"network {name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            print(f"FAIL network {name}: {type(e).__name__}: {e}", flush=True)
            continue
        row = {}
        for phase in ("forward", "backward", "train"):
            if isinstance(gpu[phase], str):
                row[phase] = gpu[phase]
                # Every op of the phase's kernels on the CPU (the same passes) without a GPU emitter yet.
                row[phase + "_missing"] = [op for op in cpu.get(phase + "_ops", []) if op not in EMITTERS]
                continue
            why = _close(gpu[phase], cpu[phase], _tolerance(name))
            row[phase] = why or "ok"
            row[phase + "_built"] = gpu[phase + "_built"]
            if why:
                summary["failures"].append(f"network {name} {phase}: {why}")
                print(f"FAIL network {name} {phase}: {why}", flush=True)
        row["seconds"] = round(time.perf_counter() - t0, 2)
        summary["networks"][name] = row


def check_bad_indices(summary: dict) -> None:
    """Step 3's bad-index checks (see the module docstring); failures appended to ``summary``."""
    from opbuild.core.errors import KernelInputError

    def expect_error(label: str, fn) -> None:
        try:
            fn()
        except KernelInputError:
            return
        except Exception as e:  # noqa: BLE001 (reported, the run goes on)
            summary["failures"].append(f"bad indices, {label}: {type(e).__name__}: {e}")
            return
        summary["failures"].append(f"bad indices, {label}: no error")

    x = ms.Tensor(np.arange(4096 * 8, dtype=np.float32).reshape(4096, 8))
    bad = np.arange(2048, dtype=np.int32)
    bad[1500] = 4096  # one bad index among many threads
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expect_error("PyNative gather", lambda: ops.gather(x, ms.Tensor(bad), 0))

    class Doubled(nn.Cell):
        def construct(self, t, i):
            return ops.gather(t, i * 2, 0)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Doubled()
    expect_error("graph gather", lambda: net(x, ms.Tensor(bad)))
    good = np.arange(100, dtype=np.int32)
    if not np.array_equal(net(x, ms.Tensor(good)).asnumpy(), x.asnumpy()[good * 2]):
        summary["failures"].append("bad indices: the graph's next call is wrong")
    step_net = gpu_nets.Net(gpu_nets.weights())
    step = nn.TrainOneStepCell(step_net, nn.Momentum(step_net.trainable_params(), 0.1, 0.9))
    y, idx = gpu_nets.data()
    step(y, idx)
    before = {p.name: p.asnumpy().copy() for p in step.get_parameters()}
    wrong = idx.asnumpy().copy()
    wrong[1] = 20
    expect_error("train step", lambda: step(y, ms.Tensor(wrong)))
    changed = [p.name for p in step.get_parameters() if not np.array_equal(p.asnumpy(), before[p.name])]
    if changed:
        summary["failures"].append(f"bad indices: a refused train step changed {changed}")


def warm_networks() -> dict:
    """The second process's share: each network's phases again (nothing may be built), counts only."""
    built = 0
    for make in _networks().values():
        phases = _phases(make)
        built += sum(v for k, v in phases.items() if k.endswith("_built"))
    return {"built": built}

def timings(drv) -> list[dict]:
    f32 = "float32"
    specs = [("Add 4M", get_op("Add").spec({}, [TensorType((4096, 1024), f32)] * 2)),
             ("Mul broadcast 4M", get_op("Mul").spec({}, [TensorType((4096, 1024), f32), TensorType((1024,), f32)])),
             ("GeLU 4M", get_op("GeLU").spec({}, [TensorType((4096, 1024), f32)])),
             ("ReduceSum rows 4096x1024", get_op("ReduceSum").spec({"axis": (1,), "keep_dims": False},
                                                                    [TensorType((4096, 1024), f32)])),
             ("Softmax 4096x1024", get_op("Softmax").spec({"axis": -1}, [TensorType((4096, 1024), f32)])),
             ("MatMul 1024^3 (tiled)", get_op("MatMul").spec({}, [TensorType((1024, 1024), f32)] * 2)),
             ("BatchMatMul 48x512x64 @ 64x512 (tiled)", get_op("BatchMatMul").spec(
                 {}, [TensorType((48, 512, 64), f32), TensorType((48, 64, 512), f32)])),
             ("Conv2D 16x64x56x56, 64 3x3 (implicit GEMM)", get_op("Conv2D").spec(
                 {"out_channel": 64, "kernel_size": [3, 3], "pad_mode": "pad", "pad": 1},
                 [TensorType((16, 64, 56, 56), f32), TensorType((64, 64, 3, 3), f32)])),
             ("Adam update 4M", get_op("Adam").spec({}, [TensorType((4096, 1024), f32)] * 3
                                                    + [TensorType((), f32)] * 6 + [TensorType((4096, 1024), f32)])),
             ("SoftmaxCrossEntropyWithLogits 4096x1024", get_op("SoftmaxCrossEntropyWithLogits").spec(
                 {}, [TensorType((4096, 1024), f32)] * 2))]
    kernels, _ = session().builder.build([s for _, s in specs])
    rows = []
    for (label, spec), kernel in zip(specs, kernels, strict=True):
        arrays = Case(spec, 0).inputs()
        bufs = Buffers(drv)
        ptrs = [bufs.put(a) for a in arrays] + [bufs.empty(t) for t in spec.outputs]
        n = launch_blocks(spec) * codegen.BLOCK
        start, end = _ok(drv.cuEventCreate(0), "cuEventCreate"), _ok(drv.cuEventCreate(0), "cuEventCreate")
        kernel.fn(ptrs, n=n)
        reps = 50
        _ok(drv.cuEventRecord(start, 0), "cuEventRecord")
        for _ in range(reps):
            kernel.fn(ptrs, n=n)
        _ok(drv.cuEventRecord(end, 0), "cuEventRecord")
        _ok(drv.cuEventSynchronize(end), "cuEventSynchronize")
        gpu_ms = _ok(drv.cuEventElapsedTime(start, end), "cuEventElapsedTime") / reps
        bufs.free()
        cpu_run(spec, arrays)  # built and warm
        t0 = time.perf_counter()
        for _ in range(5):
            cpu_run(spec, arrays)
        cpu_ms = (time.perf_counter() - t0) / 5 * 1e3
        rows.append({"kernel": label, "gpu_ms": round(gpu_ms, 4), "cpu_ms": round(cpu_ms, 3),
                     "speedup": round(cpu_ms / gpu_ms, 1) if gpu_ms else None})
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cache", help="cache root (default: a fresh temporary folder)")
    p.add_argument("--out", help="also write the JSON summary here")
    p.add_argument("--warm-only", action="store_true", help=argparse.SUPPRESS)  # the second process
    p.add_argument("--host", action="store_true",
                   help="no GPU: run everything but the timings on the emulated device of the tests "
                        "(tests/targets/cuda/emulated_device.py: kernels compiled by g++ for the host)")
    p.add_argument("--no-networks", action="store_true", help="skip the network checks (3)")
    args = p.parse_args()
    root = args.cache or tempfile.mkdtemp(prefix="gpu-check-")
    os.environ["OPBUILD_CACHE_PATH"] = root
    os.environ.setdefault("OPBUILD_PROGRESS", "0")
    if args.host:  # the host builds of the cubins live beside the cache they stand for
        install_emulation(Path(root) / "emulated-gpu")
    suite = cases()
    if args.warm_only:
        _, report, seconds = build_suite(suite)
        nets = {"built": 0} if args.no_networks else warm_networks()
        print(json.dumps({"built": report.built, "reused": report.reused, "seconds": round(seconds, 3),
                          "networks_built": nets["built"]}))
        return 0
    dev = device.probe()
    summary: dict = {"device": dev.arch, "sms": dev.sms, "reason": dev.reason or None, "cache": root,
                     "kernels": len(suite), "failures": []}
    if not dev.ok:
        print(f"no usable GPU: {dev.reason}", file=sys.stderr)
        return 1
    kernels, report, seconds = build_suite(suite)
    summary["cold"] = {"built": report.built, "reused": report.reused, "seconds": round(seconds, 3)}
    drv = dev.driver
    if args.host:
        summary["device"] = "emulated (host memory; kernels compiled by g++, one thread, one block)"
    for case, kernel in zip(suite, kernels, strict=True):
        try:
            arrays = case.inputs()
            want = cpu_run(case.spec, [np.array(a) for a in arrays])  # an in-place CPU run updates its input
            why = compare(case, gpu_run(kernel, case.spec, arrays, drv), want)
            if not why and get_op(case.spec.op).inplace:  # and in place, as the executor runs it
                why = compare(case, gpu_run(kernel, case.spec, arrays, drv, aliased=True), want)
                why = why and f"in place: {why}"
        except Exception as e:  # noqa: BLE001 (one line per failing kernel; the run goes on)
            why = f"{type(e).__name__}: {e}"
        if why:
            summary["failures"].append(f"{case.label}: {why}")
            print(f"FAIL {case.label}: {why}", flush=True)
    if not args.no_networks:
        check_networks(summary)
    check_bad_indices(summary)
    cmd = [sys.executable, __file__, "--cache", root, "--warm-only"] + ["--host"] * args.host
    warm = subprocess.run(cmd + ["--no-networks"] * args.no_networks, capture_output=True, text=True, timeout=240)
    try:
        summary["warm_second_process"] = json.loads(warm.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary["warm_second_process"] = {"error": (warm.stderr or warm.stdout)[-2000:]}
    if summary["warm_second_process"].get("built") != 0 or summary["warm_second_process"].get("networks_built"):
        summary["failures"].append(f"warm second process built kernels: {summary['warm_second_process']}")
    try:
        summary["timings"] = timings(drv) if not args.host else "none (emulated device)"
    except Exception as e:  # noqa: BLE001
        summary["failures"].append(f"timings: {type(e).__name__}: {e}")
    summary["passed"] = len(suite) - sum(1 for f in summary["failures"]
                                         if not f.startswith(("warm", "timings", "network")))
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
