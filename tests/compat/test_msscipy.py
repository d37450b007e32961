"""``mindspore.scipy.linalg``/``optimize``/``fft``, ``device_context``, ``boost``: each program of
tests/compat/msscipy_cases.py against MindSpore 2.10's recorded ``str(result)`` (scripts/record_msscipy.py),
errors included (same exception type). MindSpore's CPU fails at ``lu(permute_l=True)``: that case is checked
against SciPy, as are the solvers, ``linear_sum_assignment`` (ties included) and ``minimize`` on larger
problems; ``threads_num``'s effect is checked in a subprocess (it can be set once per process)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.fft
import scipy.linalg
import scipy.optimize

import opbuild as ms
from opbuild.device_context import cpu, gpu
from opbuild.scipy import fft
from opbuild.scipy import linalg as L
from opbuild.scipy.optimize import linear_sum_assignment, minimize
from tests.compat._util import same_printed
from tests.compat.msscipy_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "msscipy.json").read_text())
# MindSpore 2.10's CPU fails at lu(permute_l=True) (an int32 by float32 MatMul): checked against SciPy below.
_MS_FAILS = {"lu_permute_l"}


def _run(name: str) -> object:
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    return env["result"]


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in FIXTURE[n] and n not in _MS_FAILS))
def test_program_matches_mindspore(name, pynative_mode):
    got = str(_run(name))
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" in FIXTURE[n] and n not in _MS_FAILS))
def test_error_matches_mindspore(name, pynative_mode):
    kind = FIXTURE[name]["error"].split(":")[0]
    with pytest.raises((TypeError, ValueError, RuntimeError)) as info:
        _run(name)
    assert type(info.value).__name__ == kind, f"{name}: opbuild {info.value!r}, MindSpore {FIXTURE[name]['error']}"


def test_linear_sum_assignment_against_scipy():
    rng = np.random.default_rng(0)
    for trial in range(60):
        # Small integer costs: many ties, which must be broken as SciPy's (and MindSpore's) solver breaks them.
        cost = rng.integers(0, 4, (rng.integers(1, 8), rng.integers(1, 8))).astype(np.float64)
        rows, cols = linear_sum_assignment(ms.Tensor(cost), bool(trial % 2))
        want_rows, want_cols = scipy.optimize.linear_sum_assignment(cost, maximize=bool(trial % 2))
        np.testing.assert_array_equal(rows.asnumpy(), want_rows)
        np.testing.assert_array_equal(cols.asnumpy(), want_cols)


def test_linear_sum_assignment_refuses_what_it_cannot_assign():
    with pytest.raises(ValueError, match="infeasible"):
        linear_sum_assignment(ms.Tensor(np.array([[np.inf, 1.0], [np.inf, 2.0]])), False)
    with pytest.raises(ValueError, match="NaN"):
        linear_sum_assignment(ms.Tensor(np.array([[np.nan, 1.0], [1.0, 2.0]])), False)
    with pytest.raises(ValueError, match="2-D"):
        linear_sum_assignment(ms.Tensor(np.zeros(3)), False)


def test_minimize_against_scipy():
    def rosen(x):
        return ms.ops.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    x0 = np.array([1.3, 0.7, 0.8, 1.9, 1.2])
    want = scipy.optimize.minimize(scipy.optimize.rosen, x0, method="BFGS", jac=scipy.optimize.rosen_der)
    for method in ("BFGS", "LBFGS"):
        got = minimize(rosen, ms.Tensor(x0), method=method)
        assert got.success and got.status == 0
        np.testing.assert_allclose(got.x.asnumpy(), want.x, atol=1e-5)
    # A given jac is used instead of autodiff (a wrong one leads elsewhere).
    got = minimize(rosen, ms.Tensor(x0), method="BFGS",
                   jac=lambda x: ms.Tensor(scipy.optimize.rosen_der(x.asnumpy())))
    np.testing.assert_allclose(got.x.asnumpy(), want.x, atol=1e-5)


def test_minimize_bad_options_say_what_is_wrong():
    x0 = ms.Tensor(np.zeros(2))
    with pytest.raises(ValueError, match="'BFGS' or 'LBFGS'"):
        minimize(lambda x: ms.ops.reduce_sum(x), x0, method="LAGRANGE")
    with pytest.raises(TypeError, match="unknown BFGS options"):
        minimize(lambda x: ms.ops.reduce_sum(x), x0, method="BFGS", options={"history_size": 3})


def test_dct_against_scipy(graph_mode):
    from tests.helpers import FnCell

    x = np.random.default_rng(1).standard_normal((3, 5, 4))
    for n, axis in ((None, -1), (3, 1), (7, 0)):
        got = FnCell(lambda t, n=n, axis=axis: fft.dct(t, n=n, axis=axis))(ms.Tensor(x)).asnumpy()
        np.testing.assert_allclose(got, scipy.fft.dct(x, n=n, axis=axis, norm="ortho"), atol=1e-12)
        got = fft.idct(ms.Tensor(x), n=n, axis=axis).asnumpy()
        np.testing.assert_allclose(got, scipy.fft.idct(x, n=n, axis=axis, norm="ortho"), atol=1e-12)
    np.testing.assert_allclose(fft.idctn(fft.dctn(ms.Tensor(x))).asnumpy(), x, atol=1e-12)
    np.testing.assert_allclose(fft.dctn(ms.Tensor(x), s=(6, 2), axes=(2, 0)).asnumpy(),
                               scipy.fft.dctn(x, s=(6, 2), axes=(2, 0), norm="ortho"), atol=1e-12)


def test_grad_accumulation_runs_eagerly_in_graph_mode(graph_mode):
    got = str(_run("grad_accumulation_momentum"))
    want = FIXTURE["grad_accumulation_momentum"]["str"]
    assert same_printed(got, want), f"opbuild {got!r}, MindSpore {want!r}"


def test_grad_accumulation_refuses_to_be_traced(graph_mode):
    from opbuild import nn
    from opbuild.boost import GradientAccumulation

    net = nn.Dense(2, 1)
    ga = GradientAccumulation(2, nn.SGD(net.trainable_params(), 0.1))

    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ga = ga

        def construct(self, loss, g_w, g_b):
            return self.ga(loss, (g_w, g_b))

    with pytest.raises(RuntimeError, match="cannot run inside a traced"):
        Step()(ms.Tensor(1.0), ms.Tensor(np.ones((1, 2), np.float32)), ms.Tensor(np.ones(1, np.float32)))
    with pytest.raises(ValueError, match="positive int"):
        GradientAccumulation(0, ga.optimizer)


def test_every_case_is_recorded():
    assert sorted(set(CASES) - set(FIXTURE)) == []


def test_lu_permute_l_against_scipy(pynative_mode):
    assert FIXTURE["lu_permute_l"]["error"].startswith("TypeError: For 'MatMul'")
    g = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.5, 4.0, 1.0]], np.float32)
    pl, u = L.lu(ms.Tensor(g), permute_l=True)
    want_pl, want_u = scipy.linalg.lu(g, permute_l=True)
    assert pl.dtype == ms.float32
    np.testing.assert_allclose(pl.asnumpy(), want_pl, rtol=1e-6)
    np.testing.assert_allclose(u.asnumpy(), want_u, rtol=1e-6, atol=1e-6)


@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")  # the singular matrices are meant
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (3, 6), (7, 7)])
def test_lu_against_scipy(shape, pynative_mode):
    a = np.random.default_rng(shape[1]).standard_normal(shape)
    a[:, 0] = 0.0  # a zero pivot column, which getrf leaves unscaled
    p, low, up = L.lu(ms.Tensor(a))
    want_p, want_l, want_u = scipy.linalg.lu(a)
    assert p.dtype == ms.int32
    np.testing.assert_array_equal(p.asnumpy(), want_p)
    np.testing.assert_allclose(low.asnumpy(), want_l, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(up.asnumpy(), want_u, rtol=1e-10, atol=1e-12)
    if shape[0] == shape[1]:
        lu_, piv = L.lu_factor(ms.Tensor(a))
        want_lu, want_piv = scipy.linalg.lu_factor(a)
        np.testing.assert_allclose(lu_.asnumpy(), want_lu, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(piv.asnumpy(), want_piv)


def test_lu_traces_in_graph_mode(graph_mode):
    from tests.helpers import FnCell

    g = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.5, 4.0, 1.0]], np.float32)
    lu_, piv = FnCell(L.lu_factor)(ms.Tensor(g))
    want_lu, want_piv = scipy.linalg.lu_factor(g)
    np.testing.assert_allclose(lu_.asnumpy(), want_lu, rtol=1e-6)
    np.testing.assert_array_equal(piv.asnumpy(), want_piv)


def _sym(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, n))
    return x + x.T


@pytest.mark.parametrize("n", [1, 4, 9])
def test_eigh_against_scipy(n, pynative_mode):
    a = _sym(n, n)
    w, v = L.eigh(ms.Tensor(a))
    want_w, want_v = scipy.linalg.eigh(a)
    np.testing.assert_allclose(w.asnumpy(), want_w, atol=1e-9 * n)
    # Eigenvectors up to sign: compare |v^T v_scipy| with the identity.
    np.testing.assert_allclose(np.abs(v.asnumpy().T @ want_v), np.eye(n), atol=1e-6)


def test_solve_and_factor_against_scipy(pynative_mode):
    rng = np.random.default_rng(3)
    m = rng.standard_normal((5, 5))
    spd = m @ m.T + 5 * np.eye(5)
    b = rng.standard_normal((5, 3))
    np.testing.assert_allclose(L.inv(ms.Tensor(m)).asnumpy(), scipy.linalg.inv(m), rtol=1e-8, atol=1e-10)
    c = L.cho_factor(ms.Tensor(spd), lower=True)
    np.testing.assert_allclose(L.cho_solve(c, ms.Tensor(b)).asnumpy(), scipy.linalg.solve(spd, b), rtol=1e-8)
    for trans in (0, 1, "T"):
        for lower in (False, True):
            got = L.solve_triangular(ms.Tensor(m), ms.Tensor(b), trans=trans, lower=lower, unit_diagonal=lower)
            want = scipy.linalg.solve_triangular(m, b, trans=trans, lower=lower, unit_diagonal=lower)
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-7, atol=1e-9)
    x, res, rank, sv = L.lstsq(ms.Tensor(m[:, :3]), ms.Tensor(b), driver="gelsd")
    want_x, want_res, want_rank, want_sv = scipy.linalg.lstsq(m[:, :3], b, lapack_driver="gelsd")
    np.testing.assert_allclose(x.asnumpy(), want_x, rtol=1e-8)
    np.testing.assert_allclose(res.asnumpy(), want_res, rtol=1e-8)
    assert int(rank.asnumpy()) == want_rank
    np.testing.assert_allclose(sv.asnumpy(), want_sv, rtol=1e-8)


def test_bad_arguments_say_what_is_wrong():
    a = ms.Tensor(np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match="trans must be"):
        L.solve_triangular(a, a, trans=3)
    with pytest.raises(TypeError, match="lower must be a bool"):
        L.cholesky(a, lower=1)
    with pytest.raises(TypeError, match="c_and_lower"):
        L.cho_solve(a, a)
    with pytest.raises(ValueError, match="driver must be"):
        L.lstsq(a, a, driver="qr")


def test_gpu_answers_follow_the_cuda_probe():
    from opbuild.targets.cuda.device import probe

    assert gpu.is_available() == bool(probe().ok)
    if probe().ok:
        assert gpu.device_count() == 1
    else:
        with pytest.raises(RuntimeError, match="no GPU is available"):
            gpu.device_count()
    assert cpu.is_available() and cpu.device_count() == 1


def test_threads_num_sets_openmp_and_refuses_a_second_call(tmp_path):
    import subprocess
    import sys

    code = ("import os\nfrom opbuild.device_context import cpu\ncpu.threads_num(3)\n"
            "print(os.environ['OMP_NUM_THREADS'])\n"
            "try:\n    cpu.op_tuning.threads_num(2)\n"
            "except RuntimeError as e:\n    print('refused', 'once' in str(e))\n")
    src = str(Path(__file__).resolve().parents[2] / "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": src}, cwd=tmp_path).stdout.split()
    assert out == ["3", "refused", "True"]

