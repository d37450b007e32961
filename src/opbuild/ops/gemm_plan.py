"""The scratch of the float products (MatMul, BatchMatMul and their fused forms) as plain arithmetic on shapes:
when the CPU's generated GEMM runs a product (targets/cpu/kernels/gemm_tiled.py, :func:`pays`) and the panel it
copies a transposed ``b`` into, and the planned workspace the op declares for it (:func:`product`), so the
kernel never allocates: a panel too large for the stack is the workspace's first part, beside the float32
copies of a float16/bfloat16 product (ops/scratch_plan.py ``half_product``).

Like ops/scratch_plan.py, this module imports no target.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.dtypes import BY_NAME
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .scratch_plan import Part, half_product

VECTOR_BYTES = 64  # the generated kernel's vector: one AVX-512 register, two AVX2 ones
ITEMSIZE = {"float32": 4, "float64": 8}
# The smallest product worth a generated kernel instead of the BLAS call: below it both take microseconds.
MIN_MACS = 1 << 12
# A transposed b is copied, one column block at a time, into a K x (PANEL_VECTORS vectors) panel in row order;
# a panel up to this size is on the stack, a larger one is the kernel's planned workspace.
PANEL_MAX_BYTES = 128 * 1024
PANEL_VECTORS = 4  # the widest column block of any register tile (gemm_tiled.py's tiles)


def pays(dtype: str, m: int, n: int, k: int, tb: bool) -> bool:
    """Whether ``m x k`` by ``op(b)`` (``k x n``) runs through the generated kernel: a float product of at least
    two rows and one whole vector of columns, of any size (``tb``, a transposed ``b`` as ``nn.Dense`` stores its
    weight, included); measured against the BLAS at every size (docs/benchmarks.md)."""
    if dtype not in ITEMSIZE or m < 2 or k < 1:
        return False
    lanes = VECTOR_BYTES // ITEMSIZE[dtype]
    return n >= lanes and m * n * k >= MIN_MACS


def panel_elems(dtype: str, k: int) -> int:
    """Elements of the panel of a transposed ``b`` with ``k`` rows (one column block of the widest tile)."""
    return k * PANEL_VECTORS * (VECTOR_BYTES // ITEMSIZE[dtype])


def heap_panel(dtype: str, m: int, n: int, k: int, tb: bool) -> bool:
    """Whether the generated kernel of this product needs a panel too large for the stack (in the workspace)."""
    return tb and pays(dtype, m, n, k, tb) and panel_elems(dtype, k) * ITEMSIZE[dtype] > PANEL_MAX_BYTES


def as_matrices(op: str, attrs: dict, ins: Sequence[TensorType]) -> tuple[tuple, tuple, tuple, tuple]:
    """Batch shapes and matrix shapes of a and b; a 1-D a is a row (1, K) and a 1-D b a column (K, 1), as
    in NumPy's matmul (transposing a vector is rejected: it is ambiguous)."""
    a, b = ins
    if a.rank == 0 or b.rank == 0:
        raise ShapeError(op, "inputs must have rank >= 1 (use Mul for scalars)", list(ins))
    for name, t in (("a", a), ("b", b)):
        if t.rank == 1 and attrs[f"transpose_{name}"]:
            raise ShapeError(op, f"transpose_{name} needs {name} of rank >= 2, got a 1-D vector", list(ins))
    a_mat = (1, a.shape[0]) if a.rank == 1 else tuple(a.shape[-2:])
    b_mat = (b.shape[0], 1) if b.rank == 1 else tuple(b.shape[-2:])
    return tuple(a.shape[:-2]), tuple(b.shape[:-2]), a_mat, b_mat


def _prod(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def product_shape(op: str, attrs: dict, ins: Sequence[TensorType]) -> tuple[int, int, int]:
    """(M, N, K) of one GEMM call of a MatMul/BatchMatMul kernel: a BatchMatMul whose ``b`` has no batch and
    whose ``a`` is not transposed is one tall GEMM of every batch's rows (targets/cpu/kernels/matmul.py)."""
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if op == "MatMul":
        a_mat, b_mat, a_batch, b_batch = ins[0].shape, ins[1].shape, (), ()
    else:
        a_batch, b_batch, a_mat, b_mat = as_matrices(op, attrs, ins[:2])
    m, k = (a_mat[1], a_mat[0]) if ta else a_mat
    n = b_mat[0] if tb else b_mat[1]
    if op != "MatMul" and _prod(b_batch) == 1 and not ta and m * n * k > 0:
        m *= max(_prod(a_batch), 1)
    return m, n, k


def product(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType], op: str = "MatMul") -> list[Part]:
    """The workspace layout of a MatMul/BatchMatMul kernel: the panel of a transposed ``b`` when it is too large
    for the stack (first, at offset 0: the generated GEMM addresses it there), then a half product's float32
    copies. The product runs in float32 for the half types."""
    a = ins[0]
    dtype = "float32" if BY_NAME[a.dtype].is_half else a.dtype
    parts: list[Part] = []
    if dtype in ITEMSIZE and outs[0].size:
        m, n, k = product_shape(op, attrs, ins)
        if heap_panel(dtype, m, n, k, bool(attrs["transpose_b"])):
            parts.append(("ob_panel", dtype, panel_elems(dtype, k)))
    return parts + half_product(attrs, ins, outs)


def matmul_layout(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """:func:`product` of a MatMul."""
    return product(attrs, ins, outs, "MatMul")


def batch_matmul_layout(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> list[Part]:
    """:func:`product` of a BatchMatMul."""
    return product(attrs, ins, outs, "BatchMatMul")


__all__ = ["ITEMSIZE", "MIN_MACS", "PANEL_MAX_BYTES", "PANEL_VECTORS", "VECTOR_BYTES", "as_matrices",
           "batch_matmul_layout", "heap_panel", "matmul_layout", "panel_elems", "pays", "product",
           "product_shape"]
