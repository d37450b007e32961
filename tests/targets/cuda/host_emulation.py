"""Run the GPU target's generated kernels on the host: the CUDA C compiled by g++ as C++ with a one-thread,
one-block launch (blockIdx = threadIdx = 0, blockDim = gridDim = 1, OB_BLOCK = 1), which every body computes
correctly by construction (grid- and block-stride loops; the shared-memory tree of one thread is a no-op).

A test helper: it checks what the emitters compute (index arithmetic, expressions, reductions, fused plans)
without a GPU. What it cannot check is the device itself: CUDA's math library, many threads' reductions and
the driver's launch, which scripts/gpu_check.py checks on a GPU."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from opbuild.core.ir import KernelSpec
from opbuild.targets.cuda import CudaTarget, codegen, has_status

HARNESS = r"""
#include <cmath>
#include <cstdint>
#include <climits>
#include <cstring>
using namespace std;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(x)
#define __shared__ static
struct ob_dim3 { unsigned x, y, z; };
static const ob_dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static inline void __syncthreads() {}
static inline unsigned long long atomicCAS(unsigned long long *a, unsigned long long expected,
                                           unsigned long long desired) {
  __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return expected;
}
"""


def gxx() -> str | None:
    """The host C++ compiler, or None."""
    return shutil.which("g++") or shutil.which("c++")


def host_source(kernels: Sequence[tuple[str, KernelSpec, str]]) -> str:
    """The translation unit of ``kernels`` for the host: the harness, the GPU prelude without its own integer
    types and limits (``<cstdint>`` has them), ``OB_BLOCK`` 1, the kernels."""
    prelude = "\n".join(line for line in codegen.PRELUDE.splitlines()
                        if not line.startswith(("typedef", "#define INT", "#define UINT", "#define OB_BLOCK")))
    functions = [codegen.kernel_function(s, spec.inputs, spec.outputs, body, status=has_status(spec.op))
                 for s, spec, body in kernels]
    return HARNESS + "#define OB_BLOCK 1\n" + prelude + "\n" + "\n".join(functions)


class HostKernels:
    """The kernels of ``specs`` compiled for the host in one shared object; :meth:`run` calls one."""

    def __init__(self, specs: Sequence[KernelSpec], workdir: Path):
        target = CudaTarget()
        self.symbols = [f"ob_k{i}" for i in range(len(specs))]
        source = host_source([(s, spec, target.emit(spec)) for s, spec in zip(self.symbols, specs, strict=True)])
        src, lib = workdir / "host_kernels.cpp", workdir / "host_kernels.so"
        src.write_text(source)
        compiler = gxx()
        assert compiler is not None
        out = subprocess.run([compiler, "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-o", str(lib),
                              str(src)], capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise RuntimeError(f"g++ failed on the GPU kernels:\n{out.stderr[-4000:]}")
        self.lib = ctypes.CDLL(str(lib))

    def run(self, index: int, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Kernel ``index`` (of the specs given) on ``arrays``: its outputs."""
        ins = [np.ascontiguousarray(a) for a in arrays]
        outs = [np.zeros(t.shape, dtype=t.dtype) for t in spec.outputs]
        fn = getattr(self.lib, self.symbols[index])
        fn.restype = None
        status = [np.zeros(3, np.int64)] if has_status(spec.op) else []  # the kernel's report, unread here
        fn(*[ctypes.c_void_p(a.ctypes.data) for a in (*ins, *outs, *status)])
        self.last_status = status[0] if status else None
        return outs


__all__ = ["HostKernels", "gxx", "host_source"]
