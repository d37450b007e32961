"""The linear-algebra ops and fftshift against MindSpore 2.10's own results (tests/fixtures/mindspore/
linalg_random.npz, recorded by scripts/record_linalg_random.py on the same inputs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "linalg_random.npz"


def inputs() -> dict[str, np.ndarray]:
    """The recording script's inputs (scripts/record_linalg_random.py ``inputs``)."""
    rng = np.random.default_rng(25)
    a = rng.standard_normal((2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    return {"square": a.astype(np.float32), "square64": a, "spd": spd.astype(np.float32),
            "tall": rng.standard_normal((2, 5, 3)).astype(np.float32),
            "rhs": rng.standard_normal((2, 4, 2)).astype(np.float32)}


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(FIXTURE))


@pytest.fixture(scope="module")
def x():
    return inputs()


def _close(got: Tensor, want: np.ndarray, tol: float = 1e-4) -> None:
    got = got.asnumpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_inverse_det_cholesky(ref, x):
    _close(ops.inverse(Tensor(x["square"])), ref["inverse"])
    _close(ops.inverse(Tensor(x["square64"])), ref["inverse64"], 1e-10)
    _close(ops.det(Tensor(x["square"])), ref["det"])
    _close(ops.det(Tensor(x["square64"])), ref["det64"], 1e-10)
    _close(ops.cholesky(Tensor(x["spd"])), ref["cholesky"])
    _close(ops.cholesky(Tensor(x["spd"]), upper=True), ref["cholesky_upper"])
    _close(ops.cholesky_solve(Tensor(x["rhs"]), ops.cholesky(Tensor(x["spd"]))), ref["cholesky_solve"])


def test_qr_matches_mindspore(ref, x):
    q, r = ops.qr(Tensor(x["tall"]))
    _close(q, ref["qr_q"])
    _close(r, ref["qr_r"])
    q, r = ops.qr(Tensor(x["tall"]), mode="complete")
    assert q.shape == ref["qr_complete_q"].shape and r.shape == ref["qr_complete_r"].shape
    _close(r, ref["qr_complete_r"])
    # The last m - n columns of a complete q span the orthogonal complement: only that subspace is unique.
    n = r.shape[-1]
    _close(q[..., :n], ref["qr_complete_q"][..., :n])


def test_svd_matches_mindspore_up_to_signs(ref, x):
    s, u, v = ops.svd(Tensor(x["tall"]))
    _close(s, ref["svd_s"])
    # Singular vectors are unique up to a sign per pair: compare with the signs aligned column by column.
    sign = np.sign(np.sum(u.asnumpy() * ref["svd_u"], axis=-2, keepdims=True))
    np.testing.assert_allclose(u.asnumpy() * sign, ref["svd_u"], atol=1e-4)
    np.testing.assert_allclose(v.asnumpy() * sign, ref["svd_v"], atol=1e-4)
    _, u, v = ops.svd(Tensor(x["tall"]), full_matrices=True)
    assert list(u.shape) == ref["svd_full_u_shape"].tolist() and list(v.shape) == ref["svd_full_v_shape"].tolist()


def test_gradients_match_mindspore(ref, x):
    _close(ms.grad(lambda t: ops.det(t).sum())(Tensor(x["square"])), ref["det_grad"], 2e-4)
    _close(ms.grad(lambda t: ops.inverse(t).sum())(Tensor(x["square"])), ref["inverse_grad"], 2e-4)


def test_fftshift_matches_mindspore(ref):
    t = Tensor(np.arange(30).reshape(5, 6))
    assert np.array_equal(ops.fftshift(t).asnumpy(), ref["fftshift"])
    assert np.array_equal(ops.ifftshift(t, dim=1).asnumpy(), ref["ifftshift_dim1"])


def test_matrix_solve_matches_mindspore(ref, x):
    _close(ops.matrix_solve(Tensor(x["square"]), Tensor(x["rhs"])), ref["matrix_solve"], 2e-4)
    _close(ops.matrix_solve(Tensor(x["square"]), Tensor(x["rhs"]), adjoint=True), ref["matrix_solve_adjoint"], 2e-4)


def test_matrix_solve_gradients_match_mindspore(ref, x):
    ga, gb = ms.grad(lambda m, r: ops.matrix_solve(m, r).sum(), grad_position=(0, 1))(Tensor(x["square"]),
                                                                                      Tensor(x["rhs"]))
    _close(ga, ref["matrix_solve_grad_matrix"], 5e-4)
    _close(gb, ref["matrix_solve_grad_rhs"], 5e-4)


def test_cholesky_gradient_matches_torch(x):
    # MindSpore 2.10 has no CPU kernel for CholeskyGrad; torch's rule returns the same symmetric gradient.
    torch = pytest.importorskip("torch")
    w = np.random.default_rng(5).standard_normal((2, 4, 4)).astype(np.float32)
    spd = x["spd"].astype(np.float64)
    t = torch.tensor(spd, requires_grad=True)
    (torch.linalg.cholesky(t) * torch.tensor(w, dtype=torch.float64)).sum().backward()
    got = ms.grad(lambda a: (ops.cholesky(a) * Tensor(w.astype(np.float64))).sum())(Tensor(spd)).asnumpy()
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-8, atol=1e-10)


SIGNS = np.array([[[2.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]], np.float32)


def test_slogdet_logdet_match_mindspore(ref, x):
    sign, logabs = ops.slogdet(Tensor(x["square"]))
    _close(sign, ref["slogdet_sign"])
    _close(logabs, ref["slogdet_logabs"])
    sign, logabs = ops.slogdet(Tensor(SIGNS))  # positive, negative and zero determinants
    _close(sign, ref["slogdet_signs_sign"])
    np.testing.assert_array_equal(np.isinf(logabs.asnumpy()), np.isinf(ref["slogdet_signs_logabs"]))
    got = ops.logdet(Tensor(SIGNS)).asnumpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref["logdet_signs"]))
    np.testing.assert_allclose(got, ref["logdet_signs"], rtol=1e-5)  # nan and -inf compare equal to themselves


def test_geqrf_orgqr_cholesky_inverse_match_mindspore(ref, x):
    y, tau = ops.geqrf(Tensor(x["tall"]))
    _close(y, ref["geqrf_y"])
    _close(tau, ref["geqrf_tau"])
    _close(ops.orgqr(y, tau), ref["orgqr"])
    _close(ops.cholesky_inverse(ops.cholesky(Tensor(x["spd"][0]))), ref["cholesky_inverse"])
    _close(ops.cholesky_inverse(ops.cholesky(Tensor(x["spd"][0]), upper=True), upper=True),
           ref["cholesky_inverse_upper"])


def test_matrix_power_matches_mindspore(ref, x):
    _close(ops.matrix_power(Tensor(x["square"]), 3), ref["matrix_power_3"], 5e-4)
    _close(ops.matrix_power(Tensor(x["square"]), -2), ref["matrix_power_m2"], 5e-3)
    got = ops.matrix_power(Tensor(np.array([[2, 1], [1, 3]], np.int32)), 3).asnumpy()
    assert got.dtype == ref["matrix_power_int"].dtype and np.array_equal(got, ref["matrix_power_int"])
