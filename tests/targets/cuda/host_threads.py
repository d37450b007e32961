"""Run the GPU target's generated kernels on the host with several threads per block and several blocks: each
block's threads are host threads sharing the block's ``__shared__`` arrays (function statics), ``__syncthreads``
a barrier among them, the blocks run one after another. A test helper, beside host_emulation.py (one thread,
one block): it checks what one thread cannot, that a kernel's threads split the work without a race the
barriers do not order and that every thread reaches every barrier (a barrier some threads skip times out and
the launch reports it instead of hanging).

The threads' interleaving is the host scheduler's, not a GPU's warps: a race the barriers leave open shows up
only when the schedule exposes it, so this can find races but cannot prove their absence."""

from __future__ import annotations

import ctypes
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from opbuild.core.ir import KernelSpec
from opbuild.targets.cuda import CudaTarget, codegen, has_status

from .host_emulation import gxx

HARNESS = r"""
#include <cmath>
#include <cstdint>
#include <climits>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>
using namespace std;
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(x)
#define __shared__ static
struct ob_dim3 { unsigned x, y, z; };
static thread_local ob_dim3 threadIdx = {0, 0, 0};
static ob_dim3 blockIdx = {0, 0, 0};
static const ob_dim3 blockDim = {OB_THREADS, 1, 1}, gridDim = {OB_BLOCKS, 1, 1};
/* A reusable barrier of the block's threads; a wait past the timeout marks the launch failed and lets the
   thread go on (its results are then meaningless, and the launch returns 1). */
static std::mutex ob_mu;
static std::condition_variable ob_cv;
static unsigned ob_waiting = 0, ob_generation = 0;
static bool ob_failed = false;
static void __syncthreads() {
  std::unique_lock<std::mutex> lock(ob_mu);
  const unsigned gen = ob_generation;
  if (++ob_waiting == OB_THREADS) { ob_waiting = 0; ob_generation++; ob_cv.notify_all(); return; }
  if (!ob_cv.wait_for(lock, std::chrono::seconds(20), [&] { return ob_generation != gen; })) {
    ob_failed = true; ob_waiting = 0; ob_generation++; ob_cv.notify_all();
  }
}
static inline unsigned long long atomicCAS(unsigned long long *a, unsigned long long expected,
                                           unsigned long long desired) {
  __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return expected;
}
"""


def _launcher(symbol: str, spec: KernelSpec) -> str:
    """``extern "C" int <symbol>_launch(...)``: the blocks in turn, each with its threads; 1 if a barrier timed
    out."""
    status = has_status(spec.op)
    params = codegen.params(spec.inputs, spec.outputs, status=status)
    args = ", ".join([f"in{i}" for i in range(len(spec.inputs))] + [f"out{i}" for i in range(len(spec.outputs))]
                     + (["ob_status"] if status else []))
    return (f'extern "C" int {symbol}_launch({params}) {{\n'
            "  ob_failed = false;\n"
            "  for (unsigned b = 0; b < OB_BLOCKS; b++) {\n"
            "    blockIdx.x = b; std::vector<std::thread> ts;\n"
            "    for (unsigned t = 0; t < OB_THREADS; t++)\n"
            f"      ts.emplace_back([=] {{ threadIdx.x = t; {symbol}({args}); }});\n"
            "    for (auto &th : ts) th.join();\n"
            "  }\n"
            "  return ob_failed ? 1 : 0;\n}\n")


class ThreadedHostKernels:
    """The kernels of ``specs`` compiled for the host, launched with ``blocks`` blocks of ``threads`` threads;
    ``flags``: more compiler flags (``-fsanitize=thread``: the process must then load ThreadSanitizer's
    runtime first, _tsan_worker.py)."""

    def __init__(self, specs: Sequence[KernelSpec], workdir: Path, threads: int = 4, blocks: int = 3,
                 flags: Sequence[str] = ()):
        target = CudaTarget()
        self.symbols = [f"ob_k{i}" for i in range(len(specs))]
        prelude = "\n".join(line for line in codegen.PRELUDE.splitlines()
                            if not line.startswith(("typedef", "#define INT", "#define UINT", "#define OB_BLOCK")))
        parts = [f"#define OB_THREADS {threads}u\n#define OB_BLOCKS {blocks}u\n#define OB_BLOCK {threads}\n",
                 HARNESS, prelude]
        for symbol, spec in zip(self.symbols, specs, strict=True):
            parts.append(codegen.kernel_function(symbol, spec.inputs, spec.outputs, target.emit(spec),
                                                 status=has_status(spec.op)))
            parts.append(_launcher(symbol, spec))
        src, lib = workdir / "host_threads.cpp", workdir / "host_threads.so"
        src.write_text("\n".join(parts))
        compiler = gxx()
        assert compiler is not None
        out = subprocess.run([compiler, "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-pthread", *flags,
                              "-o", str(lib), str(src)], capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise RuntimeError(f"g++ failed on the GPU kernels:\n{out.stderr[-4000:]}")
        self.lib = ctypes.CDLL(str(lib))

    def run(self, index: int, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Kernel ``index`` on ``arrays``: its outputs (filled with a marker first, so an element no thread
        writes shows); RuntimeError if a barrier timed out."""
        ins = [np.ascontiguousarray(a) for a in arrays]
        outs = [np.full(t.shape, 77, dtype=t.dtype) for t in spec.outputs]
        fn = getattr(self.lib, self.symbols[index] + "_launch")
        fn.restype = ctypes.c_int
        status = [np.zeros(3, np.int64)] if has_status(spec.op) else []  # the kernel's report, unread here
        if fn(*[ctypes.c_void_p(a.ctypes.data) for a in (*ins, *outs, *status)]) != 0:
            raise RuntimeError(f"{spec.op}: a __syncthreads barrier was not reached by every thread of a block")
        return outs


__all__ = ["ThreadedHostKernels"]
