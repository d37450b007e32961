"""C of the Svd kernel for matrices of fewer than 16 columns: Eigen's Jacobi SVD with its column-pivoting QR
preconditioner, the steps ops/svd_jacobi.py states (and checks against MindSpore's recorded outputs), in the
input's precision. The Svd emitter (kernels/linalg.py) calls :func:`jacobi_svd_body` for those shapes; the
steps' C is shared with the GPU target (targets/jacobi_svd_c.py), the per-matrix work arrays are malloc'd here."""

from __future__ import annotations

import numpy as np

from ....core.ir import KernelSpec
from ...jacobi_svd_c import jacobi_constants, jacobi_steps
from ..codegen import parallel_for


def jacobi_svd_body(k: KernelSpec) -> str:
    """The C body of Svd for an input of fewer than 16 columns."""
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b = int(np.prod(x.shape[:-2], dtype=np.int64))
    kk = min(m, n)
    ct = "float" if x.dtype == "float32" else "double"
    rr, cc = max(m, n), min(m, n)
    lines = [
        jacobi_constants(k),
        # Matrices are independent: the batch splits over OpenMP's threads, each item with its own buffers.
        parallel_for(b * m * n * kk * 8).rstrip("\n"),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{ct} *xs = ({ct} *)malloc({m * n} * sizeof({ct})), *w = ({ct} *)malloc({kk * kk + 1} * sizeof({ct}));",
        f"{ct} *uu = ({ct} *)malloc({m * m} * sizeof({ct})), *vv = ({ct} *)malloc({n * n} * sizeof({ct}));",
        f"{ct} *qa = ({ct} *)malloc({rr * cc + 1} * sizeof({ct})), *qq = ({ct} *)malloc({rr * rr} * sizeof({ct}));",
        jacobi_steps(k),
        "free(xs); free(w); free(uu); free(vv); free(qa); free(qq);",
        "}",
    ]
    return "\n".join(line for line in lines if line)
