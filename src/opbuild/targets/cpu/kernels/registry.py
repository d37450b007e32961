"""The CPU emitter registry: op name -> :class:`Emitter` (see the package docstring); the family modules
register into it on import."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ....cache import identity as cache_identity
from ....core.ir import KernelSpec
from ....ops.registry import REGISTRY
from ....ops.registry import get as get_op
from ..sources import emitter_file, generator_files

EmitFn = Callable[[KernelSpec], str]


@dataclass
class Emitter:
    """The CPU's way to compute one op: ``fn`` (spec -> C body), whether it calls the BLAS, whether it only
    moves data; the files that shape its C and their digest are derived once per process."""

    op: str
    fn: EmitFn
    blas: bool = False
    copy: bool = False
    # spec -> an optimisation class overriding the default rule (None keeps it): a BLAS op whose kernel for
    # this shape is generated arithmetic, not glue around a BLAS call (matmul.py's tiled GEMM).
    klass: Callable[[KernelSpec], str | None] | None = None
    _files: tuple[str, ...] | None = None
    _hash: str | None = None

    def files(self) -> tuple[str, ...]:
        """The source files whose code shapes this op's generated C (``sources.py``), derived once."""
        if self._files is None:
            opdef = REGISTRY.get(self.op)
            declared = (emitter_file(opdef.infer),) if opdef is not None else ()
            self._files = generator_files(self.fn, declared_in=declared)
        return self._files


EMITTERS: dict[str, Emitter] = {}


def register(op: str, fn: EmitFn, *, blas: bool = False, copy: bool = False,
             klass: Callable[[KernelSpec], str | None] | None = None) -> EmitFn:
    """Register ``fn`` as the emitter of op ``op`` (``klass``: see :class:`Emitter`); registering an op twice
    is a programming error."""
    if op in EMITTERS:
        raise RuntimeError(f"operator {op} has two CPU emitters")
    EMITTERS[op] = Emitter(op, fn, blas=blas, copy=copy, klass=klass)
    return fn


def emits(*ops: str, blas: bool = False, copy: bool = False) -> Callable[[EmitFn], EmitFn]:
    """Decorator registering the decorated function as the CPU emitter of ``ops``::

        @emits("Transpose", copy=True)
        def _transpose(k: KernelSpec) -> str: ...
    """

    def attach(fn: EmitFn) -> EmitFn:
        for op in ops:
            register(op, fn, blas=blas, copy=copy)
        return fn

    return attach


def emitter(op: str) -> Emitter:
    """The CPU emitter of op ``op``; KeyError naming the op when the CPU has none."""
    try:
        return EMITTERS[op]
    except KeyError:
        raise KeyError(f"the CPU target has no emitter for operator {op!r} (register one in "
                       "opbuild/targets/cpu/kernels/ with @emits)") from None


def emit(spec: KernelSpec) -> str:
    """The C body of the kernel ``spec`` (its op's registered emitter)."""
    return emitter(spec.op).fn(spec)


def needs_blas(op: str) -> bool:
    """Whether kernels of ``op`` call the BLAS (False for an op the CPU cannot build)."""
    found = EMITTERS.get(op)
    return found is not None and found.blas


def opt_class(spec: KernelSpec) -> str:
    """The kernel's optimisation class, part of its descriptor (cache/key.py); the target maps each class
    to flags recorded in the compiler identity (codegen.py ``CLASS_OPT``). ``glue``: a float GEMM kernel whose
    own loops only arrange the operands of and copy around one BLAS call (MatMul, BatchMatMul, and forward
    convolutions whose ``algo`` is ``gemm`` or ``im2col``); ``copy``: data movement with no arithmetic (the
    layout, slicing and indexing families); ``compute``: everything else."""
    em = emitter(spec.op)
    if em.klass is not None and (chosen := em.klass(spec)) is not None:
        return chosen
    if em.blas:
        floats = all(t.dtype in ("float32", "float64") for t in (*spec.inputs, *spec.outputs))
        attrs = spec.attrs if isinstance(spec.attrs, dict) else {}
        # A GEMM with a fused epilogue (fused_gemm) takes its producer's class: -O3 slows the im2col copies
        # down (docs/benchmarks.md); the epilogue loop carries `#pragma omp simd`, which vectorises at -O1 too.
        producer = attrs.get("producer")
        algo = (producer if isinstance(producer, dict) else attrs).get("algo")
        glue = algo is None or (algo in ("gemm", "im2col") and get_op(spec.op).scenario == "forward")
        return "glue" if floats and glue else "compute"
    return "copy" if em.copy else "compute"


@functools.cache
def _source_digest(path: str) -> str:
    """sha256 (hex) of a generator source file, read once per process (every op of a family shares it)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def codegen_digest(op: str, file_digest: Callable[[str], str]) -> str:
    """The code-generator hash of ``op`` with ``file_digest`` reading each file (not memoised: see
    :func:`codegen_hash`): the digests of :meth:`Emitter.files` in sorted order, then the op's name."""
    return cache_identity.codegen_hash(op, (file_digest(str(path)) for path in emitter(op).files()))


def codegen_hash(op: str, file_digest: Callable[[str], str] | None = None) -> str:
    """sha256 of the code that generates ``op``'s C: every file its emitter's code reaches, and its name.

    Hashing whole source files is deliberately conservative: any edit to a file that shapes an op's C yields
    new keys for the ops it shapes, so a stale binary is never reused. ``file_digest`` (hex sha256 of a file)
    may serve memoised digests (cache/statmemo.py); computed once per process and op."""
    em = emitter(op)
    if em._hash is None:
        em._hash = codegen_digest(op, file_digest or _source_digest)
    return em._hash


def codegen_files(ops: Iterable[str] | None = None) -> list[str]:
    """The union of the files shaping the C of ``ops`` (names; default every registered op), sorted: what the
    graph manifests record. A name the CPU cannot build contributes nothing (its build fails anyway)."""
    names = REGISTRY if ops is None else ops
    files: set[str] = set()
    for name in names:
        em = EMITTERS.get(name)
        if em is not None:
            files.update(em.files())
    return sorted(files)


def needs_kernel(op: str) -> bool:
    """Whether a registered op needs a CPU kernel: every op but host ops (collectives run in the executor)."""
    return get_op(op).host is None


__all__ = ["EMITTERS", "Emitter", "codegen_digest", "codegen_files", "codegen_hash", "emit", "emits", "emitter",
           "needs_blas", "needs_kernel", "opt_class", "register"]
