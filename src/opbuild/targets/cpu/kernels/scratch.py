"""C carving a kernel's work arrays out of its planned workspace (``ob_ws``, codegen.kernel_function), by the
layouts of ops/scratch_plan.py: the op's ``OpDef.workspace`` and this C follow the same function, so the
kernel never reads past the bytes the graph planned, and never calls ``malloc`` (nothing to fail mid-kernel,
nothing to free)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ....ops.scratch_plan import Part, offsets
from ..codegen import ctype


def c_kind(kind: str) -> str:
    """The C element type of a part's kind."""
    return "OB_BLAS_INT" if kind == "blas_int" else ctype(kind)


def carve(parts: Sequence[Part], base: str = "ob_ws", skip: Collection[str] = ()) -> str:
    """C declaring one ``restrict`` pointer per part, each at its offset from ``base`` (a ``char *``), but for
    the parts named in ``skip`` (declared where they are used, as the generated GEMM's panel)."""
    at, _ = offsets(parts)
    return "\n".join(f"{c_kind(kind)} *restrict {name} = ({c_kind(kind)} *)({base} + {off});"
                     for (name, kind, _), off in zip(parts, at, strict=True) if name not in skip)


def slot_pragma(pragma: str, slots: int) -> str:
    """``pragma`` (codegen.parallel_for's, empty for a serial loop) asking for no more threads than the
    workspace has ``slots`` (and no more than OpenMP would use anyway: a bare ``num_threads(slots)`` would
    start that many threads on fewer cores)."""
    if not pragma:
        return ""
    return ("extern int omp_get_max_threads(void);\n"
            f"{pragma.rstrip()} num_threads(omp_get_max_threads() < {slots} ? omp_get_max_threads() : {slots})\n")


# The calling thread's number inside an OpenMP team (0 without OpenMP, where every loop runs on the caller).
THREAD_NUM = ("#ifdef _OPENMP\nextern int omp_get_thread_num(void);\nconst int64_t ob_slot = omp_get_thread_num();\n"
              "#else\nconst int64_t ob_slot = 0;\n#endif")


__all__ = ["THREAD_NUM", "c_kind", "carve", "slot_pragma"]
