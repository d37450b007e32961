"""Properties of the seventh round's linear-algebra and special functions beyond the recorded cases: eig's
decomposition holds, LU round trips, gradients against torch autograd, clear refusals."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

pytestmark = pytest.mark.slow  # dozens of LAPACK and Jacobi kernels, torch and scipy comparisons

RNG = np.random.default_rng(31)


def test_eig_decomposes_and_orders_by_magnitude():
    a = RNG.standard_normal((2, 5, 5))
    w, v = ops.eig(Tensor(a))
    w, v = w.asnumpy(), v.asnumpy()
    assert w.dtype == np.complex128 and v.shape == (2, 5, 5)
    np.testing.assert_allclose(a @ v, v * w[:, None, :], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-12)
    assert (np.diff(np.abs(w), axis=-1) >= -1e-12).all()
    np.testing.assert_allclose(ops.eigvals(Tensor(a.astype(np.float32))).asnumpy(), w, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="eig: A must be square"):
        ops.eig(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(NotImplementedError, match="gradient of Eig through the eigenvectors"):
        ms.grad(lambda t: ops.real(ops.eig(t)[1]).sum())(Tensor(a[0]))


def test_eigenvalue_gradient_matches_torch():
    """MindSpore 2.10 has no Eig gradient ("bprop not defined", recorded by hand); opbuild's is torch's."""
    torch = pytest.importorskip("torch")
    for shape in ((2, 4, 4), (3, 3)):
        a = RNG.standard_normal(shape)

        def loss(t):  # a real function of the eigenvalues that does not depend on their order
            lam = ops.eigvals(t)
            r, i = ops.real(lam), ops.imag(lam)
            return (r * r).sum() + (i * i).sum() * 0.5 + (r * r * r).sum()

        got = ms.grad(loss)(Tensor(a)).asnumpy()
        ta = torch.tensor(a, requires_grad=True)
        lam = torch.linalg.eigvals(ta)
        ((lam.real ** 2).sum() + (lam.imag ** 2).sum() * 0.5 + (lam.real ** 3).sum()).backward()
        np.testing.assert_allclose(got, ta.grad.numpy(), atol=1e-10)


def test_lu_unpack_round_trips_and_lu_solve_solves():
    sl = pytest.importorskip("scipy.linalg")
    a = RNG.standard_normal((4, 4))
    lu, piv = sl.lu_factor(a)
    p, low, up = ops.lu_unpack(Tensor(lu), Tensor((piv + 1).astype(np.int32)))
    np.testing.assert_allclose(p.asnumpy() @ low.asnumpy() @ up.asnumpy(), a, atol=1e-12)
    b = RNG.standard_normal((4, 2))
    x = ops.lu_solve(Tensor(b), Tensor(lu), Tensor((piv + 1).astype(np.int32))).asnumpy()
    np.testing.assert_allclose(a @ x, b, atol=1e-12)
    with pytest.raises(ValueError, match=r"LU_pivots must lie in \[1, 4\]"):
        ops.lu_unpack(Tensor(lu), Tensor(np.array([0, 2, 3, 4], np.int32)))


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
    ga, gb = ms.grad(lambda p, q: (ops.batch_dot(p, q) ** 2).sum(), grad_position=(0, 1))(Tensor(a), Tensor(b))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (torch.bmm(ta, tb) ** 2).sum().backward()
    np.testing.assert_allclose(ga.asnumpy(), ta.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(gb.asnumpy(), tb.grad.numpy(), atol=1e-10)
    m = RNG.standard_normal((3, 4))
    got = ms.grad(lambda t: ops.matrix_norm(t, "nuc") + ops.matrix_norm(t, 2))(Tensor(m)).asnumpy()
    tm = torch.tensor(m, requires_grad=True)
    (torch.linalg.matrix_norm(tm, "nuc") + torch.linalg.matrix_norm(tm, 2)).backward()
    np.testing.assert_allclose(got, tm.grad.numpy(), atol=1e-10)
    x = np.array([0.3, 2.0, 4.0, 7.5])
    aa = np.array([0.5, 1.5, 3.0, 6.0])
    gx = ms.grad(lambda s, t: ops.igamma(s, t).sum(), grad_position=1)(Tensor(aa), Tensor(x)).asnumpy()
    tx = torch.tensor(x, requires_grad=True)
    torch.special.gammainc(torch.tensor(aa), tx).sum().backward()
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-12)


def test_igamma_betainc_match_scipy_and_grad_in_a_by_differences():
    sp = pytest.importorskip("scipy.special")
    a = np.array([0.05, 0.5, 1.0, 3.0, 20.0, 150.0])
    x = np.array([0.01, 0.7, 3.0, 2.5, 25.0, 140.0])
    np.testing.assert_allclose(ops.igamma(Tensor(a), Tensor(x)).asnumpy(), sp.gammainc(a, x), rtol=1e-12)
    np.testing.assert_allclose(ops.igammac(Tensor(a), Tensor(x)).asnumpy(), sp.gammaincc(a, x), rtol=1e-11)
    ga = ms.grad(lambda s, t: ops.igamma(s, t).sum())(Tensor(a), Tensor(x)).asnumpy()
    h = 1e-6 * a
    np.testing.assert_allclose(ga, (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h), rtol=1e-6)
    b, y = np.array([0.3, 2.0, 7.0, 0.9]), np.array([0.01, 0.5, 0.93, 0.999])
    np.testing.assert_allclose(ops.Betainc()(Tensor(a[:4]), Tensor(b), Tensor(y)).asnumpy(),
                               sp.betainc(a[:4], b, y), rtol=1e-11)


def test_refusals_name_the_argument():
    f = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="igamma: input and other must have the same dtype"):
        ops.igamma(f, Tensor(np.ones((2, 3))))
    with pytest.raises(ValueError, match="batch_dot: the summed axes differ in size"):
        ops.batch_dot(f, Tensor(np.ones((2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="matrix_diag_part: align must be one of"):
        ops.matrix_diag_part(f, 0, 0.0, align="UP")
    with pytest.raises(ValueError, match="stft: pad_mode must be"):
        ops.stft(Tensor(np.ones(100, np.float32)), 16, pad_mode="wrap")


@pytest.mark.parametrize("shape", [(3, 2), (2, 5), (4, 4), (2, 7, 3), (15, 15), (20, 16)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_svd_kernel_follows_its_jacobi_reference(shape, dtype):
    from opbuild.ops.svd_jacobi import svd_reference

    x = RNG.standard_normal(shape).astype(dtype)
    x[..., 0, :] *= 3.0
    for full in (False, True):
        s, u, v = ops.svd(Tensor(x), full_matrices=full)
        ws, wu, wv = svd_reference(x, full)
        tol = 2e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(s.asnumpy(), ws, rtol=tol, atol=tol)
        k = min(shape[-2:])
        uk, vk = u.asnumpy()[..., :k], v.asnumpy()[..., :k]
        np.testing.assert_allclose(uk * s.asnumpy()[..., None, :] @ np.swapaxes(vk, -1, -2), x, atol=50 * tol)
        if shape[-1] < 16:  # the Jacobi path: the same vectors, signs included
            np.testing.assert_allclose(u.asnumpy(), wu, atol=20 * tol)
            np.testing.assert_allclose(v.asnumpy(), wv, atol=20 * tol)


def test_svd_of_zero_rank_deficient_and_nan_matrices():
    z = ops.svd(Tensor(np.zeros((3, 2), np.float32)))
    assert (z[0].asnumpy() == 0).all()
    a = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 0.5])
    s = ops.svd(Tensor(a), compute_uv=False).asnumpy()
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=1e-12)
    bad = ops.svd(Tensor(np.array([[1.0, np.nan], [0.0, 1.0]])))
    assert np.isnan(bad[0].asnumpy()).all() and np.isnan(bad[1].asnumpy()).all()


def _torch_grad(torch, fn, *arrays):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(*ts).backward()
    return [t.grad.numpy() for t in ts]


def test_more_gradients_match_torch():
    torch = pytest.importorskip("torch")
    sl = pytest.importorskip("scipy.linalg")
    a = RNG.standard_normal((4, 4))
    lu, piv = sl.lu_factor(a)
    piv1 = Tensor((piv + 1).astype(np.int32))
    b = RNG.standard_normal((4, 3))
    w = RNG.standard_normal((4, 3))
    got = ms.grad(lambda p, q: (ops.lu_solve(p, q, piv1) * Tensor(w)).sum(), grad_position=(0, 1))(
        Tensor(b), Tensor(lu))
    want = _torch_grad(torch, lambda p, q: (torch.linalg.lu_solve(q, torch.tensor(piv + 1, dtype=torch.int32), p)
                                            * torch.tensor(w)).sum(), b, lu)
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g.asnumpy(), t, atol=1e-10)
    x, y = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 2))
    got = ms.grad(lambda p, q: (ops.lstsq(p, q) ** 2).sum(), grad_position=(0, 1))(Tensor(x), Tensor(y))
    want = _torch_grad(torch, lambda p, q: (torch.linalg.lstsq(p, q).solution ** 2).sum(), x, y)
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g.asnumpy(), t, atol=1e-9)
    m = RNG.standard_normal((2, 3, 4))
    for o in ("fro", 1, -1, float("inf"), float("-inf")):
        got = ms.grad(lambda t, o=o: ops.matrix_norm(t, o).sum())(Tensor(m)).asnumpy()
        want = _torch_grad(torch, lambda t, o=o: torch.linalg.matrix_norm(t, o).sum(), m)[0]
        np.testing.assert_allclose(got, want, atol=1e-10)
    p = RNG.standard_normal((5, 3))
    got = ms.grad(lambda t: (ops.pdist(t, 2.0) * Tensor(np.arange(10.0))).sum())(Tensor(p)).asnumpy()
    want = _torch_grad(torch, lambda t: (torch.pdist(t, 2.0) * torch.arange(10.0, dtype=torch.float64)).sum(), p)[0]
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_stft_matches_torch_values_and_gradient():
    torch = pytest.importorskip("torch")
    sig = RNG.standard_normal((2, 200))
    win = RNG.uniform(0.5, 1.0, 40)
    got = ops.stft(Tensor(sig), 64, 16, 40, Tensor(win), return_complex=True).asnumpy()
    want = torch.stft(torch.tensor(sig), 64, 16, 40, torch.tensor(win), center=True, pad_mode="reflect",
                      return_complex=True).numpy()
    np.testing.assert_allclose(got, want, atol=1e-10)
    wr = RNG.standard_normal(got.shape)
    g = ms.grad(lambda t: (ops.real(ops.stft(t, 64, 16, 40, Tensor(win), return_complex=True)) * Tensor(wr)).sum())(
        Tensor(sig)).asnumpy()
    tw = _torch_grad(torch, lambda t: (torch.stft(t, 64, 16, 40, torch.tensor(win), return_complex=True).real
                                       * torch.tensor(wr)).sum(), sig)[0]
    np.testing.assert_allclose(g, tw, atol=1e-10)


def test_lu_unpack_gradient_matches_torch_and_diag_band_needs_known_k_in_a_graph():
    torch = pytest.importorskip("torch")
    lu = RNG.standard_normal((2, 4, 3))
    piv = np.array([[2, 2, 3], [4, 3, 3]], np.int32)
    wl, wu = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 3, 3))
    got = ms.grad(lambda t: (ops.lu_unpack(t, Tensor(piv))[1] * Tensor(wl)).sum()
                  + (ops.lu_unpack(t, Tensor(piv))[2] * Tensor(wu)).sum())(Tensor(lu)).asnumpy()
    tl = torch.tensor(lu, requires_grad=True)
    _, low, up = torch.lu_unpack(tl, torch.tensor(piv))
    ((low * torch.tensor(wl)).sum() + (up * torch.tensor(wu)).sum()).backward()
    np.testing.assert_allclose(got, tl.grad.numpy(), atol=1e-12)
    p, _, _ = ops.lu_unpack(Tensor(lu), Tensor(piv))
    np.testing.assert_allclose(p.asnumpy(), torch.lu_unpack(torch.tensor(lu), torch.tensor(piv))[0].numpy())

    class Net(ms.nn.Cell):
        def construct(self, x, k):
            return ops.matrix_diag_part(x, k, 0.0)

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(ValueError, match="matrix_diag_part: k must have a known value"):
            Net()(Tensor(np.ones((3, 3), np.float32)), Tensor(np.array([0, 1], np.int32)))
    finally:
        ms.set_context(mode=old)
