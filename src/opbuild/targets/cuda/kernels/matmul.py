"""GPU kernels of MatMul and BatchMatMul (ops/matmul.py): a generated kernel, one thread per output element
(consecutive threads take consecutive columns, so the reads of ``b`` and the writes coalesce), the dot product
accumulated in the element type as the CPU's BLAS does for float32/float64 and its plain loop for integers.
float16/bfloat16 operands load into float, the dot product accumulates in float and rounds once on store,
as the CPU's half MatMul (float32 gemm on converted operands) does.

Correct for every shape the ops accept (transposes, 1-D operands, broadcast batch dimensions), but not tuned:
cuBLAS, or tiled kernels in shared memory, are the next step, to be chosen by measurement on a GPU
(docs/cuda.md)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from .. import half
from ..codegen import broadcast_offsets, grid_loop
from .registry import register


def _mats(k: KernelSpec) -> tuple[tuple, tuple, tuple[int, int], tuple[int, int]]:
    """Batch shapes and matrix shapes (as stored) of a and b; a 1-D a is a row, a 1-D b a column (NumPy)."""
    a, b = k.inputs
    a_mat = (1, a.shape[0]) if a.rank == 1 else tuple(a.shape[-2:])
    b_mat = (b.shape[0], 1) if b.rank == 1 else tuple(b.shape[-2:])
    return tuple(a.shape[:-2]), tuple(b.shape[:-2]), a_mat, b_mat  # type: ignore[return-value]


def product(k: KernelSpec) -> tuple[int, str]:
    """``(number of output elements, C++ statements)`` of MatMul/BatchMatMul spec ``k``: the statements leave
    output element ``q``'s dot product in ``acc`` (of the output's compute type, unrounded)."""
    ta, tb = k.attrs["transpose_a"], k.attrs["transpose_b"]
    a_batch, b_batch, a_mat, b_mat = _mats(k)
    m, kk = (a_mat[1], a_mat[0]) if ta else a_mat
    n = b_mat[0] if tb else b_mat[1]
    batch = tuple(int(d) for d in k.outputs[0].shape[:len(k.outputs[0].shape) - (k.inputs[0].rank > 1)
                                                      - (k.inputs[1].rank > 1)])
    a_off, b_off = broadcast_offsets(batch, [a_batch, b_batch], "bq")
    t = half.compute_ctype(k.outputs[0].dtype)
    a_at = half.load(k.inputs[0].dtype, f"in0[ab + p * {m}LL + i]" if ta else f"in0[ab + i * {kk}LL + p]")
    b_at = half.load(k.inputs[1].dtype, f"in1[bb + j * {kk}LL + p]" if tb else f"in1[bb + p * {n}LL + j]")
    total = m * n
    for d in batch:
        total *= d
    stmt = (f"const int64_t j = q % {n}LL, i = (q / {n}LL) % {m}LL, bq = q / ({m * n}LL); "
            f"const int64_t ab = ({a_off}) * {a_mat[0] * a_mat[1]}LL, bb = ({b_off}) * {b_mat[0] * b_mat[1]}LL; "
            f"{t} acc = ({t})0; "
            f"for (int64_t p = 0; p < {kk}LL; p++) acc += {a_at} * {b_at};")
    return total, stmt


def _emit(k: KernelSpec) -> str:
    total, stmt = product(k)
    out_dt = k.outputs[0].dtype
    store = half.store(out_dt, "acc") if half.is_half(out_dt) else "acc"  # the accumulator is of the output's type
    return grid_loop(total, "q", f"{stmt} out0[q] = {store};")


register("MatMul", _emit)
register("BatchMatMul", _emit)
half.allow("MatMul", "BatchMatMul")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("MatMul", "BatchMatMul")

__all__ = ["OPS", "product"]
