"""The linear-algebra family (ops/linalg.py, LAPACK kernels) against NumPy, in PyNative and in a compiled graph:
values, shapes, batches, dtypes, the failure convention (NaN), the gradients of inverse and det, errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(11)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def run(fn, *arrays, mode="pynative"):
    """``fn`` on Tensors of ``arrays``: eagerly, or compiled as a Cell's graph in GRAPH_MODE."""
    ts = [Tensor(a) for a in arrays]
    out = _Fn(fn)(*ts) if mode == "graph" else fn(*ts)
    return [o.asnumpy() for o in out] if isinstance(out, (tuple, list)) else out.asnumpy()


def _spd(shape, dtype):
    a = RNG.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


TOL = {"float32": 2e-4, "float64": 1e-10}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 5, 5)])
def test_inverse_det_match_numpy(shape, dtype, mode):
    a = (RNG.standard_normal(shape) + 2 * np.eye(shape[-1])).astype(dtype)
    inv = run(ops.inverse, a, mode=mode)
    assert inv.dtype == dtype and inv.shape == shape
    np.testing.assert_allclose(inv, np.linalg.inv(a.astype(np.float64)), rtol=TOL[dtype], atol=TOL[dtype])
    det = run(ops.det, a, mode=mode)
    assert det.shape == shape[:-2]
    np.testing.assert_allclose(det, np.linalg.det(a.astype(np.float64)), rtol=TOL[dtype])
    np.testing.assert_allclose(run(ops.matrix_determinant, a, mode=mode), det)


def test_matrix_inverse_adjoint_and_singular():
    a = RNG.standard_normal((3, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.MatrixInverse(adjoint=True)(Tensor(a)).asnumpy(), np.linalg.inv(a.T), rtol=1e-4,
                               atol=1e-4)
    singular = np.stack([np.ones((2, 2)), np.eye(2)]).astype(np.float64)
    inv = ops.inverse(Tensor(singular)).asnumpy()
    assert np.isnan(inv[0]).all() and np.allclose(inv[1], np.eye(2))
    assert ops.det(Tensor(singular)).asnumpy().tolist() == [0.0, 1.0]


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_and_solve(upper, mode):
    a = _spd((2, 4, 4), np.float64)
    c = run(lambda x: ops.cholesky(x, upper=upper), a, mode=mode)
    low = np.linalg.cholesky(a)
    np.testing.assert_allclose(c, np.swapaxes(low, -1, -2) if upper else low, rtol=1e-10, atol=1e-12)
    b = RNG.standard_normal((2, 4, 3))
    y = run(lambda r, f: ops.cholesky_solve(r, f, upper=upper), b, c, mode=mode)
    np.testing.assert_allclose(y, np.linalg.solve(a, b), rtol=1e-9, atol=1e-10)


def test_cholesky_not_positive_definite_gives_nan():
    a = np.stack([-np.eye(3), 2 * np.eye(3)]).astype(np.float32)
    c = ops.cholesky(Tensor(a)).asnumpy()
    assert np.isnan(c[0]).all()
    np.testing.assert_allclose(c[1], np.sqrt(2) * np.eye(3), rtol=1e-6)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("mode_", ["reduced", "complete"])
def test_qr_matches_numpy(shape, mode_, mode):
    a = RNG.standard_normal(shape).astype(np.float32)
    q, r = run(lambda x: ops.qr(x, mode=mode_), a, mode=mode)
    q_ref, r_ref = np.linalg.qr(a.astype(np.float64), mode=mode_)
    assert q.shape == q_ref.shape and r.shape == r_ref.shape
    # The same LAPACK routines (geqrf + orgqr) as NumPy's: the same signs.
    np.testing.assert_allclose(q, q_ref, atol=1e-5)
    np.testing.assert_allclose(r, r_ref, atol=1e-5)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_reconstructs_and_matches_singular_values(shape, full, mode):
    a = RNG.standard_normal(shape)
    s, u, v = run(lambda x: ops.svd(x, full_matrices=full), a, mode=mode)
    u_ref, s_ref, vt_ref = np.linalg.svd(a, full_matrices=full)
    assert (s.shape, u.shape, v.shape) == (s_ref.shape, u_ref.shape, np.swapaxes(vt_ref, -1, -2).shape)
    np.testing.assert_allclose(s, s_ref, rtol=1e-12)
    k = s.shape[-1]
    rebuilt = (u[..., :, :k] * s[..., None, :]) @ np.swapaxes(v[..., :, :k], -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-12)
    assert np.allclose(np.swapaxes(u, -1, -2) @ u, np.eye(u.shape[-1]), atol=1e-12)
    only_s = ops.svd(Tensor(a), compute_uv=False)
    np.testing.assert_allclose(only_s.asnumpy(), s_ref, rtol=1e-12)


@pytest.mark.parametrize("lower,adjoint", [(True, False), (False, False), (True, True)])
def test_matrix_triangular_solve(lower, adjoint):
    a = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((2, 4, 3))
    y = ops.MatrixTriangularSolve(lower=lower, adjoint=adjoint)(Tensor(a), Tensor(b)).asnumpy()
    t = np.tril(a) if lower else np.triu(a)
    np.testing.assert_allclose((np.swapaxes(t, -1, -2) if adjoint else t) @ y, b, atol=1e-10)


def numeric(f, a):
    """Central finite differences of the scalar ``f`` at ``a``."""
    g = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        d = np.zeros_like(a)
        d[idx] = 1e-6
        g[idx] = (f(a + d) - f(a - d)) / 2e-6
    return g


def test_gradients_of_inverse_and_det_match_finite_differences():
    a = (RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float64)
    w = RNG.standard_normal((2, 3, 3))

    g_inv = ms.grad(lambda x: (ops.inverse(x) * Tensor(w)).sum())(Tensor(a)).asnumpy()
    np.testing.assert_allclose(g_inv, numeric(lambda x: (np.linalg.inv(x) * w).sum(), a), rtol=1e-5, atol=1e-7)
    g_det = ms.grad(lambda x: ops.det(x).sum())(Tensor(a)).asnumpy()
    np.testing.assert_allclose(g_det, numeric(lambda x: np.linalg.det(x).sum(), a), rtol=1e-5, atol=1e-7)


def test_fftshift_matches_numpy(mode):
    x = np.arange(42).reshape(6, 7).astype(np.float32)
    np.testing.assert_array_equal(run(ops.fftshift, x, mode=mode), np.fft.fftshift(x))
    np.testing.assert_array_equal(run(ops.ifftshift, x, mode=mode), np.fft.ifftshift(x))
    np.testing.assert_array_equal(run(lambda t: ops.fftshift(t, dim=-1), x, mode=mode), np.fft.fftshift(x, axes=-1))
    np.testing.assert_array_equal(run(lambda t: ops.ifftshift(t, dim=(0,)), x, mode=mode),
                                  np.fft.ifftshift(x, axes=0))


def test_errors_name_the_problem():
    with pytest.raises(ShapeError, match="square"):
        ops.inverse(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ShapeError, match="rank >= 2"):
        ops.det(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="float32 or float64"):
        ops.cholesky(Tensor(np.eye(2, dtype=np.int32)))
    with pytest.raises(ValueError, match="mode"):
        ops.qr(Tensor(np.eye(2, dtype=np.float32)), mode="r")
    with pytest.raises(ShapeError, match="right-hand side"):
        ops.cholesky_solve(Tensor(np.ones((3, 1), np.float32)), Tensor(np.eye(2, dtype=np.float32)))
    with pytest.raises(ValueError, match="out of range"):
        ops.fftshift(Tensor(np.ones(3, np.float32)), dim=2)


@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve_matches_numpy(adjoint, mode):
    a = RNG.standard_normal((2, 4, 4)).astype(np.float32) + 2 * np.eye(4, dtype=np.float32)
    b = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    y = run(lambda m, r: ops.matrix_solve(m, r, adjoint=adjoint), a, b, mode=mode)
    a64 = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(y, np.linalg.solve(a64.astype(np.float64), b), rtol=2e-4, atol=2e-4)
    singular = ops.matrix_solve(Tensor(np.ones((2, 2))), Tensor(np.ones((2, 1)))).asnumpy()
    assert np.isnan(singular).all()


@pytest.mark.parametrize("adjoint", [False, True])
def test_solver_gradients_match_finite_differences(adjoint):
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b, w = RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 3, 2))
    at = (lambda m: np.swapaxes(m, -1, -2)) if adjoint else (lambda m: m)
    ga, gb = ms.grad(lambda m, r: (ops.matrix_solve(m, r, adjoint=adjoint) * Tensor(w)).sum(), grad_position=(0, 1))(
        Tensor(a), Tensor(b))
    np.testing.assert_allclose(ga.asnumpy(), numeric(lambda m: (np.linalg.solve(at(m), b) * w).sum(), a), atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), numeric(lambda r: (np.linalg.solve(at(a), r) * w).sum(), b), atol=1e-6)
    for lower in (True, False):
        _check_triangular_grads(lower, adjoint, a, b, w, at)


def _check_triangular_grads(lower, adjoint, a, b, w, at):
    solve = ops.MatrixTriangularSolve(lower=lower, adjoint=adjoint)
    tri = np.tril if lower else np.triu
    ga, gb = ms.grad(lambda m, r: (solve(m, r) * Tensor(w)).sum(), grad_position=(0, 1))(Tensor(a), Tensor(b))
    np.testing.assert_allclose(ga.asnumpy(), numeric(lambda m: (np.linalg.solve(at(tri(m)), b) * w).sum(), a),
                               atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), numeric(lambda r: (np.linalg.solve(at(tri(a)), r) * w).sum(), b),
                               atol=1e-6)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradients_match_finite_differences(upper):
    spd = _spd((2, 3, 3), np.float64)
    w = RNG.standard_normal((2, 3, 3))
    fac = (lambda m: np.swapaxes(np.linalg.cholesky(m), -1, -2)) if upper else np.linalg.cholesky

    def sym_chol(m):  # Cholesky reads one triangle: differentiate through the symmetric matrix it stands for
        t = np.triu(m) if upper else np.tril(m)
        return fac(t + np.swapaxes(t, -1, -2) - t * np.eye(3))

    g = ms.grad(lambda m: (ops.cholesky(m, upper=upper) * Tensor(w)).sum())(Tensor(spd)).asnumpy()
    want = numeric(lambda m: (sym_chol(m) * w).sum(), spd)
    # The rule returns the symmetric gradient: an off-diagonal pair shares the one-triangle derivative.
    sym_want = np.where(np.eye(3, dtype=bool), want, 0.5 * (want + np.swapaxes(want, -1, -2)))
    np.testing.assert_allclose(g, sym_want, atol=1e-6)
    c = np.swapaxes(np.linalg.cholesky(spd), -1, -2) if upper else np.linalg.cholesky(spd)
    b = RNG.standard_normal((2, 3, 2))
    wb = RNG.standard_normal((2, 3, 2))
    tri = np.triu if upper else np.tril

    def solve(r, f):
        f = tri(f)
        low = np.swapaxes(f, -1, -2) if upper else f
        return np.linalg.solve(low @ np.swapaxes(low, -1, -2), r)

    gb, gc = ms.grad(lambda r, f: (ops.cholesky_solve(r, f, upper=upper) * Tensor(wb)).sum(), grad_position=(0, 1))(
        Tensor(b), Tensor(c))
    np.testing.assert_allclose(gb.asnumpy(), numeric(lambda r: (solve(r, c) * wb).sum(), b), atol=1e-6)
    np.testing.assert_allclose(gc.asnumpy(), numeric(lambda f: (solve(b, f) * wb).sum(), c), atol=1e-6)


def test_qr_gradient_is_refused_svd_gradients_match_torch():
    x = Tensor(RNG.standard_normal((3, 3)))
    with pytest.raises(NotImplementedError, match="gradients of Qr"):
        ms.grad(lambda t: ops.qr(t)[1].sum())(x)
    with pytest.raises(NotImplementedError, match="full_matrices=True and a non-square"):
        ms.grad(lambda t: ops.svd(t, full_matrices=True)[1].sum())(Tensor(RNG.standard_normal((4, 3))))
    torch = pytest.importorskip("torch")
    for shape in ((2, 4, 3), (3, 5), (4, 4)):
        a = RNG.standard_normal(shape)
        k = min(shape[-2:])
        w, mm = RNG.standard_normal(k), RNG.standard_normal(shape)

        def loss_ms(t, w=w, mm=mm):  # invariant under the signs of each (u_i, v_i) pair
            s, u, v = ops.svd(t)
            return ((u * Tensor(w) @ ops.swapaxes(v, -1, -2)) * Tensor(mm)).sum() + (s * Tensor(w)).sum()

        got = ms.grad(loss_ms)(Tensor(a)).asnumpy()
        ta = torch.tensor(a, requires_grad=True)
        tu, ts, tvh = torch.linalg.svd(ta, full_matrices=False)
        (((tu * torch.tensor(w)) @ tvh) * torch.tensor(mm)).sum().add((ts * torch.tensor(w)).sum()).backward()
        np.testing.assert_allclose(got, ta.grad.numpy(), atol=1e-9)


def test_factor_ops_match_numpy(mode):
    a = RNG.standard_normal((2, 5, 3))
    y, tau = run(ops.geqrf, a, mode=mode)
    q = run(ops.orgqr, y, tau, mode=mode)
    q_ref, r_ref = np.linalg.qr(a)
    np.testing.assert_allclose(q, q_ref, atol=1e-12)  # LAPACK's reflectors, NumPy's QR: the same signs
    np.testing.assert_allclose(np.triu(y[..., :3, :]), r_ref, atol=1e-12)
    from opbuild.ops.linalg_factors import _geqrf_ref, _orgqr_ref
    y_ref, tau_ref = _geqrf_ref({}, a)
    np.testing.assert_allclose(y, y_ref, atol=1e-12)
    np.testing.assert_allclose(tau, tau_ref, atol=1e-12)
    np.testing.assert_allclose(_orgqr_ref({}, y, tau), q_ref, atol=1e-12)
    spd = _spd((2, 3, 3), np.float64)
    for upper in (False, True):
        low = np.linalg.cholesky(spd)
        c = np.swapaxes(low, -1, -2) if upper else low
        np.testing.assert_allclose(run(functools.partial(ops.cholesky_inverse, upper=upper), c, mode=mode),
                                   np.linalg.inv(spd), rtol=1e-10)
    sign, logabs = run(ops.slogdet, a[:, :3, :], mode=mode)
    ref_sign, ref_log = np.linalg.slogdet(a[:, :3, :])
    np.testing.assert_array_equal(sign, ref_sign)
    np.testing.assert_allclose(logabs, ref_log, rtol=1e-12)
    m = RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    for n in (0, 1, 2, 5, -1, -3):
        np.testing.assert_allclose(run(functools.partial(ops.matrix_power, n=n), m, mode=mode),
                                   np.linalg.matrix_power(m, n), rtol=1e-9, atol=1e-12)


def test_slogdet_and_cholesky_inverse_gradients():
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    g = ms.grad(lambda t: ops.slogdet(t)[1].sum())(Tensor(a)).asnumpy()
    np.testing.assert_allclose(g, numeric(lambda t: np.linalg.slogdet(t)[1].sum(), a), atol=1e-6)
    g = ms.grad(lambda t: ops.logdet(t).sum())(Tensor(a)).asnumpy()
    np.testing.assert_allclose(g, numeric(lambda t: np.log(np.linalg.det(t)).sum(), a), atol=1e-6)
    c = np.linalg.cholesky(_spd((2, 3, 3), np.float64))
    w = RNG.standard_normal((2, 3, 3))
    g = ms.grad(lambda t: (ops.cholesky_inverse(t) * Tensor(w)).sum())(Tensor(c)).asnumpy()
    # MindSpore 2.10 reads the whole factor (tests/compat/test_dtype_fixes.py): so does the gradient
    want = numeric(lambda f: (np.linalg.inv(f @ np.swapaxes(f, -1, -2)) * w).sum(), c)
    np.testing.assert_allclose(g, want, atol=1e-6)
    with pytest.raises(NotImplementedError, match="Geqrf and Orgqr"):
        ms.grad(lambda t: ops.geqrf(t)[0].sum())(Tensor(a))
