"""The target interface: everything the build and the executor need to know about where kernels run.

A target emits each kernel's body from its own registry of emitters (operators describe, targets emit: the
CPU's are in ``targets/cpu/kernels/``), hashes the code that generates them into every kernel's key, turns the
bodies into one translation unit, compiles it (bounded by ``OPBUILD_COMPILE_TIMEOUT``),
validates the binary before the cache commits it, loads kernels from it, and allocates the buffers kernels
read and write: host memory for the CPU (``allocate``), device memory through :meth:`Target.device` for an
accelerator (a :class:`DeviceMemory`: the runtime's executors move data across with it, ``runtime/``).
Its ``identity()`` is part of every kernel's descriptor (the cache key), its ``name`` selects it
(``set_context(device_target=...)``). The cache never imports a target: it is handed the binary suffix and the
validator.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..cache.statmemo import StatMemo
    from ..core.ir import KernelSpec


class Kernel(Protocol):
    """A loaded kernel: ``fn(pointer_array)`` runs it; ``name`` is its cache entry name."""

    name: str
    fn: Any


class DeviceMemory(Protocol):
    """An accelerator's memory and its one queue of work (a CUDA stream), what the runtime's device executor
    (``runtime/device_graph.py``) and PyNative runs need. Addresses are plain ints (device pointers).

    Order: uploads, downloads, memsets and launches run in the order they are issued (one queue); each may
    return before it is done. A host array given to :meth:`upload` must stay alive and unchanged, and one given
    to :meth:`download` must not be read, until :meth:`synchronize` returns."""

    def alloc(self, nbytes: int) -> int:
        """``nbytes`` (at least 1) of device memory, aligned for any dtype: its address."""
        ...

    def free(self, address: int) -> None:
        """Release what :meth:`alloc` returned (after the queued work that uses it: frees synchronize)."""
        ...

    def upload(self, address: int, array: np.ndarray) -> None:
        """Queue the copy of ``array`` (C-contiguous) to ``address``."""
        ...

    def download(self, array: np.ndarray, address: int) -> None:
        """Queue the copy of ``array.nbytes`` bytes at ``address`` into ``array`` (C-contiguous, writeable)."""
        ...

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        """Queue the copy of ``nbytes`` bytes at device address ``src`` to device address ``dst`` (one device:
        the bytes never cross the bus)."""
        ...

    def memset(self, address: int, nbytes: int, value: int = 0) -> None:
        """Queue setting ``nbytes`` bytes at ``address`` to ``value``."""
        ...

    def launch_size(self, spec: KernelSpec) -> int:
        """The ``n`` to launch ``spec``'s kernel with: the threads it wants (one per element of its largest
        output for most kernels, a block per row for row kernels, a block per tile for tiled ones)."""
        ...

    def launch(self, kernel: Kernel, pointers: Sequence[int], n: int) -> None:
        """Queue ``kernel`` on ``pointers`` (device addresses, its ABI's order); ``n`` (the threads it wants:
        :meth:`launch_size`) sizes the grid, which never changes what a kernel computes."""
        ...

    def launcher(self, kernel: Kernel, pointers: Sequence[int], n: int) -> Callable[[], None]:
        """A call that queues :meth:`launch` ``(kernel, pointers, n)``, its arguments prepared once (for
        pointer lists that never change: a compiled graph's)."""
        ...

    def synchronize(self) -> None:
        """Wait until everything queued is done (downloaded arrays may then be read)."""
        ...


class Toolchain(Protocol):
    """A compiler of one target (the CPU's: ``targets/cpu/compilers/base.py``: ``Compiler``)."""

    def identity(self, memo: StatMemo | None = None) -> dict: ...

    def blas_library(self) -> str | None: ...

    def toolchain_files(self) -> list[str]: ...


class Target(abc.ABC):
    """Where kernels run. Subclasses are stateless apart from memoised identities (one instance per process)."""

    #: The name ``set_context(device_target=...)`` selects this target by (upper case).
    name: ClassVar[str]
    #: Suffix of the binary file of every cache entry built for this target.
    binary_suffix: ClassVar[str]
    #: Version of the calling convention between the executor and the generated kernels (part of the key).
    abi_version: ClassVar[int]

    @abc.abstractmethod
    def identity(self) -> dict:
        """What the generated code depends on about the machine (architecture, ISA features); JSON-able."""

    @abc.abstractmethod
    def find_compiler(self) -> Toolchain:
        """The compiler the current settings name; CompilerNotFoundError when there is none."""

    @abc.abstractmethod
    def emit(self, spec: KernelSpec) -> str:
        """The body of the kernel ``spec`` in this target's source language (its op's registered emitter);
        KeyError naming the op when this target has no emitter for it."""

    @abc.abstractmethod
    def needs_blas(self, op: str) -> bool:
        """Whether kernels of ``op`` call the BLAS (their translation unit links it)."""

    @abc.abstractmethod
    def opt_class(self, spec: KernelSpec) -> str:
        """The optimisation class of the kernel ``spec`` (part of its descriptor)."""

    @abc.abstractmethod
    def codegen_hash(self, op: str, file_digest: Callable[[str], str] | None = None) -> str:
        """sha256 of the code that generates ``op``'s kernels on this target (part of every descriptor);
        ``file_digest`` (hex sha256 of a source file) may serve memoised digests."""

    @abc.abstractmethod
    def codegen_files(self, ops: Iterable[str] | None = None) -> list[str]:
        """The source files whose code shapes the kernels of ``ops`` (default: every op), sorted: what a graph
        manifest records and checks."""

    @abc.abstractmethod
    def translation_unit(self, kernels: Sequence[tuple[str, KernelSpec, str]], needs_blas: bool) -> str:
        """The source of one compiler call: each ``(symbol, spec, body)`` wrapped as an exported kernel."""

    @abc.abstractmethod
    def compile(self, compiler: Toolchain, source: str, out_path: Path, workdir: Path, needs_blas: bool,
                label: str) -> Any:
        """Compile ``source`` into ``out_path`` (a ``CompileResult``: binary, cmd, seconds); CompileError or
        CompileTimeoutError (``OPBUILD_COMPILE_TIMEOUT``) on failure, never a partial binary."""

    @abc.abstractmethod
    def validate(self, binary: bytes, symbols: Sequence[str]) -> None:
        """Raise ValueError when ``binary`` is not a loadable object exporting every symbol of ``symbols``."""

    @abc.abstractmethod
    def load(self, path: Path | str, name: str, symbol: str, libs: dict | None = None,
             ident: tuple | None = None) -> Kernel:
        """Load kernel ``symbol`` from the verified binary at ``path``; OSError when it cannot be loaded.
        ``libs`` maps a binary's identity ``ident`` (device, inode, size, mtime) to its open library."""

    def linked_library(self, identity: dict | None) -> str | None:
        """The library the ``needs_blas`` kernels of toolchain ``identity`` link and a build preloads (None:
        none to preload); ``identity`` None: as the current settings resolve it without a compiler."""
        return None

    def known_linked_libraries(self) -> frozenset[str]:
        """Every library a toolchain of this target may link and preload here (what a graph manifest may name
        as its BLAS: ``opbuild cache verify`` reports any other). Default: none."""
        return frozenset()

    def preload(self, path: str) -> bool:
        """Load a library kernels link (the BLAS) ahead of them; whether it is loaded. Default: nothing."""
        return False

    def allocate(self, shape: Sequence[int], dtype: str) -> np.ndarray:
        """A buffer of ``shape`` and ``dtype`` that kernels of this target read and write (host memory; a
        target with :meth:`device` memory refuses)."""
        return np.empty(shape, dtype=dtype)

    def device(self) -> DeviceMemory | None:
        """The memory kernels of this target read and write when it is not the host's: None (the default, the
        CPU) means host memory (:meth:`allocate`, kernels called with host pointers). An accelerator returns
        its :class:`DeviceMemory` (one per process, one queue), or raises the target's one-line error when
        there is no usable device."""
        return None


__all__ = ["DeviceMemory", "Kernel", "Target", "Toolchain"]
