"""C of the Svd kernel for matrices of fewer than 16 columns: Eigen's Jacobi SVD with its column-pivoting QR
preconditioner, the steps ops/svd_jacobi.py states (and checks against MindSpore's recorded outputs), in the
input's precision. The Svd emitter (kernels/linalg.py) calls :func:`jacobi_svd_body` for those shapes; the
steps' C is shared with the GPU target (targets/jacobi_svd_c.py). The work arrays of a matrix are one slot of
the kernel's workspace (ops/scratch_plan.py ``svd``): one slot per thread, the batch split over at most that
many of OpenMP's threads."""

from __future__ import annotations

import numpy as np

from ....core.ir import KernelSpec
from ....ops.scratch_plan import jacobi_item, jacobi_slots, layout_bytes
from ...jacobi_svd_c import jacobi_constants, jacobi_steps
from ..codegen import parallel_for
from .scratch import THREAD_NUM, carve, slot_pragma


def jacobi_svd_body(k: KernelSpec) -> str:
    """The C body of Svd for an input of fewer than 16 columns."""
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b = int(np.prod(x.shape[:-2], dtype=np.int64))
    kk = min(m, n)
    item = jacobi_item(m, n, x.dtype)
    slots = jacobi_slots(x)
    # Matrices are independent: the batch splits over OpenMP's threads, no more of them than the workspace has
    # slots, each thread working in its own.
    pragma = slot_pragma(parallel_for(b * m * n * kk * 8), slots).rstrip("\n") if slots > 1 else ""
    lines = [
        jacobi_constants(k),
        pragma,
        f"for (int64_t t = 0; t < {b}; t++) {{",
        THREAD_NUM if pragma else "const int64_t ob_slot = 0;",
        f"char *restrict ob_mine = ob_ws + ob_slot * {layout_bytes(item)};",
        carve(item, "ob_mine"),
        jacobi_steps(k),
        "}",
    ]
    return "\n".join(line for line in lines if line)
