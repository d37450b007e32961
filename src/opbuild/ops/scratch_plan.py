"""Scratch layouts of the kernels whose work arrays are planned workspaces (``OpDef.workspace``) rather than
``malloc``'d in the kernel: the linear-algebra ops (LAPACK's pivots, copies of the input, ...), Eig, the
discrete random ops and the FFT.

A layout is a list of :data:`Part` (name, element kind, count), each part starting on a cache line. The op
declares ``workspace=workspace_of(<layout>)``; the CPU emitter carves the same layout out of the kernel's
workspace pointer (targets/cpu/kernels/scratch.py), so the bytes the graph plans and the bytes the kernel
uses come from one function. A kernel with a workspace allocates nothing itself: it cannot fail half-way for
lack of memory (the arena or PyNative's buffer is allocated before it runs, in Python, which raises
MemoryError cleanly), and it holds no memory between calls.

Kernels that split independent items over OpenMP's threads (Svd's Jacobi path) take one slot of the layout
per thread: :func:`slots` bounds their count, and the kernel asks OpenMP for no more threads than that
(``num_threads``), so each thread owns slot ``omp_get_thread_num()`` whatever OMP_NUM_THREADS says.

This module is plain arithmetic on shapes (no target import), like ops/conv_plan.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.dtypes import BY_NAME
from ..core.errors import KernelMemoryError
from ..core.ir import TensorType
from .svd_jacobi import JACOBI_MAX_COLS

#: (name, element kind, count). Kinds are dtype names, or ``blas_int`` (LAPACK's integer: 8 bytes, enough for
#: the ILP64 builds of OpenBLAS, so one layout serves every provider).
Part = tuple[str, str, int]
Layout = Callable[[dict, Sequence[TensorType], Sequence[TensorType]], list[Part]]
ALIGN = 64  # bytes: each part starts on a cache line
BLAS_INT_BYTES = 8
# Per-thread slots: at most this many (so at most this many threads share such a kernel) ...
MAX_SLOTS = 64
# ... and no more than fit in this many bytes (matrices so large that few slots fit have work enough per item
# that few threads keep busy); at least one slot whatever its size.
SLOTS_BUDGET_BYTES = 64 << 20


def itemsize(kind: str) -> int:
    """Bytes of one element of ``kind`` (a dtype name, or ``blas_int``)."""
    return BLAS_INT_BYTES if kind == "blas_int" else BY_NAME[kind].np_dtype.itemsize


def aligned(n: int) -> int:
    """``n`` bytes rounded up to a whole number of cache lines."""
    return -(-n // ALIGN) * ALIGN


def offsets(parts: Sequence[Part]) -> tuple[list[int], int]:
    """The byte offset of each part in the workspace, and the workspace's size (0 for no part)."""
    at, out = 0, []
    for _, kind, count in parts:
        out.append(at)
        at += aligned(max(count, 1) * itemsize(kind))
    return out, at


def layout_bytes(parts: Sequence[Part]) -> int:
    """Bytes of a workspace holding ``parts``."""
    return offsets(parts)[1]


def slots(items: int, slot_bytes: int) -> int:
    """Per-thread slots of ``slot_bytes`` for a kernel splitting ``items`` independent items over threads."""
    return max(1, min(items, MAX_SLOTS, SLOTS_BUDGET_BYTES // max(slot_bytes, 1)))


def workspace_of(layout: Layout) -> Callable[[dict, Sequence[TensorType], Sequence[TensorType]], int]:
    """The ``OpDef.workspace`` of an op whose kernel carves ``layout``."""
    def workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
        return layout_bytes(layout(attrs, ins, outs))
    return workspace


def _batch(shape: Sequence[int]) -> int:
    n = 1
    for d in shape[:-2]:
        n *= d
    return n


def matrix_inverse(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """MatrixInverse: getrf's pivots (the matrix is factored in the output)."""
    x = ins[0]
    return [] if x.size == 0 else [("ipiv", "blas_int", x.shape[-1])]


def lu_copy(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """MatrixDeterminant and LogMatrixDeterminant: a copy of one matrix for getrf, and its pivots."""
    x = ins[0]
    n = x.shape[-1]
    return [] if _batch(x.shape) == 0 or n == 0 else [("a", x.dtype, n * n), ("ipiv", "blas_int", n)]


def matrix_solve(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """MatrixSolve: a copy of one matrix for gesv, and its pivots."""
    mat, rhs = ins
    n = mat.shape[-1]
    return [] if rhs.size == 0 else [("a", rhs.dtype, n * n), ("ipiv", "blas_int", n)]


def qr(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """Qr: a copy of one matrix for geqrf, and its reflectors' scales."""
    x = ins[0]
    m, n = x.shape[-2:]
    if _batch(x.shape) == 0 or m == 0 or min(m, n) == 0:
        return []
    return [("a", x.dtype, m * n), ("tau", x.dtype, min(m, n))]


def jacobi_item(m: int, n: int, dtype: str) -> list[Part]:
    """The work arrays of one matrix of Svd's Jacobi path (targets/jacobi_svd_c.py names them)."""
    kk, rr, cc = min(m, n), max(m, n), min(m, n)
    return [("xs", dtype, m * n), ("w", dtype, kk * kk + 1), ("uu", dtype, m * m), ("vv", dtype, n * n),
            ("qa", dtype, rr * cc + 1), ("qq", dtype, rr * rr)]


def jacobi_slots(x: TensorType) -> int:
    """Per-thread slots of Svd's Jacobi path for input ``x``."""
    m, n = x.shape[-2:]
    return slots(_batch(x.shape), layout_bytes(jacobi_item(m, n, x.dtype)))


def svd(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """Svd: the Jacobi path's work arrays, once per slot (:func:`jacobi_slots`); gesdd's copy of one matrix
    and its ``v`` transposed."""
    x = ins[0]
    m, n = x.shape[-2:]
    if _batch(x.shape) == 0 or min(m, n) == 0:
        return []
    if n < JACOBI_MAX_COLS:
        return [("slots", "uint8", jacobi_slots(x) * layout_bytes(jacobi_item(m, n, x.dtype)))]
    return [("a", x.dtype, m * n), ("vt", x.dtype, outs[2].shape[-1] * n)]


def eig(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """Eig: geev's copy of one matrix, its right vectors and eigenvalue parts, and the double values and vectors
    the kernel sorts."""
    x = ins[0]
    n = x.shape[-1]
    if x.size == 0:
        return []
    return [("a", x.dtype, n * n), ("vr", x.dtype, n * n), ("wr", x.dtype, n), ("wi", x.dtype, n),
            ("re", "float64", n), ("im", "float64", n), ("vre", "float64", n * n), ("vim", "float64", n * n)]


def multinomial(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """Multinomial: one row's weights (drawn categories are zeroed without replacement)."""
    return [] if outs[0].size == 0 else [("w", "float64", ins[1].shape[-1])]


def random_shuffle(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """RandomShuffle: the permutation of the first axis."""
    x = ins[1]
    return [] if x.size == 0 or not x.shape else [("perm", "int64", x.shape[0])]


def randperm(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """RandpermV2: the permutation before its cast to the output's dtype."""
    return [] if attrs["n"] == 0 else [("perm", "int64", attrs["n"])]


def half_product(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """MatMul and BatchMatMul of float16/bfloat16 (and their fused forms, whose workspace is the producer's):
    float32 copies of both operands and the float32 product, rounded once into the output."""
    a, b = ins[:2]
    if not BY_NAME[a.dtype].is_half or outs[0].size == 0:
        return []
    return [("ob_a", "float32", a.size), ("ob_b", "float32", b.size), ("ob_c", "float32", outs[0].size)]


def lapack_status(op: str) -> Callable[[dict, Sequence[TensorType], int, int], KernelMemoryError]:
    """The ``OpDef.status`` of an op whose kernel calls LAPACKE: LAPACKE allocates its row-major copies and
    work arrays itself (no plan can size them), and the kernel reports such a failure (the batch item, LAPACKE's
    error code) rather than NaN results that look computed (targets/cpu/kernels/linalg.py ``oom``)."""
    def status(attrs: dict, ins: Sequence[TensorType], item: int, code: int) -> KernelMemoryError:
        what = "its work arrays for" if code == -1010 else "the row-major copy of"
        shape = "x".join(map(str, ins[0].shape[-2:]))
        return KernelMemoryError(op, f"LAPACK could not allocate {what} matrix {item} of the batch ({shape}, "
                                     f"LAPACKE error {code}): free memory or pass smaller matrices", item, code)
    return status


def fftn(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """FFTN: the complex double work array (the input cut or zero-padded to the signal lengths ``s``)."""
    if outs[0].size == 0:
        return []
    work = list(ins[0].shape)
    for d, n in zip(attrs["dims"], attrs["s"], strict=True):
        work[d] = n
    total = 1
    for n in work:
        total *= n
    return [("w", "float64", 2 * total)]


__all__ = ["ALIGN", "MAX_SLOTS", "SLOTS_BUDGET_BYTES", "Part", "aligned", "eig", "fftn", "half_product", "itemsize",
           "jacobi_item", "jacobi_slots", "lapack_status", "layout_bytes", "lu_copy", "matrix_inverse", "matrix_solve",
           "multinomial", "offsets", "qr", "random_shuffle", "randperm", "slots", "svd", "workspace_of"]
