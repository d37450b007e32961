"""The GPU emitter registry: op name -> :class:`Emitter` (see the package docstring); the family modules
register into it on import."""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ....cache import identity as cache_identity
from ....core.ir import KernelSpec
from ....ops.registry import REGISTRY
from ...code_reach import reached_files
from .. import codegen, half

EmitFn = Callable[[KernelSpec], str]
#: spec -> the number of blocks its kernel wants (``BLOCK`` threads each); see :func:`launch_blocks`.
LaunchFn = Callable[[KernelSpec], int]


@dataclass
class Emitter:
    """The GPU's way to compute one op: ``fn`` (spec -> CUDA C body); ``files``: what shapes its code."""

    op: str
    fn: EmitFn
    _hash: str | None = None
    #: Modules that shape the emitter's code as data the walk of its code cannot attribute (C text kept in
    #: another module, constants read by name): their files enter the op's code-generator hash too.
    deps: tuple[ModuleType, ...] = ()
    #: The blocks the kernel of a spec wants (:func:`launch_blocks`); None: one thread per element of the
    #: largest output. A performance choice only: every body is correct for any grid.
    launch: LaunchFn | None = None

    def files(self) -> tuple[str, ...]:
        """The files whose code shapes this op's CUDA C, sorted: the emitter's module and every file of opbuild
        its code may reach (``targets/code_reach.py``, the walk the CPU's keys use: a shared GEMM, the
        elementwise expressions, a block reduction), the registry, ``codegen.py`` (prelude, ABI), ``half.py``,
        the declared ``deps`` and the file declaring the op (its table row may shape the code as data)."""
        found = {sys.modules[self.fn.__module__].__file__, __file__, codegen.__file__}
        found.update(reached_files(self.fn))
        found.update(getattr(m, "__file__", None) for m in self.deps)
        opdef = REGISTRY.get(self.op)
        if opdef is not None:
            module = sys.modules.get(getattr(opdef.infer, "__module__", "") or "")
            if module is not None and getattr(module, "__file__", None):
                found.add(module.__file__)
        found.add(half.__file__)  # the half types' prelude section and helpers shape every kernel
        return tuple(sorted(str(f) for f in found if f))


EMITTERS: dict[str, Emitter] = {}


def register(op: str, fn: EmitFn, deps: tuple[ModuleType, ...] = ()) -> EmitFn:
    """Register ``fn`` as the GPU emitter of ``op`` (``deps``: :attr:`Emitter.deps`); registering an op twice
    is a programming error."""
    if op in EMITTERS:
        raise RuntimeError(f"operator {op} has two GPU emitters")
    EMITTERS[op] = Emitter(op, fn, deps=tuple(deps))
    return fn


def set_launch(op: str, fn: LaunchFn) -> LaunchFn:
    """Declare ``fn`` (spec -> blocks wanted) the launch size of ``op``'s kernels (registered already): the
    kernels that give one block per row, channel, matrix or output element (block-stride loops) and the tiled
    ones (one block per tile) say how many they can keep busy. Declaring it twice is a programming error."""
    em = emitter(op)
    if em.launch is not None:
        raise RuntimeError(f"operator {op} has two GPU launch sizes")
    em.launch = fn
    return fn


def default_blocks(spec: KernelSpec) -> int:
    """One thread per element of the largest output (grid-stride kernels): ``ceil(elements / BLOCK)``, >= 1."""
    n = max((t.size for t in spec.outputs), default=1)
    return max(1, -(-n // codegen.BLOCK))


def launch_blocks(spec: KernelSpec) -> int:
    """The number of blocks of ``BLOCK`` threads to launch ``spec``'s kernel with (>= 1): its emitter's
    declared launch size (:func:`set_launch`) or :func:`default_blocks`. Only a performance choice: the
    device caps it (``device.py``) and every kernel body is correct for any grid."""
    em = EMITTERS.get(spec.op)
    fn = em.launch if em is not None else None
    return max(1, int(fn(spec))) if fn is not None else default_blocks(spec)


def emits(*ops: str) -> Callable[[EmitFn], EmitFn]:
    """Decorator registering the decorated function as the GPU emitter of ``ops``."""

    def attach(fn: EmitFn) -> EmitFn:
        for op in ops:
            register(op, fn)
        return fn

    return attach


def emitter(op: str) -> Emitter:
    """The GPU emitter of ``op``; :class:`codegen.Unsupported` naming the op when there is none."""
    try:
        return EMITTERS[op]
    except KeyError:
        raise codegen.Unsupported(f"the GPU target has no kernel for operator {op!r} yet (GPU emitters: "
                                  "opbuild/targets/cuda/kernels/; use device_target='CPU' for this network)") from None


def emit(spec: KernelSpec) -> str:
    """The CUDA C body of ``spec`` (its op's registered emitter), after the dtype check."""
    em = emitter(spec.op)
    codegen.check_dtypes(spec.op, [*spec.inputs, *spec.outputs])
    return em.fn(spec)


@functools.cache
def _source_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def codegen_hash(op: str, file_digest: Callable[[str], str] | None = None) -> str:
    """sha256 of the code that generates ``op``'s CUDA C (module docstring); once per process and op."""
    em = emitter(op)
    if em._hash is None:
        digest = file_digest or _source_digest
        em._hash = cache_identity.codegen_hash(op, (digest(path) for path in em.files()))
    return em._hash


def codegen_files(ops: Iterable[str] | None = None) -> list[str]:
    """The union of the files shaping the CUDA C of ``ops`` (default every op with a GPU emitter), sorted."""
    names = EMITTERS if ops is None else ops
    files: set[str] = set()
    for name in names:
        em = EMITTERS.get(name)
        if em is not None:
            files.update(em.files())
    return sorted(files)


__all__ = ["EMITTERS", "Emitter", "LaunchFn", "codegen_files", "codegen_hash", "default_blocks", "emit", "emits",
           "emitter", "launch_blocks", "register", "set_launch"]
