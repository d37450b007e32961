"""The GPU target: CUDA C generated per op by the emitters of ``kernels/`` (helpers and ABI in ``codegen.py``),
compiled in process by NVRTC (``nvrtc.py``) into cubins for the device's compute capability (or
``OPBUILD_CUDA_ARCH`` where there is no GPU), checked structurally (``cache/cubin.py``: EM_CUDA, the kernel
symbols), loaded and launched through the driver API (``device.py``) on device memory and one stream
(``memory.py``: the target's :meth:`CudaTarget.device`, which the runtime's device executor uses).

Nothing of ``cuda-bindings`` is imported until a GPU build or run asks for it: the CPU path never imports this
package (``core/config.py`` names it by path). Building works without a GPU; running a kernel, or allocating
its buffers, without one raises :class:`~.errors.CudaUnavailableError` naming what is missing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from ...cache import cubin
from ...core.ir import KernelSpec
from ...ops.registry import REGISTRY
from ..base import Target
from . import codegen, device, kernels
from .errors import CudaUnavailableError, NvrtcNotFoundError
from .memory import CudaMemory
from .nvrtc import CompileResult, Nvrtc

_MEMORY_LOCK = threading.Lock()


class CudaTarget(Target):
    """Kernels as ``extern "C" __global__`` functions in cubins, run on an NVIDIA GPU."""

    name = "GPU"
    binary_suffix = cubin.CUBIN_SUFFIX
    abi_version = codegen.ABI_VERSION

    def __init__(self) -> None:
        self._compilers: dict[str, Nvrtc] = {}
        self._memory: CudaMemory | None = None

    def identity(self) -> dict:
        """The compute capability kernels are built for (the device's, else ``OPBUILD_CUDA_ARCH``)."""
        arch, _source = device.arch()
        return {"arch": arch, "kind": "cuda"}

    def find_compiler(self) -> Nvrtc:
        """NVRTC for the current architecture; NvrtcNotFoundError when it is not installed (a build then serves
        what the cache holds), CudaUnavailableError when there is neither a GPU nor ``OPBUILD_CUDA_ARCH``."""
        arch, _ = device.arch()
        found = self._compilers.get(arch)
        if found is None:
            found = self._compilers.setdefault(arch, Nvrtc(arch))
        return found

    def emit(self, spec: KernelSpec) -> str:
        """The CUDA C body of ``spec`` (``kernels/``); codegen.Unsupported naming the op or dtype otherwise."""
        return kernels.emit(spec)

    def needs_blas(self, op: str) -> bool:
        """GPU kernels call no BLAS."""
        return False

    def opt_class(self, spec: KernelSpec) -> str:
        """One class: NVRTC compiles every kernel with the same flags."""
        return "compute"

    def codegen_hash(self, op: str, file_digest: Callable[[str], str] | None = None) -> str:
        """The digest of the files shaping ``op``'s CUDA C (``kernels.codegen_hash``); an op without a GPU
        emitter gets a digest of its name only (its build then fails naming it)."""
        try:
            return kernels.codegen_hash(op, file_digest)
        except codegen.Unsupported:
            from ...cache import identity as cache_identity

            return cache_identity.codegen_hash(op, ())

    def codegen_files(self, ops: Iterable[str] | None = None) -> list[str]:
        """The files the GPU emitters of ``ops`` reach."""
        return kernels.codegen_files(ops)

    def translation_unit(self, kernels_: Sequence[tuple[str, KernelSpec, str]], needs_blas: bool) -> str:
        """One NVRTC program: the prelude and one ``__global__`` function per kernel (the pointers of an in-place
        op's aliased pairs without ``__restrict__``, the status words of an op that declares a status:
        ``codegen.params``)."""
        return codegen.translation_unit([codegen.kernel_function(symbol, spec.inputs, spec.outputs, body,
                                                                 inplace_pairs(spec.op), has_status(spec.op))
                                         for symbol, spec, body in kernels_])

    def compile(self, compiler: Nvrtc, source: str, out_path: Path, workdir: Path, needs_blas: bool,
                label: str) -> CompileResult:
        """One NVRTC call (bounded by OPBUILD_COMPILE_TIMEOUT, ``nvrtc.py``)."""
        return compiler.compile(source, out_path, workdir, label)

    def validate(self, binary: bytes, symbols: Sequence[str]) -> None:
        """The cubin check: an EM_CUDA ELF defining every kernel symbol (ValueError otherwise)."""
        cubin.check(binary, list(symbols))

    def load(self, path: Path | str, name: str, symbol: str, libs: dict | None = None,
             ident: tuple | None = None) -> device.LoadedCudaKernel:
        """The kernel, its module loaded on first use (a build without a GPU still completes); with a GPU it is
        loaded now, so a cubin the driver rejects is an OSError here (a corrupt entry, rebuilt)."""
        kernel = device.LoadedCudaKernel(str(path), name, symbol)
        if device.probe().ok:
            kernel.load()
        return kernel

    def allocate(self, shape: Sequence[int], dtype: str) -> np.ndarray:
        """GPU kernels read and write device memory (:meth:`device`), never a host buffer: without a GPU this
        is the one-line CudaUnavailableError of a run; with one, a ValueError naming the seam to use."""
        device.require("run GPU kernels")
        raise ValueError("CudaTarget.allocate: GPU kernels take device memory; use CudaTarget.device() "
                         "(runtime/device_graph.py runs graphs on it)")

    def device(self) -> CudaMemory:
        """The GPU's memory and the one stream of this process (made on first use); CudaUnavailableError, one
        line naming what is missing, when there is no usable GPU."""
        if self._memory is None:
            dev = device.require("run GPU kernels")
            with _MEMORY_LOCK:  # one stream per process, even when two threads ask first
                if self._memory is None:
                    self._memory = CudaMemory(dev)
        return self._memory


def inplace_pairs(op: str) -> tuple[tuple[int, int], ...]:
    """The ``(output, input)`` pairs of ``op`` that share a buffer when it runs (``OpDef.inplace``)."""
    opdef = REGISTRY.get(op)
    return opdef.inplace if opdef is not None else ()


def has_status(op: str) -> bool:
    """Whether ``op``'s kernels take status words (``OpDef.status``: kernel ABI 2 of codegen.py)."""
    opdef = REGISTRY.get(op)
    return opdef is not None and opdef.status is not None


def supported_ops() -> tuple[str, ...]:
    """The ops the GPU target has emitters for."""
    return tuple(sorted(kernels.EMITTERS))


__all__ = ["CudaTarget", "CudaUnavailableError", "NvrtcNotFoundError", "inplace_pairs", "supported_ops"]
