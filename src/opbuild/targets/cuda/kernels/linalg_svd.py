"""GPU kernel of Svd for matrices of fewer than 16 columns: the CPU's own C (Eigen's Jacobi SVD with its
column-pivoting QR preconditioner, ``targets/jacobi_svd_c.py`` :func:`jacobi_steps`, which both targets take:
MindSpore's path and its singular vectors' signs), one block per matrix of the batch: the block's first thread runs the
sequential sweeps on work arrays in the block's shared memory where the CPU mallocs them. The rotations
depend on every previous one, so a thread per matrix is the parallelism there is; matrices whose work arrays
exceed one block's shared memory, and the 16 columns and more that the CPU gives to LAPACK's gesdd, are
refused naming cuSOLVER.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.svd_jacobi import JACOBI_MAX_COLS
from ... import jacobi_svd_c as svd_jacobi
from ..codegen import Unsupported, grid_loop
from . import special
from .linalg import SHARED_LIMIT, _batch, _float
from .registry import register
from .special import MATH_CONSTANTS


def _identities(k: KernelSpec, ct: str) -> str:
    """min(m, n) == 0: no singular values; u and v are the identity's first columns (or empty)."""
    (m, n), (uc, vc) = k.inputs[0].shape[-2:], (k.outputs[1].shape[-1], k.outputs[2].shape[-1])
    return "\n".join([
        grid_loop(k.outputs[1].size, "e", f"const int64_t i = (e % {m * uc}) / {uc}, j = e % {uc}; "
                                          f"out1[e] = ({ct})(i == j ? 1 : 0);"),
        grid_loop(k.outputs[2].size, "e", f"const int64_t i = (e % {n * vc}) / {vc}, j = e % {vc}; "
                                          f"out2[e] = ({ct})(i == j ? 1 : 0);")])


def _svd(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    ct = _float(k.op, x.dtype)
    b, kk, rr, cc = _batch(x.shape), min(m, n), max(m, n), min(m, n)
    if b == 0:
        return "  /* empty */"
    if kk == 0:
        return _identities(k, ct)
    if n >= JACOBI_MAX_COLS:
        raise Unsupported(f"Svd: the GPU target runs the Jacobi SVD of fewer than {JACOBI_MAX_COLS} columns only; "
                          f"{m}x{n} matrices need cuSOLVER, which is not wired: use device_target='CPU' for them")
    arrays = {"xs": m * n, "w": kk * kk + 1, "uu": m * m, "vv": n * n, "qa": rr * cc + 1, "qq": rr * rr}
    size = sum(arrays.values()) * (4 if ct == "float" else 8)
    if size > SHARED_LIMIT:
        raise Unsupported(f"Svd: the GPU target keeps a matrix's work arrays in one block's shared memory "
                          f"({SHARED_LIMIT} bytes); {m}x{n} {x.dtype} matrices need {size}: use device_target='CPU' "
                          "for them (cuSOLVER is not wired)")
    shared = " ".join(f"__shared__ {ct} {name}[{count}];" for name, count in arrays.items())
    return "\n".join([
        MATH_CONSTANTS + shared, svd_jacobi.jacobi_constants(k),
        f"  for (int64_t t = blockIdx.x; t < {b}; t += gridDim.x) {{",
        "if (threadIdx.x == 0) {", svd_jacobi.jacobi_steps(k), "}",
        "__syncthreads();", "}"])


# The body is the text the CPU's kernel runs too (jacobi_svd_c.py): in the keys, with the math macros'.
register("Svd", _svd, (svd_jacobi, special))

#: The ops of this module (tests, the GPU suite).
OPS: tuple[str, ...] = ("Svd",)

__all__ = ["OPS"]
