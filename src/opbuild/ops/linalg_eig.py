"""The eigen-decomposition of general real matrices: MindSpore's ``Eig`` primitive (``ops.eig``,
``ops.eigvals``), a LAPACK kernel (geev of the OpenBLAS the other linalg kernels call) over the last two axes of
a float32/float64 tensor, batched over the leading ones, giving complex64/complex128 results.

Order and scale as MindSpore's CPU kernel returns them: the eigenvalues sorted by increasing absolute value
(a selection sort that swaps, so equal magnitudes keep LAPACK's order: a conjugate pair with the positive
imaginary part first), each eigenvector of unit 2-norm. **Difference**: an eigenvector is defined up to a
complex phase; opbuild's is LAPACK's (its largest component real), which MindSpore's solver need not pick
(docs/mindspore-compat.md). ``compute_v=False`` gives a 0-D zero as the second output, where MindSpore gives
a 0-D tensor it leaves unset. A matrix LAPACK cannot decompose (no convergence) gives NaN. Gradients flow
through the eigenvalues (not the eigenvectors).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from . import gradlib as G
from . import scratch_plan as S
from .linalg import LAPACK_FLOATS, _matrix, _mm, _mT, _normalizer
from .primitive import Primitive, apply, defop
from .registry import allow_complex, grad_rule, same_dtype

_COMPLEX = {"float32": "complex64", "float64": "complex128"}


def _eig_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    if ins and ins[0].dtype in ("complex64", "complex128"):
        raise ShapeError("Eig", "complex inputs are not supported by opbuild's Eig (real float32/float64 only)",
                         list(ins))
    dt = same_dtype("Eig", ins, LAPACK_FLOATS)
    n, _ = _matrix("Eig", ins[0], ins)
    cdt = _COMPLEX[dt]
    vectors = TensorType(ins[0].shape, cdt) if attrs["compute_v"] else TensorType((), cdt)
    return [TensorType(ins[0].shape[:-1], cdt), vectors]


def sort_by_magnitude(values: np.ndarray, vectors: np.ndarray | None) -> None:
    """In place, MindSpore's order: for each position, the smallest magnitude of the rest swapped into it."""
    n = values.shape[0]
    for i in range(n):
        k = i + int(np.argmin(np.abs(values[i:])))
        if k != i:
            values[[i, k]] = values[[k, i]]
            if vectors is not None:
                vectors[:, [i, k]] = vectors[:, [k, i]]


def _eig_ref(attrs: dict, x: np.ndarray):
    cdt = np.dtype(_COMPLEX[x.dtype.name])
    batch, n = x.shape[:-2], x.shape[-1]
    vals = np.zeros((*batch, n), cdt)
    vecs = np.zeros(x.shape, cdt)
    for idx in np.ndindex(*batch):
        w, v = np.linalg.eig(x[idx].astype(np.float64))
        w, v = w.astype(np.complex128), v.astype(np.complex128)
        sort_by_magnitude(w, v)
        vals[idx], vecs[idx] = w, v
    return vals, (vecs if attrs["compute_v"] else np.zeros((), cdt))


@defop(infer=_eig_infer, reference=_eig_ref, normalize=_normalizer("Eig", compute_v=False), n_inputs=1,
       multi_output=True, workspace=S.workspace_of(S.eig), status=S.lapack_status("Eig"))
class Eig(Primitive):
    """``Eig(compute_v=False)(x) -> (eigen_values, eigen_vectors)``: the complex eigenvalues of each square
    real matrix, by increasing magnitude, and (``compute_v``) the unit eigenvectors in the columns (else a 0-D
    zero)."""

    def __init__(self, compute_v: bool = False):
        super().__init__(compute_v=compute_v)


allow_complex("Eig")


@grad_rule("Eig")
def _eig_grad(attrs, ins, outs, douts):
    """Through the eigenvalues: dλ = diag(V^-1 dA V), whose transpose (JAX's convention for complex
    cotangents, docs/fft.md) is dA = Re(V^-T diag(gλ) V^T) for a real A. V^-1 comes from the real block
    matrix [[Vr, -Vi], [Vi, Vr]], whose inverse is [[Xr, -Xi], [Xi, Xr]]. Undefined for a defective matrix;
    through the eigenvectors: refused."""
    if attrs["compute_v"] and douts[1] is not None:
        raise NotImplementedError("the gradient of Eig through the eigenvectors is not implemented in opbuild; "
                                  "differentiate the eigenvalues only (ops.eigvals) or stop the gradient")
    x, gw = ins[0], douts[0]
    nd = len(x.shape)
    vec = outs[1] if attrs["compute_v"] else apply("Eig", {"compute_v": True}, [x])[1]
    vr, vi = apply("Real", {}, [vec]), apply("Imag", {}, [vec])
    top = apply("Concat", {"axis": nd - 1}, [vr, G.neg(vi)])
    bottom = apply("Concat", {"axis": nd - 1}, [vi, vr])
    inv = apply("MatrixInverse", {"adjoint": False}, [apply("Concat", {"axis": nd - 2}, [top, bottom])])
    n = x.shape[-1]

    def block(row: int) -> object:
        shape = tuple(inv.shape)
        return apply("Slice", {"begin": (0,) * (nd - 2) + (row, 0), "size": (*shape[:-2], n, n)}, [inv])

    xr, xi = block(0), block(n)
    cr = apply("ExpandDims", {"axis": nd - 1}, [apply("Real", {}, [gw])])  # (..., n, 1): scales rows of V^T
    ci = apply("ExpandDims", {"axis": nd - 1}, [apply("Imag", {}, [gw])])
    vrt, vit = _mT(vr), _mT(vi)
    br = G.sub(G.mul(cr, vrt), G.mul(ci, vit))
    bi = G.add(G.mul(cr, vit), G.mul(ci, vrt))
    return [G.sub(_mm(xr, br, ta=True), _mm(xi, bi, ta=True))]


PRIMITIVES: dict[str, type[Primitive]] = {"Eig": Eig}
__all__ = ["PRIMITIVES", "Eig", "sort_by_magnitude"]
