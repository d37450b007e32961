"""Programs over ``mindspore.scipy`` (``linalg``, ``optimize``, ``fft``), ``mindspore.device_context`` and
``mindspore.boost.GradientAccumulation``:
scripts/record_msscipy.py records MindSpore 2.10's ``str(result)`` of each, tests/compat/test_msscipy.py
compares opbuild's. Each program runs with ``ms`` and ``np`` and sets ``result``; float results are rounded
lists. The modules are imported by the package's own name (``mindspore`` or ``opbuild``), so the same text runs
under both."""

IMP = "L = __import__(ms.__name__ + '.scipy.linalg', fromlist=['L'])\n"
DC = "D = __import__(ms.__name__ + '.device_context', fromlist=['D'])\n"
A = "a = ms.Tensor(np.array([[4.0, 1.0, 2.0], [1.0, 5.0, 3.0], [2.0, 3.0, 6.0]], np.float32))\n"
G = "g = ms.Tensor(np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.5, 4.0, 1.0]], np.float32))\n"
B = "b = ms.Tensor(np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], np.float32))\n"
V = "v = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))\n"


def r(t: str) -> str:
    """A Tensor's dtype and values rounded to 4 digits."""
    return f"(str({t}.dtype), {t}.shape, {t}.asnumpy().astype(np.float64).round(4).tolist())"


CASES: dict[str, str] = {
    "inv": IMP + G + "result = " + r("L.inv(g)"),
    "inv_f64": IMP + "result = " + r("L.inv(ms.Tensor(np.array([[2.0, 1.0], [1.0, 3.0]])))"),
    "inv_batch": IMP + A + G + "result = " + r("L.inv(ms.ops.stack([a, g]))"),
    "inv_int": IMP + "result = " + r("L.inv(ms.Tensor(np.array([[2, 1], [1, 3]], np.int32)))"),
    "inv_not_square": IMP + B + "result = " + r("L.inv(b)"),
    "cholesky": IMP + A + "result = " + r("L.cholesky(a)"),
    "cholesky_lower": IMP + A + "result = " + r("L.cholesky(a, lower=True)"),
    "cholesky_f64": IMP + "result = " + r("L.cholesky(ms.Tensor(np.array([[4.0, 2.0], [2.0, 3.0]])))"),
    "cho_factor": IMP + A + "c, low = L.cho_factor(a)\nresult = (" + r("c") + ", low)",
    "cho_factor_lower": IMP + A + "c, low = L.cho_factor(a, lower=True)\nresult = (" + r("c") + ", low)",
    "cho_solve": IMP + A + B + "result = " + r("L.cho_solve(L.cho_factor(a), b)"),
    "cho_solve_lower": IMP + A + B + "result = " + r("L.cho_solve(L.cho_factor(a, lower=True), b)"),
    "cho_solve_vector": IMP + A + V + "result = " + r("L.cho_solve(L.cho_factor(a), v)"),
    "eigh": IMP + A + "w, u = L.eigh(a)\nresult = (" + r("w") + ", " + r("ms.ops.abs(u)") + ")",
    "eigh_only": IMP + A + "result = " + r("L.eigh(a, eigvals_only=True)"),
    "eigh_upper": IMP + G + "w, u = L.eigh(g, lower=False)\nresult = (" + r("w") + ", " + r("ms.ops.abs(u)") + ")",
    "eigh_lower_part": IMP + G + "result = " + r("L.eigh(g, eigvals_only=True)"),
    "lu_factor": IMP + G + "lu, piv = L.lu_factor(g)\nresult = (" + r("lu") + ", str(piv.dtype), "
                 "piv.asnumpy().tolist())",
    "lu": IMP + G + "p, l, u = L.lu(g)\nresult = (" + r("p") + ", " + r("l") + ", " + r("u") + ")",
    "lu_permute_l": IMP + G + "pl, u = L.lu(g, permute_l=True)\nresult = (" + r("pl") + ", " + r("u") + ")",
    "lu_rect": IMP + B + "p, l, u = L.lu(b)\nresult = (" + r("p") + ", " + r("l") + ", " + r("u") + ")",
    "solve_triangular": IMP + A + B + "result = " + r("L.solve_triangular(a, b)"),
    "solve_triangular_lower": IMP + A + B + "result = " + r("L.solve_triangular(a, b, lower=True)"),
    "solve_triangular_trans": IMP + A + B + "result = " + r("L.solve_triangular(a, b, trans=1)"),
    "solve_triangular_trans_t": IMP + A + B + "result = " + r("L.solve_triangular(a, b, trans='T', lower=True)"),
    "solve_triangular_unit": IMP + A + B + "result = " + r("L.solve_triangular(a, b, unit_diagonal=True)"),
    "solve_triangular_vector": IMP + G + V + "result = " + r("L.solve_triangular(g, v, lower=True)"),
    "block_diag": IMP + A + B + "result = " + r("L.block_diag(a, b, ms.Tensor(np.array([7.0], np.float32)))"),
    "block_diag_empty": IMP + "result = " + r("L.block_diag()"),
    "block_diag_int": IMP + "result = " + r("L.block_diag(ms.Tensor(np.array([[1, 2]], np.int32)), "
                                              "ms.Tensor(np.array([[3], [4]], np.int32)))"),
    "lstsq": IMP + B + "c = ms.Tensor(np.array([[1.0], [2.0], [4.0]], np.float32))\n"
             "x, res, rank, sv = L.lstsq(b, c)\nresult = (" + r("x") + ", " + r("res") + ", " + r("rank") + ", "
             + r("sv") + ")",
    "lstsq_square": IMP + G + B + "x, res, rank, sv = L.lstsq(g, b)\nresult = (" + r("x") + ", " + r("res")
                    + ", " + r("rank") + ", " + r("sv") + ")",
    "lstsq_gelsd": IMP + B + "c = ms.Tensor(np.array([[1.0], [2.0], [4.0]], np.float32))\n"
                   "x, res, rank, sv = L.lstsq(b, c, driver='gelsd')\nresult = (" + r("x") + ", " + r("res") + ", "
                   + r("rank") + ", " + r("sv") + ")",
    "lstsq_gels": IMP + B + "c = ms.Tensor(np.array([[1.0], [2.0], [4.0]], np.float32))\n"
                  "x, res, rank, sv = L.lstsq(b, c, driver='gels')\nresult = (" + r("x") + ", " + r("res") + ", "
                  + r("rank") + ", " + r("sv") + ")",
    "lstsq_bad_driver": IMP + B + "result = L.lstsq(b, b, driver='qr')",
    "eigh_int": IMP + "result = " + r("L.eigh(ms.Tensor(np.array([[2, 1], [1, 2]], np.int32)), eigvals_only=True)"),
    "eigh_b": IMP + A + "result = L.eigh(a, a)",
    "cholesky_not_square": IMP + B + "result = L.cholesky(b)",
    "block_diag_1d": IMP + "result = " + r("L.block_diag(ms.Tensor(np.array([1.0, 2.0], np.float32)), "
                                             "ms.Tensor(np.array(3.0, np.float32)))"),
    "cpu_available": DC + "result = (D.cpu.is_available(), D.cpu.device_count())",
    "ascend_available": DC + "result = D.ascend.is_available()",
    "ascend_count": DC + "result = D.ascend.device_count()",
    "threads_num_zero": DC + "result = D.cpu.threads_num(0)",
    "threads_num_float": DC + "result = D.cpu.threads_num(2.0)",
    "threads_num_bool": DC + "result = D.cpu.threads_num(True)",
    "all_names": DC + "result = (sorted(D.cpu.__all__), sorted(D.gpu.__all__), sorted(D.ascend.__all__))",
    "linalg_names": IMP + "result = sorted(L.__all__)",
    "lu_factor_int": IMP + "lu, piv = L.lu_factor(ms.Tensor(np.array([[1, 3], [4, 2]], np.int32)))\n"
                     "result = (" + r("lu") + ", piv.asnumpy().tolist())",
    "lu_wide": IMP + B + "p, l, u = L.lu(b.T)\nresult = (" + r("p") + ", " + r("l") + ", " + r("u") + ")",
    "lu_factor_not_square": IMP + B + "result = L.lu_factor(b)",
}

OPT = "O = __import__(ms.__name__ + '.scipy.optimize', fromlist=['O'])\n"
HIMMELBLAU = ("def func(p):\n    x, y = p\n    return (x ** 2 + y - 11.) ** 2 + (x + y ** 2 - 7.) ** 2\n"
              "x0 = ms.Tensor(np.zeros(2).astype(np.float32))\n")
ROSEN = ("def rosen(x):\n    return ms.ops.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)\n"
         "x0 = ms.Tensor(np.array([-1.2, 1.0, 0.5]))\n")
# MindSpore compiles line_search's function from its source, which a program run by exec has not: the Euclidean
# norm Cell (its source is the library's) is the function searched.
SQ = "f = ms.nn.Norm()\nxk = ms.Tensor(np.array([1.8, 1.7]))\n"
# The minimum found, its value, success and status (nfev/njev/nit count opbuild's own line search's steps).
RES = "result = (r.x.asnumpy().round(4).tolist(), round(float(r.fun), 6), r.success, r.status)"
LS = "result = (r.failed, r.nit, r.nfev, r.k, round(r.a_k, 6), round(r.f_k, 6), r.g_k.asnumpy().round(6).tolist())"
LSA = ("rows, cols = O.linear_sum_assignment({})\n"
       "result = (str(rows.dtype), rows.asnumpy().tolist(), cols.asnumpy().tolist())")
C3 = "c = ms.Tensor(np.array([[4., 1., 3.], [2., 0., 5.], [3., 2., 2.]], np.float32))\n"
C9 = "c = ms.Tensor(np.array([[9., 9., 1.], [9., 9., 9.], [0., 5., 9.]], np.float32))\n"

CASES.update({
    "minimize_bfgs": OPT + HIMMELBLAU + "r = O.minimize(func, x0, method='BFGS', options=dict(maxiter=None, "
                     "gtol=1e-6))\n" + RES + "\nresult = result + (r.hess_inv.shape, r.jac.shape)",
    "minimize_lbfgs": OPT + HIMMELBLAU + "r = O.minimize(func, x0, method='LBFGS', options=dict(maxiter=None, "
                      "gtol=1e-6))\n" + RES + "\nresult = result + (r.hess_inv,)",
    "minimize_rosen_bfgs": OPT + ROSEN + "r = O.minimize(rosen, x0, method='bfgs')\n" + RES,
    "minimize_rosen_lbfgs": OPT + ROSEN + "r = O.minimize(rosen, x0, method='LBFGS')\n" + RES,
    "minimize_maxiter": OPT + ROSEN + "r = O.minimize(rosen, x0, method='BFGS', options=dict(maxiter=3))\n"
                        "result = (r.success, r.status, r.nit)",
    "minimize_args": OPT + "def g(x, a):\n    return ms.ops.reduce_sum((x - a) ** 2)\n"
                     "r = O.minimize(g, ms.Tensor(np.zeros(3)), args=(ms.Tensor(np.array([1.0, -2.0, 3.0])),), "
                     "method='BFGS')\n" + RES,
    "minimize_no_method": OPT + ROSEN + "result = O.minimize(rosen, x0)",
    "minimize_args_list": OPT + ROSEN + "result = O.minimize(rosen, x0, args=[1], method='BFGS')",
    "line_search": OPT + SQ + "r = O.line_search(f, xk, ms.Tensor(np.array([-1.0, -1.0])))\n" + LS,
    "line_search_zoom": OPT + SQ + "r = O.line_search(f, xk, ms.Tensor(np.array([-10.0, -10.0])))\n" + LS,
    "line_search_grow": OPT + SQ + "r = O.line_search(f, xk, ms.Tensor(np.array([-0.01, -0.01])))\n" + LS,
    "line_search_ascent": OPT + SQ + "r = O.line_search(f, xk, ms.Tensor(np.array([1.0, 1.0])))\n"
                          "result = (r.failed, r.nit, r.nfev, r.status)",
    "lsa_min": OPT + C3 + LSA.format("c, False"),
    "lsa_max": OPT + C3 + LSA.format("c, True"),
    "lsa_wide": OPT + LSA.format("ms.Tensor(np.array([[4., 1., 3., 7.], [2., 0., 5., 1.]])), False"),
    "lsa_tall": OPT + LSA.format("ms.Tensor(np.array([[4., 1., 3., 7.], [2., 0., 5., 1.]]).T), False"),
    "lsa_limit": OPT + C9 + LSA.format("c, False, ms.Tensor(2)"),
    "lsa_limit_one": OPT + C9 + LSA.format("c, False, ms.Tensor(1)"),
    "lsa_limit_tall": OPT + C9 + LSA.format("c.T, False, ms.Tensor(2)"),
    "lsa_int": OPT + LSA.format("ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)), False"),
    "lsa_empty": OPT + LSA.format("ms.Tensor(np.zeros((0, 3), np.float32)), False"),
    "lsa_maximize_int": OPT + C3 + LSA.format("c, 1"),
    "optimize_names": OPT + "result = sorted(O.__all__)",
})

FFT = "T = __import__(ms.__name__ + '.scipy.fft', fromlist=['T'])\n"
X3 = "x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 1.5 - 20)\n"

CASES.update({
    "dct": FFT + X3 + "result = " + r("T.dct(x)"),
    "dct_int": FFT + "result = " + r("T.dct(ms.Tensor(np.array([1, 2, 3], np.int32)))"),
    "dct_f64_axis": FFT + X3 + "result = " + r("T.dct(x.astype(ms.float64), axis=1)"),
    "dct_n_short": FFT + X3 + "result = " + r("T.dct(x, n=2)"),
    "dct_n_long": FFT + X3 + "result = " + r("T.dct(x, n=6, axis=0, norm='ortho')"),
    "idct": FFT + X3 + "result = " + r("T.idct(x)"),
    "idct_n": FFT + X3 + "result = " + r("T.idct(x, n=5, axis=1)"),
    "dctn": FFT + X3 + "result = " + r("T.dctn(x)"),
    "dctn_axes": FFT + X3 + "result = " + r("T.dctn(x, axes=(0, 2))"),
    "dctn_s": FFT + X3 + "result = " + r("T.dctn(x, s=(2, 5))"),
    "idctn": FFT + X3 + "result = " + r("T.idctn(x)"),
    "idctn_s_axes": FFT + X3 + "result = " + r("T.idctn(x, s=(3, 2), axes=(2, 0))"),
    "dct_type1": FFT + X3 + "result = T.dct(x, type=1)",
    "dct_norm_backward": FFT + X3 + "result = T.dct(x, norm='backward')",
    "dct_n_zero": FFT + X3 + "result = T.dct(x, n=0)",
    "fft_names": FFT + "result = sorted(T.__all__)",
})

GA = ("BO = __import__(ms.__name__ + '.boost', fromlist=['BO'])\n"
      "net = ms.nn.Dense(2, 1, weight_init='ones', bias_init='zeros')\n"
      "opt = ms.nn.{opt}(net.trainable_params(), 0.1)\nga = BO.GradientAccumulation({steps}, opt)\nresult = []\n"
      "for step in range(5):\n"
      "    g = (ms.Tensor(np.array([[1.0, 2.0]], np.float32) * (step + 1)), ms.Tensor(np.array([0.5], np.float32)))\n"
      "    loss = ga(ms.Tensor(float(step)), g)\n"
      "    result.append((float(loss), net.weight.asnumpy().round(5).tolist(), net.bias.asnumpy().round(5).tolist(), "
      "int(ga._accumulation_step.asnumpy()), [p.name for p in ga._grad_accumulation], "
      "ga._grad_accumulation[0].asnumpy().round(5).tolist()))\n")

CASES.update({
    "grad_accumulation_sgd": GA.format(opt="SGD", steps=2),
    "grad_accumulation_momentum": GA.format(opt="Momentum", steps=3).replace("0.1)", "0.1, 0.9)"),
    "grad_accumulation_one": GA.format(opt="Adam", steps=1),
})
