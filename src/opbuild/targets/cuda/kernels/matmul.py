"""GPU kernels of MatMul and BatchMatMul (ops/matmul.py), for every shape the ops accept (transposes, 1-D
operands, broadcast batch dimensions). Each output element's dot product is accumulated in the element type
as the CPU's BLAS does for float32/float64 and its plain loop for integers, ``p = 0 .. K - 1`` in order;
float16/bfloat16 operands load into float, the dot product accumulates in float and rounds once on store,
as the CPU's half MatMul (float32 gemm on converted operands) does.

Two kernels compute that same value (bit for bit on the same device: same terms, same order, same types):

* products of at least ``TILED_MIN`` rows and columns: the shared-memory tiled GEMM (``gemm_tiles.py``), one
  block per 64 x 64 output tile, launched with one block per tile (``registry.set_launch``);
* smaller ones (and matrix-vector products): one thread per output element (consecutive threads take
  consecutive columns, so the reads of ``b`` and the writes coalesce). A tile of a product with fewer than 16
  rows or columns would leave most of its threads' register blocks outside the matrix, and a matrix-vector
  product reuses no element of the matrix, so tiling buys nothing there.

How fast either runs is unmeasured (no GPU has run them; docs/cuda.md)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from .. import half
from ..codegen import broadcast_offsets, grid_loop
from . import gemm_tiles
from .registry import default_blocks, register, set_launch

#: The smallest row and column count the tiled kernel is used for.
TILED_MIN = 16


def _mats(k: KernelSpec) -> tuple[tuple, tuple, tuple[int, int], tuple[int, int]]:
    """Batch shapes and matrix shapes (as stored) of a and b; a 1-D a is a row, a 1-D b a column (NumPy)."""
    a, b = k.inputs
    a_mat = (1, a.shape[0]) if a.rank == 1 else tuple(a.shape[-2:])
    b_mat = (b.shape[0], 1) if b.rank == 1 else tuple(b.shape[-2:])
    return tuple(a.shape[:-2]), tuple(b.shape[:-2]), a_mat, b_mat  # type: ignore[return-value]


def _dims(k: KernelSpec) -> tuple[tuple[int, ...], int, int, int]:
    """``(batch shape of the output, m, n, K)`` of MatMul/BatchMatMul spec ``k``."""
    _, _, a_mat, b_mat = _mats(k)
    ta, tb = k.attrs["transpose_a"], k.attrs["transpose_b"]
    m, kk = (a_mat[1], a_mat[0]) if ta else a_mat
    n = b_mat[0] if tb else b_mat[1]
    out = k.outputs[0].shape
    batch = tuple(int(d) for d in out[:len(out) - (k.inputs[0].rank > 1) - (k.inputs[1].rank > 1)])
    return batch, int(m), int(n), int(kk)


def is_tiled(k: KernelSpec) -> bool:
    """Whether spec ``k``'s product runs as the tiled GEMM (module docstring)."""
    _, m, n, _ = _dims(k)
    return m >= TILED_MIN and n >= TILED_MIN


def product(k: KernelSpec) -> tuple[int, str]:
    """``(number of output elements, C++ statements)`` of MatMul/BatchMatMul spec ``k``: the statements leave
    output element ``q``'s dot product in ``acc`` (of the output's compute type, unrounded)."""
    ta = k.attrs["transpose_a"]
    tb = k.attrs["transpose_b"]
    a_batch, b_batch, a_mat, b_mat = _mats(k)
    batch, m, n, kk = _dims(k)
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


def gemm(k: KernelSpec, epilogue: str) -> str:
    """The kernel body of MatMul/BatchMatMul spec ``k`` running ``epilogue`` (statements reading ``q``, the
    flat output index, and ``acc``, its unrounded dot product) once per output element: the tiled GEMM or the
    per-element loop (module docstring), the same values either way."""
    if not is_tiled(k):
        total, stmt = product(k)
        return grid_loop(total, "q", f"{stmt} {epilogue}")
    a_batch, b_batch, a_mat, b_mat = _mats(k)
    batch, m, n, kk = _dims(k)
    a_off, b_off = broadcast_offsets(batch, [a_batch, b_batch], "bq")
    count = 1
    for d in batch:
        count *= d
    a_dt, b_dt = k.inputs[0].dtype, k.inputs[1].dtype
    return gemm_tiles.tiled_body(
        batch=count, m=m, n=n, kk=kk, ta=bool(k.attrs["transpose_a"]), tb=bool(k.attrs["transpose_b"]),
        a_off=a_off, b_off=b_off, a_mat=a_mat[0] * a_mat[1], b_mat=b_mat[0] * b_mat[1],
        load_t=(half.compute_ctype(a_dt), half.compute_ctype(b_dt)),
        loads=(half.load(a_dt, "in0[ix_]"), half.load(b_dt, "in1[ix_]")),
        acc_t=half.compute_ctype(k.outputs[0].dtype), epilogue=epilogue)


def launch(k: KernelSpec) -> int:
    """Blocks for spec ``k``'s product: one per output tile when tiled, else one thread per output element."""
    if not is_tiled(k):
        return default_blocks(k)
    batch, m, n, _ = _dims(k)
    count = 1
    for d in batch:
        count *= d
    return gemm_tiles.tiles(count, m, n)


def _emit(k: KernelSpec) -> str:
    out_dt = k.outputs[0].dtype
    store = half.store(out_dt, "acc") if half.is_half(out_dt) else "acc"  # the accumulator is of the output's type
    return gemm(k, f"out0[q] = {store};")


for _op in ("MatMul", "BatchMatMul"):
    register(_op, _emit)
    set_launch(_op, launch)
half.allow("MatMul", "BatchMatMul")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("MatMul", "BatchMatMul")

__all__ = ["OPS", "TILED_MIN", "gemm", "is_tiled", "launch", "product"]
