"""What the CPU target generates: each kernel's C body from its op's emitter (``kernels/``; a run-time-batch
descriptor's batch-1 body: ``runtime_batch.py``), the translation unit of a batch, and the facts about the
generated code that keys and builds need (the BLAS, the optimisation class, the code-generator hash and files).

The target (``targets/cpu/__init__.py``) imports this module on first use: importing the emitter modules is
most of the target's import time, and a warm start that a graph manifest serves loads its kernels without
generating or hashing any (docs/benchmarks.md, "Warm builds, fourth pass").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ...core.ir import KernelSpec
from ...ops.registry import get as get_op
from . import codegen, kernels, runtime_batch


def emit(spec: KernelSpec) -> str:
    """The C body of ``spec``."""
    if runtime_batch.is_runtime(spec):
        return runtime_batch.emit(spec)
    return kernels.emit(spec)


def runtime_batch_tag() -> str:
    """The generator tag of run-time-batch descriptors (passes/row_plan.py)."""
    return runtime_batch.tag()


def needs_blas(op: str) -> bool:
    """Whether ``op``'s emitter is registered as calling the BLAS."""
    return kernels.needs_blas(op)


def opt_class(spec: KernelSpec) -> str:
    """``glue``, ``copy`` or ``compute`` (``kernels.opt_class``)."""
    return kernels.opt_class(spec)


def codegen_hash(op: str, file_digest: Callable[[str], str] | None = None) -> str:
    """The digest of every file ``op``'s emitter reaches (``kernels.codegen_hash``)."""
    return kernels.codegen_hash(op, file_digest)


def codegen_files(ops: Iterable[str] | None = None) -> list[str]:
    """The files the emitters of ``ops`` reach (``kernels.codegen_files``)."""
    return kernels.codegen_files(ops)


def translation_unit(kernels_: Sequence[tuple[str, KernelSpec, str]], needs_blas: bool) -> str:
    """The C file of one batch: the prelude, the BLAS declarations if needed, one function per kernel."""
    functions = []
    for symbol, spec, body in kernels_:
        if runtime_batch.is_runtime(spec):
            functions.append(runtime_batch.function(symbol, spec, body))
            continue
        op = get_op(spec.op)
        functions.append(codegen.kernel_function(
            symbol, spec.inputs, spec.outputs, body, codegen.CLASS_OPT[kernels.opt_class(spec)],
            workspace=op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs) > 0, status=op.status is not None))
    return codegen.translation_unit(functions, needs_blas)


__all__ = ["codegen_files", "codegen_hash", "emit", "needs_blas", "opt_class", "runtime_batch_tag",
           "translation_unit"]
