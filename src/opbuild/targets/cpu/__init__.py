"""The CPU target: C generated per op by the emitters of ``kernels/`` (with the helpers of ``codegen.py``; the
generating half is ``generation.py``, imported on first use), compiled by gcc/clang/cc (``compilers/``) into
shared objects, checked structurally (``cache/elf.py``'s ELF check), dlopen-ed (``loader.py``), host buffers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType

from ...cache import elf
from ...core.errors import CompilerNotFoundError
from ...core.ir import KernelSpec
from ..base import Target
from . import loader
from .abi import ABI_VERSION
from .compilers import Compiler, CompileResult, find_compiler
from .compilers import blas as blas_provider

# ISA feature flags of /proc/cpuinfo that -march=native may use: the generated code depends on them.
ISA_PREFIXES = ("sse", "ssse", "avx", "fma", "bmi", "f16c", "popcnt", "aes", "sha", "vnni", "amx", "lzcnt",
                "movbe", "adx", "vpclmul", "gfni", "vaes", "neon", "asimd", "sve", "fp16", "dotprod")


def host_identity() -> dict:
    """The CPU kernels are built for (-march=native): architecture and ISA feature flags."""
    features: list[str] = []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("flags", "Features"):
                    features = sorted({w for w in line.split(":", 1)[1].split() if w.startswith(ISA_PREFIXES)})
                    break
    except OSError:
        features = []
    return {"arch": os.uname().machine, "isa": features}


def _generation() -> ModuleType:
    """``generation.py`` (the emitters and the C they generate), imported on first use: a warm start that a graph
    manifest serves never generates or hashes a kernel (the module's docstring)."""
    from . import generation

    return generation


class CpuTarget(Target):
    """Kernels as C functions ``void k(void *const *args)`` in shared objects, run on the host."""

    name = "CPU"
    binary_suffix = ".so"
    abi_version = ABI_VERSION

    def __init__(self) -> None:
        self._identity: dict | None = None  # the CPU cannot change under a running process

    def identity(self) -> dict:
        """Architecture and ISA features (read once per process)."""
        if self._identity is None:
            self._identity = host_identity()
        return self._identity

    def find_compiler(self) -> Compiler:
        """CC, else cc, gcc, clang on PATH (``compilers/gcc.py``)."""
        return find_compiler()

    def emit(self, spec: KernelSpec) -> str:
        """The C body of ``spec`` from its op's emitter (``generation.py``)."""
        return _generation().emit(spec)

    def runtime_batch_tag(self) -> str:
        """The generator tag of run-time-batch descriptors (passes/row_plan.py; ``runtime_batch.py``)."""
        return _generation().runtime_batch_tag()

    def needs_blas(self, op: str) -> bool:
        """Whether ``op``'s emitter is registered as calling the BLAS."""
        return _generation().needs_blas(op)

    def opt_class(self, spec: KernelSpec) -> str:
        """``glue``, ``copy`` or ``compute`` (``kernels.opt_class``)."""
        return _generation().opt_class(spec)

    def codegen_hash(self, op: str, file_digest: Callable[[str], str] | None = None) -> str:
        """The digest of every file ``op``'s emitter reaches (``kernels.codegen_hash``)."""
        return _generation().codegen_hash(op, file_digest)

    def codegen_files(self, ops: Iterable[str] | None = None) -> list[str]:
        """The files the emitters of ``ops`` reach (``kernels.codegen_files``)."""
        return _generation().codegen_files(ops)

    def translation_unit(self, kernels_: Sequence[tuple[str, KernelSpec, str]], needs_blas: bool) -> str:
        """The C file of one batch: the prelude, the BLAS declarations if needed, one function per kernel."""
        return _generation().translation_unit(kernels_, needs_blas)

    def compile(self, compiler: Compiler, source: str, out_path: Path, workdir: Path, needs_blas: bool,
                label: str) -> CompileResult:
        """One compiler call (bounded by OPBUILD_COMPILE_TIMEOUT inside ``compilers/gcc.py``)."""
        return compiler.compile(source, out_path, workdir, needs_blas, label=label)

    def validate(self, binary: bytes, symbols: Sequence[str]) -> None:
        """The ELF check: a shared object of this machine exporting every symbol (ValueError otherwise)."""
        elf.check(binary, list(symbols))

    def load(self, path: Path | str, name: str, symbol: str, libs: dict | None = None,
             ident: tuple | None = None) -> loader.LoadedKernel:
        """dlopen (one handle per binary inode through ``libs``) and dlsym."""
        return loader.load_kernel(path, name, symbol, libs, ident)

    def known_linked_libraries(self) -> frozenset[str]:
        """The OpenBLAS libraries of every BLAS provider found here (compilers/blas.py)."""
        return frozenset(blas_provider.known_libraries())

    def linked_library(self, identity: dict | None) -> str | None:
        """The OpenBLAS shared object GEMM and conv kernels link, None for NumPy's (loaded already): from the
        toolchain identity's ``blas``, or (``identity`` None) as ``compilers/blas.py`` finds it."""
        if identity is not None:
            found = identity.get("blas")
        else:
            try:
                found = blas_provider.find_blas()
            except (CompilerNotFoundError, OSError):
                return None
        if not found or blas_provider.loaded_by_numpy(found):
            return None
        return blas_provider.library_path(found)

    def preload(self, path: str) -> bool:
        """Load the BLAS lazily bound ahead of the kernels that link it (``loader.preload``)."""
        return loader.preload(path)


__all__ = ["CpuTarget", "ISA_PREFIXES", "host_identity"]
