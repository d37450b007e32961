#!/usr/bin/env python3
"""The one check to run on a machine with an NVIDIA GPU (under 5 minutes): the GPU target's kernels against
the CPU target's results, a warm second process that builds nothing, and timings.

    python scripts/gpu_check.py [--cache DIR] [--out FILE.json]
    OPBUILD_CUDA_ARCH=sm_90 python scripts/gpu_check.py --host    # no GPU: the same checks on the host

1. Cold build: every kernel of the GPU op suite (tests/targets/cuda/suite.py) through the Builder with
   ``set_device("GPU")`` into a fresh kernel_meta (``--cache``, default a temporary folder): built, seconds.
2. Correctness: each kernel launched on device buffers (driver API) on the suite's inputs, compared with the
   CPU target's kernel on the same inputs: exact for integers and booleans, rtol 1e-5 / atol 1e-6 for
   float32, 1e-12 for float64 (NaN where the CPU has NaN); kernels that accumulate (reductions, softmax,
   MatMul) by the CPU tests' rule for sums, rtol 1e-4 / atol 1e-4 * sqrt(terms) (float64: 1e-10).
3. Warm start: this script again in a new process over the same cache, which must build 0 kernels.
4. Timings: large elementwise, broadcast, reduction, softmax and MatMul kernels, GPU (CUDA events) against
   the CPU kernel of the same spec.
Prints one line per failure and a JSON summary (also written to ``--out``); exit code 1 on any failure.
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

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]  # the suite is a test helper: tests/targets/cuda/suite.py

import numpy as np  # noqa: E402
from tests.targets.cuda.host_emulation import HostKernels  # noqa: E402
from tests.targets.cuda.suite import Case, cases  # noqa: E402

import opbuild as ms  # noqa: E402
from opbuild.core.ir import TensorType  # noqa: E402
from opbuild.ops.registry import get as get_op  # noqa: E402
from opbuild.runtime.session import session  # noqa: E402
from opbuild.targets.cuda import device  # noqa: E402

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}
# Kernels that accumulate (their order of additions differs from the CPU's): the CPU tests' rule for sums,
# rtol 1e-4 and atol 1e-4 * sqrt(terms) for float32, 1e-10 for float64.
ACCUMULATING = ("Reduce", "MatMul", "BatchMatMul", "Softmax", "LogSoftmax", "FusedRowReduce")
ACC_TOL = {"float32": 1e-4, "float64": 1e-10}


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


def gpu_run(kernel, spec, arrays, drv) -> list[np.ndarray]:
    bufs = Buffers(drv)
    try:
        ins = [bufs.put(a) for a in arrays]
        outs = [bufs.empty(t) for t in spec.outputs]
        kernel.fn([*ins, *outs], n=max(t.size for t in spec.outputs))
        _ok(drv.cuCtxSynchronize(), "cuCtxSynchronize")
        return [bufs.get(p, t) for p, t in zip(outs, spec.outputs, strict=True)]
    finally:
        bufs.free()


def cpu_run(spec, arrays) -> list[np.ndarray]:
    ms.set_device("CPU")
    try:
        return session().run_eager(spec, arrays)
    finally:
        ms.set_device("GPU")


def tolerance(case: Case, dtype: str) -> tuple[float, float]:
    """(rtol, atol) of ``case``'s float output: elementwise, or the rule for sums (``ACCUMULATING``)."""
    spec = case.spec
    if hasattr(case, "tolerance"):  # a case stating its own rule (tests/targets/cuda/suite_gpunn.py)
        return case.tolerance(dtype)
    if spec.op.startswith(ACCUMULATING) and dtype in ACC_TOL:
        terms = max(t.size for t in spec.inputs) / max(spec.outputs[0].size, 1)
        if spec.op in ("MatMul", "BatchMatMul"):
            terms = spec.inputs[0].shape[-1] if spec.inputs[0].rank else 1
        return ACC_TOL[dtype], ACC_TOL[dtype] * max(terms, 1) ** 0.5
    return TOL.get(dtype, (1e-5, 1e-6))


def compare(case: Case, got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    for g, w in zip(got, want, strict=True):
        if g.dtype.kind in "f":
            rtol, atol = tolerance(case, g.dtype.name)
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


def timings(drv) -> list[dict]:
    f32 = "float32"
    specs = [("Add 4M", get_op("Add").spec({}, [TensorType((4096, 1024), f32)] * 2)),
             ("Mul broadcast 4M", get_op("Mul").spec({}, [TensorType((4096, 1024), f32), TensorType((1024,), f32)])),
             ("GeLU 4M", get_op("GeLU").spec({}, [TensorType((4096, 1024), f32)])),
             ("ReduceSum rows 4096x1024", get_op("ReduceSum").spec({"axis": (1,), "keep_dims": False},
                                                                    [TensorType((4096, 1024), f32)])),
             ("Softmax 4096x1024", get_op("Softmax").spec({"axis": -1}, [TensorType((4096, 1024), f32)])),
             ("MatMul 1024^3 (generated)", get_op("MatMul").spec({}, [TensorType((1024, 1024), f32)] * 2))]
    kernels, _ = session().builder.build([s for _, s in specs])
    rows = []
    for (label, spec), kernel in zip(specs, kernels, strict=True):
        arrays = Case(spec, 0).inputs()
        bufs = Buffers(drv)
        ptrs = [bufs.put(a) for a in arrays] + [bufs.empty(t) for t in spec.outputs]
        n = max(t.size for t in spec.outputs)
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
                   help="no GPU: run the kernels on the host instead (tests/targets/cuda/host_emulation.py) to "
                        "check this script and the kernels' arithmetic; no timings (needs OPBUILD_CUDA_ARCH)")
    args = p.parse_args()
    root = args.cache or tempfile.mkdtemp(prefix="gpu-check-")
    os.environ["OPBUILD_CACHE_PATH"] = root
    os.environ.setdefault("OPBUILD_PROGRESS", "0")
    suite = cases()
    if args.warm_only:
        _, report, seconds = build_suite(suite)
        print(json.dumps({"built": report.built, "reused": report.reused, "seconds": round(seconds, 3)}))
        return 0
    dev = device.probe()
    summary: dict = {"device": dev.arch, "sms": dev.sms, "reason": dev.reason or None, "cache": root,
                     "kernels": len(suite), "failures": []}
    if not dev.ok and not args.host:
        print(f"no usable GPU: {dev.reason}", file=sys.stderr)
        return 1
    kernels, report, seconds = build_suite(suite)
    summary["cold"] = {"built": report.built, "reused": report.reused, "seconds": round(seconds, 3)}
    drv = dev.driver
    if args.host:
        summary["device"] = "host emulation (one thread, one block)"
        host = HostKernels([c.spec for c in suite], Path(tempfile.mkdtemp(prefix="gpu-check-host-")))
    for i, (case, kernel) in enumerate(zip(suite, kernels, strict=True)):
        try:
            arrays = case.inputs()
            got = host.run(i, case.spec, arrays) if args.host else gpu_run(kernel, case.spec, arrays, drv)
            why = compare(case, got, cpu_run(case.spec, arrays))
        except Exception as e:  # noqa: BLE001 (one line per failing kernel; the run goes on)
            why = f"{type(e).__name__}: {e}"
        if why:
            summary["failures"].append(f"{case.label}: {why}")
            print(f"FAIL {case.label}: {why}", flush=True)
    warm = subprocess.run([sys.executable, __file__, "--cache", root, "--warm-only"], capture_output=True,
                          text=True, timeout=240)
    try:
        summary["warm_second_process"] = json.loads(warm.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary["warm_second_process"] = {"error": (warm.stderr or warm.stdout)[-2000:]}
    if summary["warm_second_process"].get("built") != 0:
        summary["failures"].append(f"warm second process built kernels: {summary['warm_second_process']}")
    try:
        summary["timings"] = timings(drv) if not args.host else "none (host emulation)"
    except Exception as e:  # noqa: BLE001
        summary["failures"].append(f"timings: {type(e).__name__}: {e}")
    summary["passed"] = len(suite) - sum(1 for f in summary["failures"] if not f.startswith(("warm", "timings")))
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
