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
from .. import codegen

EmitFn = Callable[[KernelSpec], str]


@dataclass
class Emitter:
    """The GPU's way to compute one op: ``fn`` (spec -> CUDA C body); ``files``: what shapes its code."""

    op: str
    fn: EmitFn
    _hash: str | None = None
    #: Other modules whose code the emitter calls (a shared GEMM, the elementwise expressions, a block
    #: reduction): their files enter the op's code-generator hash too.
    deps: tuple[ModuleType, ...] = ()

    def files(self) -> tuple[str, ...]:
        """The files whose code shapes this op's CUDA C (module docstring), sorted."""
        found = {sys.modules[self.fn.__module__].__file__, __file__, codegen.__file__}
        found.update(getattr(m, "__file__", None) for m in self.deps)
        opdef = REGISTRY.get(self.op)
        if opdef is not None:
            module = sys.modules.get(getattr(opdef.infer, "__module__", "") or "")
            if module is not None and getattr(module, "__file__", None):
                found.add(module.__file__)
        return tuple(sorted(str(f) for f in found if f))


EMITTERS: dict[str, Emitter] = {}


def register(op: str, fn: EmitFn, deps: tuple[ModuleType, ...] = ()) -> EmitFn:
    """Register ``fn`` as the GPU emitter of ``op`` (``deps``: :attr:`Emitter.deps`); registering an op twice
    is a programming error."""
    if op in EMITTERS:
        raise RuntimeError(f"operator {op} has two GPU emitters")
    EMITTERS[op] = Emitter(op, fn, deps=tuple(deps))
    return fn


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


__all__ = ["EMITTERS", "Emitter", "codegen_files", "codegen_hash", "emit", "emits", "emitter", "register"]
