"""Cases of the linear-algebra, special-function, bitwise and numeric operators of the seventh round (igamma,
betainc, nextafter, lu_solve/lu_unpack, lstsq, matrix norms, eig, svd signs, batch_dot, the matrix-diagonal
family, bitwise ops on integers, aminmax/isclose/min fixes, stft and FFTWithSize), written once against a
MindSpore-shaped namespace: scripts/record_linalg_special.py runs them on real MindSpore 2.10 into
tests/fixtures/linalg_special.npz; tests/compat/test_linalg_special.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``; the outputs are compared by :func:`outputs`.
Names in :data:`EAGER_ONLY` are compared in PyNative mode only. This module imports neither MindSpore nor
opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(2510)

A7 = np.array([0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 30.0], np.float32)
X7 = np.array([0.3, 2.0, 2.0, 3.0, 4.0, 5.0, 40.0], np.float32)
A_EDGE = np.array([0.0, 1.0, -1.0, 2.0, 3.0, 1.5], np.float32)
X_EDGE = np.array([1.0, 0.0, 1.0, -1.0, np.inf, 0.5], np.float32)
BA = np.array([0.3, 0.1, 0.4, 2.0, 5.0, 1.0], np.float32)
BB = np.array([0.4, 0.5, 0.9, 3.0, 0.7, 1.0], np.float32)
BX = np.array([0.2, 0.6, 0.5, 0.35, 0.9, 0.25], np.float32)


def _grad(ms, fn, n):
    return ms.grad(fn, grad_position=tuple(range(n)))


SPECIAL: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "igamma": (lambda ms, ops, a, x: ops.igamma(a, x), [A7, X7]),
    "igamma_f64": (lambda ms, ops, a, x: ops.igamma(a, x), [A7.astype(np.float64), X7.astype(np.float64)]),
    "igamma_broadcast": (lambda ms, ops, a, x: ops.igamma(a, x),
                         [np.array([[0.5], [3.0]], np.float32), np.array([0.1, 1.0, 7.5], np.float32)]),
    "igamma_edges": (lambda ms, ops, a, x: ops.igamma(a, x), [A_EDGE, X_EDGE]),
    "igammac": (lambda ms, ops, a, x: ops.igammac(a, x), [A7, X7]),
    "igammac_edges": (lambda ms, ops, a, x: ops.igammac(a, x), [A_EDGE, X_EDGE]),
    "Igamma": (lambda ms, ops, a, x: ops.Igamma()(a, x), [A7, X7]),
    "Igammac": (lambda ms, ops, a, x: ops.Igammac()(a, x), [A7.astype(np.float64), X7.astype(np.float64)]),
    "nn_IGamma": (lambda ms, ops, a, x: ms.nn.IGamma()(a, x), [A7, X7]),
    "igamma_grad": (lambda ms, ops, a, x: _grad(ms, lambda p, q: ops.igamma(p, q).sum(), 2)(a, x),
                    [A7[:6].astype(np.float64), X7[:6].astype(np.float64)]),
    "igammac_grad": (lambda ms, ops, a, x: _grad(ms, lambda p, q: ops.igammac(p, q).sum(), 2)(a, x),
                     [A7[:6], X7[:6]]),
    "Betainc": (lambda ms, ops, a, b, x: ops.Betainc()(a, b, x), [BA, BB, BX]),
    "Betainc_f64": (lambda ms, ops, a, b, x: ops.Betainc()(a, b, x),
                    [BA.astype(np.float64), BB.astype(np.float64), BX.astype(np.float64)]),
    "Betainc_edges": (lambda ms, ops, a, b, x: ops.Betainc()(a, b, x),
                      [np.array([1.0, 2.0, 0.5, 1.0], np.float32), np.array([1.0, 2.0, 0.5, 2.0], np.float32),
                       np.array([0.0, 1.0, 0.5, 0.3], np.float32)]),
    "Betainc_grad": (lambda ms, ops, a, b, x: _grad(ms, lambda p, q, r: ops.Betainc()(p, q, r).sum(), 3)(a, b, x),
                     [BA[:4].astype(np.float64), BB[:4].astype(np.float64), BX[:4].astype(np.float64)]),
    "nextafter": (lambda ms, ops, a, b: ops.nextafter(a, b),
                  [np.array([1.0, 2.0, 0.0, 0.0, -1.0, 3.0], np.float32),
                   np.array([2.0, 1.0, 1.0, -1.0, -1.0, np.inf], np.float32)]),
    "nextafter_f64": (lambda ms, ops, a, b: ops.nextafter(a, b),
                      [np.array([1.0, 2.0, 0.0], np.float64), np.array([2.0, 1.0, -1.0], np.float64)]),
    "NextAfter": (lambda ms, ops, a, b: ops.NextAfter()(a, b),
                  [np.array([1.0, -3.5], np.float32), np.array([0.0, -3.0], np.float32)]),
    "nextafter_grad": (lambda ms, ops, a, b: _grad(ms, lambda p, q: ops.nextafter(p, q).sum(), 2)(a, b),
                       [np.array([1.0, 2.0], np.float64), np.array([2.0, 1.0], np.float64)]),
    "Lcm": (lambda ms, ops, a, b: ops.Lcm()(a, b),
            [np.array([7, 8, 9, -4, 0], np.int64), np.array([14, 6, 12, 6, 5], np.int64)]),
    "Lcm_int32": (lambda ms, ops, a, b: ops.Lcm()(a, b),
                  [np.array([7, 8, 9], np.int32), np.array([14, 6, 12], np.int32)]),
    "Gcd": (lambda ms, ops, a, b: ops.Gcd()(a, b),
            [np.array([7, 8, 9, -4, 0], np.int32), np.array([14, 6, 12, 6, 5], np.int32)]),
    "PopulationCount": (lambda ms, ops, x: ops.PopulationCount()(x), [np.array([0, 1, 3, -1, 255], np.int16)]),
    "PopulationCount_int8": (lambda ms, ops, x: ops.PopulationCount()(x), [np.array([0, 7, -1, -128], np.int8)]),
    "PopulationCount_uint8": (lambda ms, ops, x: ops.PopulationCount()(x), [np.array([0, 7, 255], np.uint8)]),
}

LU = np.array([[2.0, 1.0, 1.0], [0.5, 1.0, 1.5], [0.5, 0.0, 2.5]], np.float32)
LU_B = np.array([[[-0.3806, -0.4872, 0.5536], [-0.1287, 0.6508, -0.2396], [0.2583, 0.5239, 0.6902]],
                 [[0.6706, -1.1782, 0.4574], [-0.6401, -0.4779, 0.6701], [0.1015, -0.5363, 0.6165]]], np.float32)
PIV_B = np.array([[1, 3, 3], [2, 3, 3]], np.int32)
M34 = np.arange(12, dtype=np.float32).reshape(3, 4)
R334 = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
R33 = RNG.uniform(-2, 2, (3, 3)).astype(np.float32)
R52 = RNG.uniform(-2, 2, (5, 2)).astype(np.float32)
SVD_X = np.array([[1, 2], [-4, -5], [2, 1]], np.float32)

def _svd_loss(ms, ops, t):
    s, u, v = ops.svd(t)
    wu = ms.Tensor(np.linspace(-1, 1, int(np.prod(u.shape)), dtype=np.float32).reshape(u.shape))
    wv = ms.Tensor(np.linspace(1, -2, int(np.prod(v.shape)), dtype=np.float32).reshape(v.shape))
    return (u * wu).sum() + (v * wv).sum() + s.sum()


LINALG: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "lu_solve": (lambda ms, ops, b, lu, p: ops.lu_solve(b, lu, p),
                 [np.array([[1.0], [3.0], [3.0]], np.float32), LU, np.array([2, 2, 3], np.int32)]),
    "lu_solve_batch": (lambda ms, ops, b, lu, p: ops.lu_solve(b, lu, p),
                       [RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32), LU_B, PIV_B]),
    "lu_solve_f64": (lambda ms, ops, b, lu, p: ops.lu_solve(b, lu, p),
                     [np.array([[1.0, 2.0], [3.0, -1.0], [3.0, 0.5]]), LU.astype(np.float64),
                      np.array([3, 2, 3], np.int32)]),
    "lu_unpack": (lambda ms, ops, lu, p: ops.lu_unpack(lu, p), [LU_B, PIV_B]),
    "lu_unpack_int64_pivots": (lambda ms, ops, lu, p: ops.lu_unpack(lu, p), [LU_B[0], PIV_B[0].astype(np.int64)]),
    "LuUnpack": (lambda ms, ops, lu, p: ops.LuUnpack()(lu, p), [LU_B, PIV_B]),
    "lstsq": (lambda ms, ops, x, a: ops.lstsq(x, a),
              [np.array([[2, 1, 5], [3, 5, 1], [1, 1, 1]], np.float32),
               np.array([[10, 5], [15, 8], [7, 4]], np.float32)]),
    "lstsq_over": (lambda ms, ops, x, a: ops.lstsq(x, a),
                   [RNG.uniform(-2, 2, (5, 3)).astype(np.float32), R52]),
    "lstsq_vector": (lambda ms, ops, x, a: ops.lstsq(x, a),
                     [RNG.uniform(-2, 2, (4, 2)).astype(np.float64), RNG.uniform(-2, 2, 4)]),
    "matrix_norm_fro": (lambda ms, ops, a: ops.matrix_norm(a, ord="fro"), [M34]),
    "matrix_norm_nuc": (lambda ms, ops, a: ops.matrix_norm(a, ord="nuc"), [M34]),
    "matrix_norm_inf": (lambda ms, ops, a: ops.matrix_norm(a, ord=float("inf")), [R334]),
    "matrix_norm_ninf": (lambda ms, ops, a: ops.matrix_norm(a, ord=float("-inf")), [R334]),
    "matrix_norm_1": (lambda ms, ops, a: ops.matrix_norm(a, ord=1, keepdims=True), [R334]),
    "matrix_norm_m1": (lambda ms, ops, a: ops.matrix_norm(a, ord=-1), [R334]),
    "matrix_norm_2": (lambda ms, ops, a: ops.matrix_norm(a, ord=2), [R334]),
    "matrix_norm_m2": (lambda ms, ops, a: ops.matrix_norm(a, ord=-2), [R334]),
    "matrix_norm_nuc_batch": (lambda ms, ops, a: ops.matrix_norm(a, ord="nuc", axis=(0, 2)), [R334]),
    "norm_nuc": (lambda ms, ops, a: ops.norm(a, ord="nuc"), [np.array([[1, 2, 3], [4, 5, 7]], np.float32)]),
    "norm_2_matrix": (lambda ms, ops, a: ops.norm(a, ord=2, dim=(-2, -1)), [R334]),
    "norm_nuc_grad": (lambda ms, ops, a: ms.grad(lambda t: ops.norm(t, ord="nuc"))(a), [R33]),
    "eig_diag": (lambda ms, ops, a: ops.eig(a), [np.array([[1.0, 0.0], [0.0, 2.0]], np.float32)]),
    "eigvals_diag": (lambda ms, ops, a: ops.eigvals(a), [np.array([[1.0, 0.0], [0.0, 2.0]], np.float32)]),
    "eigvals": (lambda ms, ops, a: ops.eigvals(a), [np.array([[0.0, -1.0, 0.5], [1.0, 0.0, 2.0],
                                                                [0.0, 0.0, 3.0]], np.float64)]),
    "eigvals_batch": (lambda ms, ops, a: ops.eigvals(a),
                      [np.array([[[2.0, 1.0], [1.0, 2.0]], [[4.0, 1.0], [2.0, 3.0]]], np.float32)]),
    # Eig(compute_v=False)'s second output is a 0-D tensor whose value MindSpore leaves unset (it changes from
    # one run to the next); the values alone are compared.
    "Eig_values": (lambda ms, ops, a: ops.Eig()(a)[0], [np.array([[2.0, 1.0], [1.0, 2.0]], np.float32)]),
    "Eig_vectors": (lambda ms, ops, a: ops.Eig(True)(a), [np.array([[1.0, 0.0], [0.0, 2.0]], np.float32)]),
    "svd_full": (lambda ms, ops, a: ops.svd(a, full_matrices=True, compute_uv=True), [SVD_X]),
    "svd_reduced": (lambda ms, ops, a: ops.svd(a), [SVD_X]),
    "svd_values": (lambda ms, ops, a: ops.svd(a, compute_uv=False), [R334]),
    "svd_batch": (lambda ms, ops, a: ops.svd(a), [R334]),
    "svd_wide": (lambda ms, ops, a: ops.svd(a, full_matrices=True), [R334[0].T.copy().T[:2]]),
    "svd_grad": (lambda ms, ops, a: ms.grad(lambda t: _svd_loss(ms, ops, t))(a), [R334]),
    "Svd_prim": (lambda ms, ops, a: ops.Svd(full_matrices=True, compute_uv=True)(a), [R33]),
    "batch_dot": (lambda ms, ops, a, b: ops.batch_dot(a, b, (-1, -2)),
                  [RNG.uniform(-1, 1, (2, 2, 3)).astype(np.float32), RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)]),
    "batch_dot_2d": (lambda ms, ops, a, b: ops.batch_dot(a, b, (1, 2)),
                     [RNG.uniform(-1, 1, (2, 2)).astype(np.float32), RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)]),
    "batch_dot_default": (lambda ms, ops, a, b: ops.batch_dot(a, b),
                          [RNG.uniform(-1, 1, (2, 2, 3, 4)).astype(np.float32),
                           RNG.uniform(-1, 1, (2, 5, 4, 3)).astype(np.float32)]),
    "batch_dot_int_axes": (lambda ms, ops, a, b: ops.batch_dot(a, b, 2),
                           [RNG.uniform(-1, 1, (2, 2, 4)).astype(np.float32),
                            RNG.uniform(-1, 1, (2, 5, 4, 5)).astype(np.float32)]),
    "batch_dot_grad": (lambda ms, ops, a, b: ms.grad(lambda p, q: ops.batch_dot(p, q, (-1, -2)).sum(),
                                                     grad_position=(0, 1))(a, b),
                       [RNG.uniform(-1, 1, (2, 2, 3)).astype(np.float32),
                        RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)]),
    "Pdist": (lambda ms, ops, x: ops.Pdist(p=2.0)(x), [np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], np.float32)]),
    "Pdist_p1": (lambda ms, ops, x: ops.Pdist(p=1.0)(x), [R52]),
    "Pdist_default": (lambda ms, ops, x: ops.Pdist()(x), [R52.astype(np.float64)]),
    "LogSpace": (lambda ms, ops, s, e: ops.LogSpace(steps=10, base=10, dtype=ms.float32)(s, e),
                 [np.array(1.0, np.float32), np.array(10.0, np.float32)]),
    "LogSpace_base2": (lambda ms, ops, s, e: ops.LogSpace(steps=5, base=2, dtype=ms.float64)(s, e),
                       [np.array(3.0, np.float32), np.array(-1.0, np.float32)]),
    "LogSpace_default": (lambda ms, ops, s, e: ops.LogSpace()(s, e),
                         [np.array(0.0, np.float32), np.array(2.0, np.float32)]),
}

DIAG_X = np.array([[8.0, 9.0, 0.0], [1.0, 2.0, 3.0], [0.0, 4.0, 5.0]], np.float32)
PART_X = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 8.0, 7.0, 6.0]], np.float32)
SET_D = np.array([[0.0, 9.0, 1.0], [6.0, 5.0, 8.0], [1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)
K = {"m1_1": np.array([-1, 1], np.int32), "1_3": np.array([1, 3], np.int32), "m1_2": np.array([-1, 2], np.int32)}
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _i32(v):
    return np.array(v, np.int32)


def _k(ms, name):
    return ms.Tensor(K[name])


def _w(ms, shape):
    return ms.Tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


DIAG: dict[str, tuple[Callable, list[np.ndarray]]] = {
    **{f"matrix_diag_{al}": (lambda ms, ops, x, p, al=al: ops.matrix_diag(
        x, _k(ms, "m1_1"), ms.Tensor(_i32(3)), ms.Tensor(_i32(3)), p, align=al), [DIAG_X, np.float32(11.0)])
       for al in ALIGNS},
    "matrix_diag_default": (lambda ms, ops, x: ops.matrix_diag(x), [DIAG_X]),
    "matrix_diag_k1": (lambda ms, ops, x: ops.matrix_diag(x, ms.Tensor(_i32(1))), [DIAG_X]),
    "matrix_diag_rect": (lambda ms, ops, x: ops.matrix_diag(x, ms.Tensor(np.array([0, 1], np.int32)),
                                                           ms.Tensor(_i32(3)), ms.Tensor(_i32(5)),
                                                           ms.Tensor(np.float32(-1.0))), [DIAG_X[:2]]),
    **{f"matrix_diag_part_{al}": (lambda ms, ops, x, al=al: ops.matrix_diag_part(
        x, _k(ms, "1_3"), ms.Tensor(np.float32(9.0)), align=al), [PART_X]) for al in ALIGNS},
    "matrix_diag_part_neg": (lambda ms, ops, x: ops.matrix_diag_part(
        x, ms.Tensor(np.array([-2, 0], np.int32)), ms.Tensor(np.float32(0.0))), [PART_X]),
    "matrix_diag_part_batch": (lambda ms, ops, x: ops.matrix_diag_part(
        x, ms.Tensor(np.array([-1, 1], np.int32)), ms.Tensor(np.float32(0.0)), align="LEFT_RIGHT"), [R334]),
    **{f"matrix_set_diag_{al}": (lambda ms, ops, x, d, al=al: ops.matrix_set_diag(x, d, _k(ms, "m1_2"), align=al),
                                 [np.full((3, 4), 7.0, np.float32), SET_D]) for al in ALIGNS},
    "matrix_set_diag_k0": (lambda ms, ops, x, d: ops.matrix_set_diag(x, d),
                           [R334, np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)]),
    "MatrixDiagV3": (lambda ms, ops, x: ops.MatrixDiagV3(align="LEFT_RIGHT")(
        x, _k(ms, "m1_1"), ms.Tensor(_i32(3)), ms.Tensor(_i32(3)), ms.Tensor(np.float32(11.0))), [DIAG_X]),
    "MatrixDiagPartV3": (lambda ms, ops, x: ops.MatrixDiagPartV3(align="RIGHT_LEFT")(
        x, _k(ms, "1_3"), ms.Tensor(np.float32(9.0))), [PART_X]),
    "MatrixSetDiagV3": (lambda ms, ops, x, d: ops.MatrixSetDiagV3(align="RIGHT_LEFT")(x, d, _k(ms, "m1_2")),
                        [np.full((3, 4), 7.0, np.float32), SET_D]),
    "matrix_diag_part_grad": (lambda ms, ops, x: ms.grad(lambda t: (ops.matrix_diag_part(
        t, _k(ms, "1_3"), ms.Tensor(np.float32(0.0))) * _w(ms, (3, 3))).sum())(x), [PART_X]),
    "matrix_set_diag_grad": (lambda ms, ops, x, d: ms.grad(lambda p, q: (ops.matrix_set_diag(
        p, q, _k(ms, "m1_2")) * _w(ms, (3, 4))).sum(), grad_position=(0, 1))(x, d),
                             [np.full((3, 4), 7.0, np.float32), SET_D]),
}

I8 = np.array([0, 1, -1, 7, -128, 127], np.int8)
J8 = np.array([3, -1, 5, 2, 127, -128], np.int8)


def _ints(dt):
    return [I8.astype(dt), J8.astype(dt)]


BITWISE: dict[str, tuple[Callable, list[np.ndarray]]] = {
    **{f"bitwise_{op}_{dt}": (lambda ms, ops, a, b, op=op: getattr(ops, f"bitwise_{op}")(a, b),
                              _ints(dt)) for op in ("and", "or", "xor")
       for dt in ("int8", "int16", "int32", "int64", "uint8")},
    "bitwise_and_bool": (lambda ms, ops, a, b: ops.bitwise_and(a, b),
                         [np.array([True, True, False]), np.array([True, False, False])]),
    "bitwise_xor_bool": (lambda ms, ops, a, b: ops.bitwise_xor(a, b),
                         [np.array([True, True, False]), np.array([True, False, False])]),
    "tensor_and_or_xor": (lambda ms, ops, a, b: (a & b, a | b, a ^ b), _ints("int32")),
    "tensor_and_bool": (lambda ms, ops, a, b: (a & b, a | b, a ^ b),
                        [np.array([True, True, False]), np.array([True, False, False])]),
    "tensor_invert": (lambda ms, ops, a, b: (~a, ~b), [I8.astype(np.int32), np.array([True, False])]),
    "tensor_invert_uint8": (lambda ms, ops, a: ~a, [I8.astype(np.uint8)]),
    "tensor_bitwise_int16": (lambda ms, ops, a, b: (a.bitwise_and(b), a.bitwise_or(b), a.bitwise_xor(b)),
                             _ints("int16")),
}

NAN34 = np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, np.nan]], np.float32)
INT34 = np.array([[2, 5, 1, 6], [3, -7, -2, 4], [8, -4, 1, -3]], np.int64)
WHERE = np.array([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]], bool)

NUMERIC: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "aminmax_none_nan": (lambda ms, ops, x: ops.aminmax(x, axis=None), [NAN34]),
    "aminmax_none_keep": (lambda ms, ops, x: ops.aminmax(x, axis=None, keepdims=True), [NAN34]),
    "aminmax_axis0_nan": (lambda ms, ops, x: ops.aminmax(x, axis=0), [NAN34]),
    "aminmax_nan_first": (lambda ms, ops, x: ops.aminmax(x, axis=0), [NAN34[::-1].copy()]),
    "aminmax_none_nan_first": (lambda ms, ops, x: ops.aminmax(x, axis=None), [NAN34[::-1].copy()]),
    "aminmax_axis1": (lambda ms, ops, x: ops.aminmax(x, axis=1, keepdims=True), [INT34]),
    "isclose_inf_nan": (lambda ms, ops, a, b: ops.isclose(a, b),
                        [np.array([2e6, np.inf, -np.inf, np.inf, np.nan, 1.0, np.inf], np.float32),
                         np.array([2e7, np.inf, -np.inf, -np.inf, np.nan, np.inf, 1.0], np.float32)]),
    "isclose_equal_nan": (lambda ms, ops, a, b: ops.isclose(a, b, equal_nan=True),
                          [np.array([np.nan, 1.0, np.inf], np.float32), np.array([np.nan, 1.0, np.inf], np.float32)]),
    "isclose_rtol": (lambda ms, ops, a, b: ops.isclose(a, b, rtol=1e3),
                     [np.array([1e6, 2e6, 3e6], np.float32), np.array([1.00008e6, 2.00008e7, 3.00008e8], np.float32)]),
    "min_initial_where": (lambda ms, ops, x, w: ops.min(x, axis=1, keepdims=True, initial=0, where=w), [INT34, WHERE]),
    "min_initial_where_none": (lambda ms, ops, x, w: ops.min(x, axis=0, keepdims=True, initial=0, where=w),
                               [INT34, np.zeros((3, 1), bool)]),
    "max_initial_where": (lambda ms, ops, x, w: ops.max(x, axis=1, initial=3, where=w), [INT34, WHERE]),
    "min_initial": (lambda ms, ops, x: ops.min(x, axis=0, initial=-5), [INT34]),
}

SIG = RNG.uniform(-1, 1, (2, 300)).astype(np.float32)
WIN = RNG.uniform(0.2, 1, 64).astype(np.float32)

SPECTRAL: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "stft_default": (lambda ms, ops, x: ops.stft(x, 64), [SIG]),
    "stft_window": (lambda ms, ops, x, w: ops.stft(x, 64, hop_length=20, window=w, return_complex=True), [SIG, WIN]),
    "stft_nocenter": (lambda ms, ops, x, w: ops.stft(x, 64, 16, 48, w[:48], center=False, normalized=True,
                                                     onesided=False, return_complex=True), [SIG, WIN]),
    "stft_constant_pad": (lambda ms, ops, x: ops.stft(x, 32, pad_mode="CONSTANT", return_complex=True), [SIG[0]]),
    "STFT": (lambda ms, ops, x, w: ops.STFT(64, 16, 64, False, True, True)(x, w), [SIG, WIN]),
    "STFT_real": (lambda ms, ops, x, w: ops.STFT(64, 20, 64, True, True, False)(x, w), [SIG[0], WIN]),
    "FFTWithSize_c2c": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=1, inverse=False, real=False)(x),
                        [np.array([2, 1, 2], np.complex64)]),
    "FFTWithSize_ifft": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=1, inverse=True, real=False)(x),
                         [np.array([5, 0.5 + 0.866j, 0.5 - 0.866j], np.complex64)]),
    "FFTWithSize_rfft2": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=2, inverse=False, real=True)(x),
                          [np.array([[2, 1, 2], [3, 1, 6]], np.float32)]),
    "FFTWithSize_irfft2": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=2, inverse=True, real=True,
                                                              signal_sizes=(2, 3))(x),
                           [np.array([[15 + 0j, 5.196j], [-5 + 0j, 1 - 3.464j]], np.complex64)]),
    "FFTWithSize_ortho": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=2, inverse=False, real=False,
                                                             norm="ortho")(x),
                          [RNG.uniform(-1, 1, (2, 3, 4)).astype(np.complex64)]),
    "FFTWithSize_rfft_forward": (lambda ms, ops, x: ops.FFTWithSize(signal_ndim=1, inverse=False, real=True,
                                                                    norm="forward", onesided=False)(x),
                                 [RNG.uniform(-1, 1, (2, 5)).astype(np.float32)]),
}

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {**SPECIAL, **LINALG, **DIAG, **BITWISE, **NUMERIC,
                                                         **SPECTRAL}

EAGER_ONLY = {"lstsq", "lstsq_over", "lstsq_vector"}


def outputs(result) -> list[np.ndarray]:
    """A case's result (a Tensor, a number, or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    out: list[np.ndarray] = []
    for t in items:
        if isinstance(t, (tuple, list)):
            out += outputs(t)
        else:
            out.append(np.asarray(t.asnumpy()) if hasattr(t, "asnumpy") else np.asarray(t))
    return out


__all__ = ["CASES", "EAGER_ONLY", "outputs"]
