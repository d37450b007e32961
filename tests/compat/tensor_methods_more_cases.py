"""Programs over the Tensor methods of core/tensor_methods_more.py and core/tensor_methods_inplace.py (``acos``,
``cummax``, ``kthvalue``, ``scatter_``, ``index_add_``, ...): scripts/record_tensor_methods_more.py records
MindSpore 2.10's ``str(result)`` of each, tests/compat/test_tensor_methods_more.py compares opbuild's. Each program
runs with ``ms`` and ``np`` and sets ``result``; ``O(r)`` gives a Tensor (or a tuple of them) as its dtype and
values, floats rounded to 4 digits."""

PRELUDE = (
    "def O(r):\n"
    "    if isinstance(r, (tuple, list)):\n"
    "        return [O(i) for i in r]\n"
    "    a = r.asnumpy()\n"
    "    if a.dtype.kind == 'c':\n"
    "        return (str(r.dtype), a.real.round(4).tolist(), a.imag.round(4).tolist())\n"
    "    return (str(r.dtype), a.astype(np.float64).round(4).tolist() if a.dtype.kind == 'f' else a.tolist())\n"
    "x = ms.Tensor(np.array([[0.5, -0.25], [0.75, 0.1]], np.float32))\n"
    "y = ms.Tensor(np.array([[1.5, 2.0], [-3.0, 0.5]], np.float32))\n"
    "a = ms.Tensor(np.array([[4.0, 1.0], [1.0, 3.0]], np.float32))\n"
    "i = ms.Tensor(np.array([[5, -3], [12, 7]], np.int32))\n"
    "v = ms.Tensor(np.array([3.0, 1.0, 2.0, 1.0, 5.0, 4.0], np.float32))\n"
)

UNARY = ("acos", "arccos", "asin", "arcsin", "atan", "arctan", "atanh", "arctanh", "asinh", "arcsinh", "erfinv",
         "digamma", "lgamma", "i0", "sinc", "inv", "isreal", "signbit", "argwhere", "adjoint", "msort")
BINARY = ("atan2", "arctan2", "copysign")
MATRIX = ("det", "matrix_determinant", "logdet", "slogdet", "log_matrix_determinant", "inverse", "cholesky",
          "geqrf")

CASES: dict[str, str] = {}
for _n in UNARY:
    CASES[_n] = f"result = O(x.{_n}())"
for _n in UNARY[:16] + ("inv", "signbit", "isreal", "msort", "sinc", "i0"):  # the dtype rule of an int32 input
    CASES[f"int_{_n}"] = f"result = O((i * 0 + 1).{_n}())"
for _dt in ("int32", "int64", "uint8"):
    for _n in ("inv", "lgamma", "sinc"):
        CASES[f"{_dt}_{_n}_values"] = f"result = O(ms.Tensor(np.array([-3, 2, 1, 4, -1]).astype(np.{_dt})).{_n}())"
CASES.update({  # dtype rules of integer inputs to the other methods
    "int_atan2": "result = O(i.atan2(i + 1))",
    "int_copysign": "result = O(i.copysign(y))",
    "int_ldexp": "result = O(i.ldexp(ms.Tensor(np.array([[1, 2], [0, 3]], np.int32))))",
    "int_cummax": "result = O(i.cummax(0))",
    "int_cummin": "result = O(i.cummin(1))",
    "int_logcumsumexp": "result = O(i.logcumsumexp(0))",
    "int_nanmedian": "result = O(i.nanmedian())",
    "int_hardshrink": "result = O(i.hardshrink(6))",
    "int_copysign_int": "result = O(i.copysign(-i))",
    "int_signbit_neg": "result = O((-i).signbit())",
    "int_diagflat": "result = O(i.diagflat())",
    "int_renorm": "result = O(i.renorm(2, 0, 1.0))",
    "int_det": "result = O(i.det())",
    "int_matrix_power": "result = O(i.matrix_power(2))",
    "int_cross": "result = O(ms.Tensor(np.array([1, 2, 3], np.int32)).cross(ms.Tensor(np.array([0, 1, 5], np.int32))))",
    "int_unsorted_segment_max": "result = O(i.unsorted_segment_max(ms.Tensor(np.array([1, 1], np.int32)), 2))",
    "int_addbmm": "result = O(i.addbmm(ms.ops.stack([i, i]), ms.ops.stack([i, i])))",
    "int_searchsorted": "result = O(ms.Tensor(np.array([1, 3, 5], np.int32)).searchsorted(ms.Tensor(np.array([2, 5], "
                        "np.int32))))",
    "int_masked_select": "result = O(i.masked_select(i > 5))",
    "int_gather_nd": "result = O(i.gather_nd(ms.Tensor(np.array([[1]], np.int32))))",
    "int_isreal": "result = O(i.isreal())",
    "int_i0_float64": "result = O(x.astype(ms.float64).i0())",
})
CASES["bool_sinc"] = "result = O(ms.Tensor([True, True]).sinc())"
for _n in BINARY:
    CASES[_n] = f"result = O(x.{_n}(y))"
for _n in MATRIX:
    CASES[_n] = f"result = O(a.{_n}())"

CASES.update({
    "acosh": "result = O((y.abs() + 1).acosh())",
    "arccosh": "result = O((y.abs() + 1).arccosh())",
    "mvlgamma": "result = O((y.abs() + 2).mvlgamma(2))",
    "eigvals": "result = O(a.eigvals())",
    "ldexp": "result = O(x.ldexp(ms.Tensor(np.array([[1, 2], [3, -1]], np.int32))))",
    "invert": "result = O(i.invert())",
    "bitwise_not": "result = O(i.bitwise_not())",
    "bitwise_not_bool": "result = O(ms.Tensor([True, False]).bitwise_not())",
    "bitwise_left_shift": "result = O(i.bitwise_left_shift(ms.Tensor(np.array([[1, 2], [0, 3]], np.int32))))",
    "bitwise_right_shift": "result = O(i.bitwise_right_shift(ms.Tensor(np.array([[1, 2], [0, 3]], np.int32))))",
    "approximate_equal": "result = O(x.approximate_equal(x + 0.05, 0.1))",
    "hardshrink": "result = O(y.hardshrink(1.0))",
    "hardshrink_default": "result = O(x.hardshrink())",
    "soft_shrink": "result = O(y.soft_shrink(1.0))",
    "masked_select": "result = O(y.masked_select(y > 0))",
    "gather_nd": "result = O(y.gather_nd(ms.Tensor(np.array([[0, 1], [1, 0]], np.int32))))",
    "searchsorted": "result = O(ms.Tensor([1.0, 2.0, 4.0, 8.0]).searchsorted(ms.Tensor([2.0, 5.0])))",
    "searchsorted_right": "result = O(ms.Tensor([1.0, 2.0, 4.0, 8.0]).searchsorted(ms.Tensor([2.0, 5.0]), "
                          "side='right'))",
    "bincount": "result = O(ms.Tensor(np.array([0, 2, 2, 5], np.int32)).bincount())",
    "bincount_weights": "result = O(ms.Tensor(np.array([0, 2, 2], np.int32)).bincount(ms.Tensor([0.5, 1.0, 2.0]), "
                        "minlength=5))",
    "histc": "result = O(v.histc(4))",
    "histc_range": "result = O(v.histc(bins=3, min=1.0, max=4.0))",
    "kthvalue": "result = O(y.kthvalue(1))",
    "kthvalue_dim": "result = O(y.kthvalue(2, dim=0, keepdim=True))",
    "top_k": "result = O(v.top_k(2))",
    "nanmedian": "result = O(ms.Tensor(np.array([[1.0, np.nan, 3.0], [4.0, 2.0, 6.0]], np.float32)).nanmedian())",
    "quantile": "result = O(v.quantile(0.25))",
    "nanquantile": "result = O(y.nanquantile(0.5, axis=1, keepdims=True))",
    "cummax": "result = O(v.cummax(0))",
    "cummin": "result = O(y.cummin(1))",
    "logcumsumexp": "result = O(y.logcumsumexp(1))",
    "unique": "result = O(v.unique())",
    "unique_all": "result = O(v.unique(return_inverse=True, return_counts=True))",
    "unique_dim": "result = O(ms.Tensor(np.array([[1, 2], [1, 2], [0, 3]], np.int32)).unique(dim=0, "
                  "return_inverse=True))",
    "unique_consecutive": "result = O(ms.Tensor(np.array([1, 1, 2, 2, 3, 1], np.int32)).unique_consecutive("
                          "return_inverse=True, return_counts=True))",
    "unique_with_pad": "result = O(ms.Tensor(np.array([1, 1, 5, 2], np.int32)).unique_with_pad(0))",
    "unsorted_segment_max": "result = O(y.unsorted_segment_max(ms.Tensor(np.array([1, 1], np.int32)), 2))",
    "unsorted_segment_min": "result = O(v.unsorted_segment_min(ms.Tensor(np.array([0, 1, 0, 1, 2, 2], "
                            "np.int32)), 3))",
    "unsorted_segment_prod": "result = O(v.unsorted_segment_prod(ms.Tensor(np.array([0, 1, 0, 1, 2, 2], "
                             "np.int32)), 3))",
    "dsplit": "result = O(ms.Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 4)).dsplit(2))",
    "hsplit": "result = O(ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4)).hsplit([1, 3]))",
    "vsplit": "result = O(ms.Tensor(np.arange(8, dtype=np.float32).reshape(4, 2)).vsplit(2))",
    "tensor_split": "result = O(v.tensor_split(4))",
    "tensor_split_axis": "result = O(y.tensor_split([1], axis=1))",
    "diagflat": "result = O(ms.Tensor([1.0, 2.0]).diagflat(1))",
    "diagonal_scatter": "result = O(y.diagonal_scatter(ms.Tensor([9.0, 8.0])))",
    "select_scatter": "result = O(y.select_scatter(ms.Tensor([7.0, 6.0]), 0, 1))",
    "slice_scatter": "result = O(ms.Tensor(np.zeros((4, 2), np.float32)).slice_scatter(y, 0, 1, 4, 2))",
    "index_fill": "result = O(y.index_fill(1, ms.Tensor(np.array([0], np.int32)), 5.0))",
    "inplace_update": "result = O(y.inplace_update(ms.Tensor([[9.0, 9.0]]), ms.Tensor(np.array([1], np.int32))))",
    "reverse_sequence": "result = O(ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)).reverse_sequence("
                        "ms.Tensor(np.array([2, 3], np.int32)), seq_dim=1))",
    "renorm": "result = O(y.renorm(2, 0, 1.0))",
    "unfold": "result = O(ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).unfold(2, stride=2))",
    "fold": "result = O(ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 4)).fold(ms.Tensor([4, 4]), 2, "
            "stride=2))",
    "col2im": "result = O(ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)).col2im("
              "ms.Tensor(np.array([4, 4], np.int32)), [2, 2], [1, 1], [0, 0], [2, 2]))",
    "cholesky_inverse": "result = O(a.cholesky().cholesky_inverse())",
    "cholesky_upper": "result = O(a.cholesky(upper=True))",
    "cholesky_solve": "result = O(y.cholesky_solve(a.cholesky()))",
    "triangular_solve": "result = O(y.triangular_solve(a.triu()))",
    "triangular_solve_lower_t": "result = O(y.triangular_solve(a.tril(), upper=False, transpose=True))",
    "qr": "result = O(a.qr())",
    "orgqr": "h, tau = a.geqrf()\nresult = O(h.orgqr(tau))",
    "ormqr": "h, tau = a.geqrf()\nresult = O(h.ormqr(tau, y))",
    "lstsq": "result = O(y.lstsq(a))",
    "matrix_power": "result = O(a.matrix_power(3))",
    "addbmm": "result = O(x.addbmm(ms.ops.stack([x, y]), ms.ops.stack([y, a]), beta=0.5, alpha=2))",
    "cross": "result = O(ms.Tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 2.0]]).cross(ms.Tensor([[0.0, 1.0, 0.0], "
             "[3.0, 0.0, 1.0]]), dim=1))",
    "cov": "result = O(ms.Tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]).cov())",
    "cov_correction": "result = O(ms.Tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]).cov(correction=0))",
    "fills": "result = O(i.fills(2.0))",
    "multinomial_shape": "result = x.abs().multinomial(3).asnumpy().shape",
    "random_categorical_shape": "r = y.random_categorical(4)\nresult = (r.asnumpy().shape, str(r.dtype))",
    "bernoulli_shape": "r = x.abs().bernoulli()\nresult = (r.asnumpy().shape, str(r.dtype))",
    "uniform_shape": "r = y.uniform(1.0, 2.0)\nresult = (r.asnumpy().shape, str(r.dtype))",
    # ---- in place: the tensor after the call (every program ends reading a tensor: MindSpore reports a kernel's
    # failure when the data is read, which must happen within the program that ran it) -------------------------------
    "addmm_": "x.addmm_(y, a, beta=0.5, alpha=2)\nresult = O(x)",
    "sign_": "y.sign_()\nresult = O(y)",
    "erfinv_": "x.erfinv_()\nresult = O(x)",
    "fill_diagonal_": "y.fill_diagonal_(7.0)\nresult = O(y)",
    "fill_diagonal_wrap": "z = ms.Tensor(np.zeros((5, 2), np.float32))\nz.fill_diagonal_(1.0, wrap=True)\n"
                          "result = O(z)",
    "index_add_": "y.index_add_(0, ms.Tensor(np.array([1, 0], np.int32)), x, alpha=2)\nresult = O(y)",
    "index_copy_": "y.index_copy_(1, ms.Tensor(np.array([1], np.int64)), ms.Tensor([[9.0], [8.0]]))\n"
                   "result = O(y)",
    "index_fill_": "y.index_fill_(0, ms.Tensor(np.array([1], np.int64)), -1.0)\nresult = O(y)",
    "index_put_": "y.index_put_((ms.Tensor(np.array([0, 1], np.int32)), ms.Tensor(np.array([1, 1], np.int32))), "
                  "ms.Tensor([5.0, 6.0]))\nresult = O(y)",
    "index_put_accumulate": "y.index_put_([ms.Tensor(np.array([0, 0], np.int64))], ms.Tensor([1.0, 1.0]), True)\n"
                            "result = O(y)",
    "masked_scatter_": "y.masked_scatter_(y > 0, ms.Tensor([7.0, 8.0, 9.0, 10.0]))\nresult = O(y)",
    "put_": "y.put_(ms.Tensor(np.array([3, 0], np.int64)), ms.Tensor([1.0, 2.0]))\nresult = O(y)",
    "scatter_": "y.scatter_(1, ms.Tensor(np.array([[1], [0]], np.int64)), ms.Tensor([[5.0], [6.0]]))\n"
                "result = O(y)",
    "scatter_value": "y.scatter_(0, ms.Tensor(np.array([[1, 0]], np.int64)), 4.0)\nresult = O(y)",
    "scatter_reduce": "y.scatter_(1, ms.Tensor(np.array([[1], [0]], np.int64)), ms.Tensor([[5.0], [6.0]]), "
                      "reduce='add')\nresult = O(y)",
    "scatter_add": "result = O(y.scatter_add(1, ms.Tensor(np.array([[1, 1], [0, 1]], np.int64)), x))",
    "scatter_add_nd": "result = O(y.scatter_add(ms.Tensor(np.array([[0, 1], [0, 1]], np.int32)), "
                      "ms.Tensor([1.0, 2.0])))",
    "scatter_add_": "y.scatter_add_(0, ms.Tensor(np.array([[1, 0]], np.int64)), x)\nresult = O(y)",
    "normal_shape": "y.normal_(1.0, 0.5)\nresult = (y.asnumpy().shape, str(y.dtype))",
    "exponential_shape": "y.exponential_(2.0)\nresult = (y.asnumpy().shape, str(y.dtype))",
    "bernoulli_": "y.bernoulli_(1.0)\nresult = O(y)",
    # ---- backward hooks: on an argument of the differentiated function, then on an intermediate ------------------
    # (MindSpore's grad reads the function's __module__: a program's functions take it from __name__)
    "register_hook": "__name__ = 'tensor_methods_more_cases'\nseen = []\n"
                     "def hk(g):\n    seen.append(g.asnumpy().tolist())\n    return g * 10\n"
                     "def f(t):\n    return (t * t).sum()\n"
                     "def g(t):\n    u = t * 3\n    u.register_hook(hk)\n    return (u * u).sum()\n"
                     "v2 = ms.Tensor(np.array([1.0, 2.0], np.float32))\n"
                     "h = v2.register_hook(hk)\nn = len(v2.hooks())\ng1 = O(ms.grad(f)(v2))\nh.remove()\n"
                     "g2 = O(ms.grad(f)(v2))\nh2 = v2.register_hook(hk)\ng3 = O(ms.grad(g)(v2))\n"
                     "v2.remove_hook(h2.id)\ng4 = O(ms.grad(g)(v2))\n"
                     "result = (n, g1, g2, g3, g4, seen, len(v2.hooks()))",
    # ---- device and exchange -------------------------------------------------------------------------------
    "device": "result = x.device",
    "is_meta": "result = x.is_meta",
    "init": "result = x.init",
    "dlpack": "result = O(ms.Tensor.from_dlpack(x.to_dlpack()))",
    "pin_memory": "result = O(x.pin_memory())",
})
for _n in ("scatter_sub", "scatter_mul", "scatter_div", "scatter_max", "scatter_min"):
    CASES[_n] = (f"r = y.{_n}(ms.Tensor(np.array([[0, 1], [1, 0]], np.int32)), ms.Tensor([2.0, 4.0]))\n"
                 "result = (O(r), O(y))")

CASES = {name: PRELUDE + code for name, code in CASES.items()}
