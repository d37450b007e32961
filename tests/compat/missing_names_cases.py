"""Programs over the MindSpore 2.10 names opbuild lacked (``mindspore.mint``, ``Tensor.mH``, ``ops.cond``,
``ops.function.*_func`` names, ``floor_divide_``/``remainder_``, ``random_``/``uniform_``, ``ops.LSTM``,
``prim_arg_register``, ``get_vm_impl_fn``) whose ``str(result)`` scripts/record_missing_names.py records from
MindSpore 2.10 and tests/compat/test_missing_names.py compares with opbuild's. Each program runs with ``ms``
(the framework) and ``np`` and sets ``result``; none imports a framework itself. Float results are rounded
lists so that the comparison does not hang on the last printed digit."""

X = "x = ms.Tensor(np.array([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]], np.float32))\n"
Y = "y = ms.Tensor(np.array([[0.5, 0.25, 0.75], [0.875, 0.375, 0.125]], np.float32))\n"
IA = "a = ms.Tensor(np.array([12, 7, -6, 9], np.int32))\n"
IB = "b = ms.Tensor(np.array([8, 3, 4, -6], np.int32))\n"
M3 = "A = ms.Tensor(np.array([[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [1.0, -1.0, 5.0]], np.float32))\n"
R = ".asnumpy().round(4).tolist()"
RD = "\nresult = (r.dtype, r.asnumpy().astype(np.float64).round(4).tolist())"

UNARY = ("abs", "acos", "arccos", "arcsinh", "arctan", "arctanh", "asin", "asinh", "atan", "atanh", "ceil",
         "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor", "frac", "isfinite", "isinf", "isneginf",
         "log", "log10", "log1p", "log2", "logical_not", "neg", "negative", "reciprocal", "rsqrt", "sigmoid",
         "sign", "sin", "sinh", "square", "tan", "tanh", "trunc", "ravel")
UNARY_BIG = ("acosh", "arccosh")  # defined above 1
BINARY = ("arctan2", "atan2", "greater", "gt", "le", "less_equal", "logaddexp", "logaddexp2",
          "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "ne", "not_equal", "float_power",
          "pow")
BINARY_INT = ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd")

CASES: dict[str, str] = {}
for _n in UNARY:
    CASES[f"mint_{_n}"] = X + f"r = ms.mint.{_n}(x - 0.3)" + RD
for _n in UNARY_BIG:
    CASES[f"mint_{_n}"] = X + f"r = ms.mint.{_n}(x + 1.0)" + RD
for _n in BINARY:
    CASES[f"mint_{_n}"] = X + Y + f"r = ms.mint.{_n}(x, y)" + RD
for _n in BINARY_INT:
    CASES[f"mint_{_n}"] = IA + IB + f"r = ms.mint.{_n}(a, b)" + RD

CASES.update({
    "mint_equal": X + Y + "result = (ms.mint.equal(x, y), ms.mint.equal(x, x + 0), ms.mint.equal(x, x[:1]))",
    "mint_dtypes": X + IA + "result = (ms.mint.exp(x).dtype, ms.mint.abs(a).dtype, ms.mint.sign(a).dtype)",
    "mint_matmul": X + Y + f"result = ms.mint.matmul(x, y.T){R}",
    "mint_mm": X + Y + f"result = ms.mint.mm(x, y.T){R}",
    "mint_dot": f"result = ms.mint.dot(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0.5, 0.25, 2.0])){R}",
    "mint_outer": f"result = ms.mint.outer(ms.Tensor([1.0, 2.0]), ms.Tensor([0.5, 0.25, 2.0])){R}",
    "mint_inverse": M3 + f"result = ms.mint.inverse(A){R}",
    "mint_trace": M3 + "result = ms.mint.trace(A).asnumpy().round(4).item()",
    "mint_addmm": X + Y + M3 + f"result = ms.mint.addmm(A[:2, :2], x, y.T, beta=0.5, alpha=2){R}",
    "mint_addmv": M3 + f"result = ms.mint.addmv(ms.Tensor([1.0, 2.0, 3.0]), A, ms.Tensor([1.0, 0.0, -1.0]), "
                       f"beta=2, alpha=0.5){R}",
    "mint_baddbmm": X + Y + (f"result = ms.mint.baddbmm(ms.mint.ones((2, 2, 2)), ms.ops.stack([x, y]), "
                             f"ms.ops.stack([y.T, x.T]), beta=0.5, alpha=1.5){R}"),
    "mint_broadcast_to": "result = ms.mint.broadcast_to(ms.Tensor([1, 2, 3]), (2, 3)).asnumpy().tolist()",
    "mint_einsum": X + Y + f"result = ms.mint.einsum('ij,kj->ik', x, y){R}",
    "mint_flip": X + f"result = ms.mint.flip(x, (0, 1)){R}",
    "mint_hstack": X + Y + f"result = ms.mint.hstack((x, y)){R}",
    "mint_roll": X + f"result = ms.mint.roll(x, 1, 1){R}",
    "mint_swapaxes": X + f"result = ms.mint.swapaxes(x, 0, 1){R}",
    "mint_tile": "result = ms.mint.tile(ms.Tensor([[1, 2]]), (2, 2)).asnumpy().tolist()",
    "mint_unsqueeze": X + "result = ms.mint.unsqueeze(x, 1).shape",
    "mint_masked_select": X + f"result = ms.mint.masked_select(x, x > 0.4){R}",
    "mint_polar": "result = ms.mint.polar(ms.Tensor([1.0, 2.0]), ms.Tensor([0.0, 0.5])).asnumpy().round(4)"
                  ".tolist()",
    # reductions with MindSpore 2.10's mint keywords (dim, correction, keepdim)
    "mint_std": X + f"result = ms.mint.std(x){R}",
    "mint_std_dim": X + f"result = ms.mint.std(x, dim=1, correction=0, keepdim=True){R}",
    "mint_std_dims": X + f"result = ms.mint.std(x, (0, 1), correction=2){R}",
    "mint_var": X + f"result = ms.mint.var(x, 0){R}",
    "mint_var_keep": X + f"result = ms.mint.var(x, dim=-1, correction=0, keepdim=True){R}",
    "mint_std_mean": X + "s, m = ms.mint.std_mean(x, dim=1)\nresult = (s.asnumpy().round(4).tolist(), "
                         "m.asnumpy().round(4).tolist())",
    "mint_var_mean": X + "v, m = ms.mint.var_mean(x, dim=0, keepdim=True, correction=0)\nresult = "
                         "(v.asnumpy().round(4).tolist(), m.asnumpy().round(4).tolist(), v.shape)",
    "mint_std_dtype": X + "result = (ms.mint.std(x).dtype, ms.mint.var(x, 1).shape)",
    "mint_std_int": IA + "result = ms.mint.std(a)",
    "mint_std_dim_type": X + "result = ms.mint.std(x, dim=1.5)",
    "tensor_std_mint_keywords": X + f"result = x.std(dim=1, correction=1, keepdim=False){R}",
    "mint_ones": "t = ms.mint.ones((2, 3))\nresult = (t.dtype, t.shape, t.asnumpy().tolist())",
    "mint_ones_dtype": "t = ms.mint.ones([2, 1, 2], dtype=ms.int32)\nresult = (t.dtype, t.shape)",
    "mint_ones_int": "t = ms.mint.ones(3)\nresult = (t.dtype, t.shape)",
    "mint_zeros": "t = ms.mint.zeros((2,), dtype=ms.float16)\nresult = (t.dtype, t.asnumpy().tolist())",
    # mint.nn
    "mint_linear": ("net = ms.mint.nn.Linear(3, 4, weight_init='ones', bias_init='zeros')\n"
                    "out = net(ms.Tensor(np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], np.float32)))\n"
                    "result = (out.shape, out.asnumpy().tolist(), net.weight.shape, net.bias.shape)"),
    "mint_linear_nobias": ("net = ms.mint.nn.Linear(3, 2, bias=False)\n"
                           "result = (net.bias is None, net(ms.mint.ones((5, 3))).shape)"),
    "mint_linear_default": ("net = ms.mint.nn.Linear(3, 4)\nw = net.weight.asnumpy()\n"
                            "result = (net(ms.mint.ones((2, 3))).shape, bool(abs(w).max() <= 1 / 3 ** 0.5 + 1e-6))"),
    "mint_dropout2d_eval": ("d = ms.mint.nn.Dropout2d(p=0.5)\nd.set_train(False)\n"
                            "result = d(ms.mint.ones((2, 1, 2, 3))).asnumpy().tolist()"),
    "mint_dropout2d_train": ("d = ms.mint.nn.Dropout2d(p=0.5)\nd.set_train(True)\nout = d(ms.mint.ones((4, 8, 2, 3)))"
                             ".asnumpy()\nv = sorted(set(out.reshape(-1).tolist()))\n"
                             "ch = out.reshape(32, 6)\nresult = (out.shape, v, "
                             "bool(all((r == r[0]).all() for r in ch)))"),
    "mint_dropout2d_p1": ("d = ms.mint.nn.Dropout2d(p=1.0)\nd.set_train(True)\n"
                          "result = d(ms.mint.ones((1, 2, 1, 2))).asnumpy().tolist()"),
    "mint_dropout2d_bad_p": "result = ms.mint.nn.Dropout2d(p=1.5)",
    # Tensor.mH / mT / H
    "tensor_mH_complex": ("x = ms.Tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64))\n"
                          "result = x.mH"),
    "tensor_mH_batched": ("x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))\n"
                          "result = (x.mH.shape, x.mH.asnumpy().tolist())"),
    "tensor_mH_batched_complex": ("x = ms.Tensor((np.arange(8) + 1j * np.arange(8)[::-1]).reshape(2, 2, 2)"
                                  ".astype(np.complex64))\nresult = x.mH"),
    "tensor_mT_complex": ("x = ms.Tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64))\n"
                          "result = x.mT"),
    "tensor_H_complex": ("x = ms.Tensor(np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64))\n"
                         "result = x.H"),
    "tensor_H_real": "result = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32)).H",
    "tensor_mH_1d": "result = ms.Tensor(np.array([1.0, 2.0], np.float32)).mH",
    # ops.cond
    "cond_default": M3 + "result = ms.ops.cond(A).asnumpy().round(4).item()",
    "cond_doc": ("x = ms.Tensor([[1.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])\n"
                 "result = (ms.ops.cond(x).asnumpy().round(4).item(), ms.ops.cond(x, 'fro').asnumpy().round(4)"
                 ".item())"),
    "cond_fro": M3 + "result = ms.ops.cond(A, 'fro').asnumpy().round(4).item()",
    "cond_nuc": M3 + "result = ms.ops.cond(A, 'nuc').asnumpy().round(4).item()",
    "cond_inf": M3 + "result = ms.ops.cond(A, float('inf')).asnumpy().round(4).item()",
    "cond_neg_inf": M3 + "result = ms.ops.cond(A, float('-inf')).asnumpy().round(4).item()",
    "cond_1": M3 + "result = ms.ops.cond(A, 1).asnumpy().round(4).item()",
    "cond_neg_1": M3 + "result = ms.ops.cond(A, -1).asnumpy().round(4).item()",
    "cond_2": M3 + "result = ms.ops.cond(A, 2).asnumpy().round(4).item()",
    "cond_neg_2": M3 + "result = ms.ops.cond(A, -2).asnumpy().round(4).item()",
    "cond_batched": M3 + "B = ms.ops.stack([A, A * 2 + ms.ops.eye(3, 3, ms.float32)])\n"
                         "result = (ms.ops.cond(B).asnumpy().round(4).tolist(), ms.ops.cond(B, 1).asnumpy()"
                         ".round(4).tolist())",
    "cond_dtype": M3 + "result = (ms.ops.cond(A).dtype, ms.ops.cond(A, 'fro').dtype, ms.ops.cond(A).shape)",
    "cond_rect": ("A = ms.Tensor(np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 4.0]], np.float32))\n"
                  "result = ms.ops.cond(A).asnumpy().round(4).item()"),
    "cond_bad_int_p": M3 + "result = ms.ops.cond(A, 3)",
    "cond_bad_str_p": M3 + "result = ms.ops.cond(A, 'max')",
    # ops.function.*_func
    "float_power_ext": ("f = ms.ops.function.math_func.float_power_ext\ni = ms.Tensor([1, 2, 3])\n"
                        "r1 = f(i, 2)\nr2 = f(i, ms.Tensor([2, -3, -4]))\n"
                        "result = (r1, r2.asnumpy().round(6).tolist(), r1.dtype, r2.dtype)"),
    "float_power_ext_float": ("f = ms.ops.function.math_func.float_power_ext\n"
                              "r = f(ms.Tensor(np.array([0.5, 2.0], np.float32)), 0.5)\n"
                              "result = (r.dtype, r.asnumpy().round(6).tolist())"),
    "float_power_ext_scalar_base": ("r = ms.ops.function.math_func.float_power_ext(2, ms.Tensor([1, 2]))\n"
                                    "result = (r.dtype, r.asnumpy().tolist())"),
    "isnan_ext": "result = ms.ops.function.math_func.isnan_ext(ms.Tensor([np.nan, 2, 3, 4]))",
    "isnan_ext_int": "result = ms.ops.function.math_func.isnan_ext(ms.Tensor([1, 2]))",
    "math_func_has_float_power": "result = ms.ops.function.math_func.float_power is ms.ops.float_power",
    "function_has_ops": "result = ms.ops.function.cond is ms.ops.cond",
    "random_func_random_": ("a = ms.Tensor([[2, 3, 4], [1, 2, 3]])\n"
                            "r = ms.ops.function.random_func.random_(a, 0, 5)\nv = r.asnumpy()\n"
                            "result = (r.shape, r.dtype, bool(((v >= 0) & (v < 5)).all()), r is a)"),
    "random_func_uniform_": ("x = ms.ops.ones((4, 2))\ng = ms.Generator()\ng.manual_seed(100)\n"
                             "r = ms.ops.function.random_func.uniform_(x, 1., 2., generator=g)\nv = r.asnumpy()\n"
                             "result = (r.shape, r.dtype, bool(((v >= 1) & (v < 2)).all()), r is x)"),
    "uniform_seeded_repeats": ("g = ms.Generator()\ng.manual_seed(7)\na = ms.ops.zeros((50,)).uniform_(generator=g)"
                               ".asnumpy().copy()\ng.manual_seed(7)\n"
                               "b = ms.ops.zeros((50,)).uniform_(generator=g).asnumpy().copy()\n"
                               "c = ms.ops.zeros((50,)).uniform_(generator=g).asnumpy().copy()\n"
                               "result = (bool((a == b).all()), bool((a == c).all()))"),
    "random_seeded_repeats": ("g = ms.Generator()\ng.manual_seed(7)\n"
                              "a = ms.Tensor(np.zeros(50, np.int64)).random_(0, 1000, generator=g).asnumpy().copy()\n"
                              "g.manual_seed(7)\n"
                              "b = ms.Tensor(np.zeros(50, np.int64)).random_(0, 1000, generator=g).asnumpy().copy()\n"
                              "result = bool((a == b).all())"),
    "random_default_to_int8": ("v = ms.Tensor(np.zeros(400, np.int8)).random_().asnumpy()\n"
                               "result = (bool(v.min() >= 0), bool(v.max() <= 127), bool(v.max() > 60))"),
    "random_float": ("v = ms.Tensor(np.zeros(200, np.float32)).random_(2, 9).asnumpy()\n"
                     "result = (sorted(set(v.tolist())) == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], v.dtype)"),
    "random_only_from": ("v = ms.Tensor(np.zeros(200, np.int8)).random_(120).asnumpy()\n"
                         "result = (bool(v.min() >= 120), bool(v.max() <= 127), len(set(v.tolist())) == 8)"),
    "random_bad_range": "result = ms.Tensor(np.zeros(4, np.int64)).random_(5, 2)",
    "uniform_bad_range": "result = ms.ops.zeros((3,)).uniform_(2.0, 1.0)",
    "uniform_mean": ("v = ms.ops.zeros((20000,)).uniform_(-1.0, 3.0).asnumpy()\n"
                     "result = (round(float(v.mean()), 1), bool(v.min() >= -1), bool(v.max() < 3))"),
    # in-place floor_divide_ / remainder_ (MindSpore's CPU returns the result and leaves the tensor as it was)
    "floor_divide_": ("x = ms.Tensor(np.array([2, 4, -1]), ms.int32)\n"
                      "out = x.floor_divide_(ms.Tensor(np.array([3, 3, 3]), ms.int32))\nresult = out"),
    "remainder_": ("x = ms.Tensor(np.array([2, 4, -1]), ms.int32)\n"
                   "out = x.remainder_(ms.Tensor(np.array([3, -6, -2]), ms.int32))\nresult = out"),
    "remainder_float": ("x = ms.Tensor(np.array([2.5, -4.0, 7.0], np.float32))\nout = x.remainder_(2)\n"
                        "result = out"),
    "floor_divide_scalar": ("x = ms.Tensor(np.array([7, -7, 9], np.int64))\nout = x.floor_divide_(2)\n"
                            "result = out"),
    # primitive-authoring helpers
    "prim_arg_register": ("class MatMul(ms.ops.PrimitiveWithCheck):\n"
                          "    @ms.ops.prim_arg_register\n"
                          "    def __init__(self, transpose_a=False, transpose_b=False):\n"
                          "        self.init_prim_io_names(inputs=['x1', 'x2'], outputs=['output'])\n"
                          "m = MatMul(transpose_b=True)\n"
                          "result = (m.name, m.transpose_a, m.transpose_b, hasattr(MatMul.__init__, "
                          "'decorated_func'))"),
    "get_vm_impl_fn": ("reg = ms.ops.vm_impl_registry\n"
                       "@reg.register('MyType')\ndef vm_impl_dtype(self):\n"
                       "    def vm_impl(x):\n        return type(x)\n    return vm_impl\n"
                       "result = (ms.ops.get_vm_impl_fn('MyType')(1.0), ms.ops.get_vm_impl_fn('NoSuchOp'))"),
    "get_vm_impl_fn_class": ("reg = ms.ops.vm_impl_registry\nclass Twice(ms.ops.Primitive):\n"
                             "    pass\n"
                             "@reg.register(Twice)\ndef vm_twice(self):\n    return lambda x: x * 2\n"
                             "result = (ms.ops.get_vm_impl_fn('Twice')(4), 'Twice' in reg)"),
})

# ops.LSTM, the primitive: MindSpore's flat weight (per layer and direction: w_ih, w_hh, then the biases) and
# its five outputs (output, h_n, c_n and two reserve tensors whose contents are backend-specific).
_LSTM = ("def run(input_size, hidden, layers, bias, bidir, seq=4, batch=3):\n"
         "    d = 2 if bidir else 1\n"
         "    n = 0\n"
         "    for l in range(layers):\n"
         "        isz = input_size if l == 0 else hidden * d\n"
         "        n += d * (4 * hidden * isz + 4 * hidden * hidden + (8 * hidden if bias else 0))\n"
         "    w = ms.Tensor((np.sin(np.arange(n) * 0.37) * 0.3).astype(np.float32).reshape(n, 1, 1))\n"
         "    x = ms.Tensor((np.cos(np.arange(seq * batch * input_size) * 0.11)).astype(np.float32)"
         ".reshape(seq, batch, input_size))\n"
         "    h = ms.Tensor(np.full((layers * d, batch, hidden), 0.1, np.float32))\n"
         "    c = ms.Tensor(np.full((layers * d, batch, hidden), -0.2, np.float32))\n"
         "    net = ms.ops.LSTM(input_size, hidden, layers, bias, bidir, 0.0)\n"
         "    out = net(x, h, c, w)\n"
         "    return (len(out), [o.asnumpy().round(4).tolist() for o in out[:3]], [o.shape for o in out[:3]])\n")
CASES.update({
    "lstm_doc": ("net = ms.ops.LSTM(10, 2, 1, True, False, 0.0)\n"
                 "x = ms.Tensor(np.ones([5, 2, 10]).astype(np.float32))\n"
                 "h0 = ms.Tensor(np.ones([1, 2, 2]).astype(np.float32))\n"
                 "w = ms.Tensor(np.ones([112, 1, 1]).astype(np.float32))\n"
                 "output, hn, cn, _, _ = net(x, h0, h0, w)\n"
                 "result = (output.asnumpy().round(5).tolist(), hn.shape, cn.asnumpy().round(5).tolist())"),
    "lstm_one_layer": _LSTM + "result = run(5, 3, 1, True, False)",
    "lstm_no_bias": _LSTM + "result = run(4, 2, 1, False, False)",
    "lstm_bidirectional": _LSTM + "result = run(3, 2, 1, True, True)",
    "lstm_two_layers": _LSTM + "result = run(3, 4, 2, True, False)",
    "lstm_two_layers_bidir": _LSTM + "result = run(2, 3, 2, True, True, seq=3, batch=2)",
    # MindSpore's CPU kernel stacks every layer in one oneDNN primitive: more than one layer runs there only
    # when input_size == hidden_size * num_directions
    "lstm_two_layers_square": _LSTM + "result = run(4, 4, 2, True, False)",
    "lstm_three_layers_bidir_square": _LSTM + "result = run(4, 2, 3, True, True, seq=3, batch=2)",
    "lstm_two_layers_no_bias_square": _LSTM + "result = run(3, 3, 2, False, False)",
    "lstm_attrs": ("net = ms.ops.LSTM(10, 2, 1, True, False, 0.0)\n"
                   "result = (net.input_size, net.hidden_size, net.num_layers, net.has_bias, net.bidirectional, "
                   "net.dropout)"),
    "lstm_bad_weight": ("net = ms.ops.LSTM(10, 2, 1, True, False, 0.0)\n"
                        "x = ms.Tensor(np.ones([5, 2, 10]).astype(np.float32))\n"
                        "h0 = ms.Tensor(np.ones([1, 2, 2]).astype(np.float32))\n"
                        "result = net(x, h0, h0, ms.Tensor(np.ones([100, 1, 1]).astype(np.float32)))"),
    "lstm_bad_hidden": ("net = ms.ops.LSTM(10, 2, 1, True, False, 0.0)\n"
                        "x = ms.Tensor(np.ones([5, 2, 10]).astype(np.float32))\n"
                        "h0 = ms.Tensor(np.ones([1, 2, 3]).astype(np.float32))\n"
                        "result = net(x, h0, h0, ms.Tensor(np.ones([112, 1, 1]).astype(np.float32)))"),
    "lstm_bad_dropout": "result = ms.ops.LSTM(10, 2, 1, True, False, 1.5)",
})

# mint's torch-spelled functions (src/opbuild/mint/torch_style.py): each program with its NumPy twin, which
# checks opbuild where MindSpore's CPU has no kernel. ``v`` gives (dtype name, shape, rounded values).
_TV = ("x = ms.Tensor(np.array([[1.0, 5.0, 2.0], [4.0, 0.5, 3.0]], np.float32))\n"
       "b = ms.Tensor(np.array([[True, False, True], [True, True, True]]))\n"
       "v = lambda t: (t.dtype, t.shape, t.asnumpy().astype(np.float64).round(4).tolist())\n")
_NV = ("x = np.array([[1.0, 5.0, 2.0], [4.0, 0.5, 3.0]], np.float32)\n"
       "b = np.array([[True, False, True], [True, True, True]])\n"
       "v = lambda a: (np.asarray(a).dtype.name, np.asarray(a).shape, np.asarray(a).astype(np.float64).round(4)"
       ".tolist())\n")
TORCH_STYLE: dict[str, tuple[str, str]] = {
    "sum": ("result = v(ms.mint.sum(x, 1))", "result = v(x.sum(1))"),
    "sum_keep_dtype": ("result = v(ms.mint.sum(x, (0, 1), True, dtype=ms.float64))",
                       "result = v(x.astype(np.float64).sum((0, 1), keepdims=True))"),
    "mean": ("result = v(ms.mint.mean(x, dim=0, keepdim=True))", "result = v(x.mean(0, keepdims=True))"),
    "prod": ("result = v(ms.mint.prod(x, 1))", "result = v(x.prod(1))"),
    "all": ("result = v(ms.mint.all(b, 1))", "result = v(b.all(1))"),
    "any": ("result = v(ms.mint.any(b, dim=0))", "result = v(b.any(0))"),
    "amax": ("result = v(ms.mint.amax(x, 1, True))", "result = v(x.max(1, keepdims=True))"),
    "amin_all": ("result = v(ms.mint.amin(x))", "result = v(x.min())"),
    "argmax": ("result = v(ms.mint.argmax(x, 1))", "result = v(x.argmax(1))"),
    "argmin_flat": ("result = v(ms.mint.argmin(x))", "result = v(np.int64(x.argmin()))"),
    "argmin_dim": ("result = v(ms.mint.argmin(x, 0, True))", "result = v(x.argmin(0)[None])"),
    "logsumexp": ("result = v(ms.mint.logsumexp(x, 1))", "result = v(np.log(np.exp(x).sum(1)))"),
    "max_all": ("result = v(ms.mint.max(x))", "result = v(x.max())"),
    "max_dim": ("m, i = ms.mint.max(x, 1)\nresult = (v(m), v(i))", "result = (v(x.max(1)), v(x.argmax(1)))"),
    "min_dim_keep": ("m, i = ms.mint.min(x, dim=0, keepdim=True)\nresult = (v(m), v(i))",
                     "result = (v(x.min(0, keepdims=True)), v(x.argmin(0)[None]))"),
    "max_other": ("result = v(ms.mint.max(x, x * 0 + 2))", "result = v(np.maximum(x, 2))"),
    "cat": ("result = v(ms.mint.cat((x, x), 1))", "result = v(np.concatenate((x, x), 1))"),
    "concat": ("result = v(ms.mint.concat([x, x]))", "result = v(np.concatenate([x, x]))"),
    "stack": ("result = v(ms.mint.stack((x, x), dim=2))", "result = v(np.stack((x, x), 2))"),
    "split": ("result = [v(t) for t in ms.mint.split(x, 2, dim=1)]", "result = [v(x[:, :2]), v(x[:, 2:])]"),
    "split_sections": ("result = [v(t) for t in ms.mint.split(x, [1, 2], 1)]",
                       "result = [v(x[:, :1]), v(x[:, 1:])]"),
    "chunk": ("result = [v(t) for t in ms.mint.chunk(x, 2, 1)]", "result = [v(x[:, :2]), v(x[:, 2:])]"),
    "unbind": ("result = [v(t) for t in ms.mint.unbind(x, 1)]", "result = [v(x[:, i]) for i in range(3)]"),
    "transpose": ("result = v(ms.mint.transpose(x, 0, 1))", "result = v(x.T)"),
    "permute": ("result = v(ms.mint.permute(x[None], (2, 0, 1)))", "result = v(x[None].transpose(2, 0, 1))"),
    "narrow": ("result = v(ms.mint.narrow(x, 1, 1, 2))", "result = v(x[:, 1:3])"),
    "flatten": ("result = v(ms.mint.flatten(x[None]))", "result = v(x.reshape(-1))"),
    "flatten_range": ("result = v(ms.mint.flatten(x[None, :, :, None], 1, 2))",
                      "result = v(x.reshape(1, 6, 1))"),
    "reshape": ("result = v(ms.mint.reshape(x, (3, -1)))", "result = v(x.reshape(3, -1))"),
    "squeeze": ("result = v(ms.mint.squeeze(x[None, :, None], 2))", "result = v(x[None])"),
    "select": ("result = v(ms.mint.select(x, 1, -1))", "result = v(x[:, -1])"),
    "gather": ("i = ms.Tensor(np.array([[2, 0], [1, 1]], np.int64))\nresult = v(ms.mint.gather(x, 1, i))",
               "result = v(np.take_along_axis(x, np.array([[2, 0], [1, 1]]), 1))"),
    "index_select": ("result = v(ms.mint.index_select(x, 1, ms.Tensor(np.array([2, 0], np.int64))))",
                     "result = v(x[:, [2, 0]])"),
    "cumsum": ("result = v(ms.mint.cumsum(x, 1))", "result = v(x.cumsum(1))"),
    "sort": ("s, i = ms.mint.sort(x, dim=1, descending=True)\nresult = (v(s), v(i))",
             "result = (v(-np.sort(-x, 1)), v(np.argsort(-x, 1, kind='stable')))"),
    "topk": ("s, i = ms.mint.topk(x, 2, dim=1)\nresult = (v(s), v(i))",
             "result = (v(-np.sort(-x, 1)[:, :2]), v(np.argsort(-x, 1, kind='stable')[:, :2]))"),
    "topk_smallest": ("s, i = ms.mint.topk(x, 1, 0, largest=False)\nresult = (v(s), v(i))",
                      "result = (v(x.min(0, keepdims=True)), v(x.argmin(0)[None]))"),
    "softmax": ("result = v(ms.mint.softmax(x, 1))",
                "e = np.exp(x - x.max(1, keepdims=True))\nresult = v(e / e.sum(1, keepdims=True))"),
    "full": ("result = v(ms.mint.full((2, 2), 7))", "result = v(np.full((2, 2), 7, np.int64))"),
    "full_float": ("result = v(ms.mint.full([3], 1.5, dtype=ms.float16))",
                   "result = v(np.full(3, 1.5, np.float16))"),
    "empty": ("result = ms.mint.empty(2, 3).shape", "result = (2, 3)"),
    "linspace": ("result = v(ms.mint.linspace(0, 1, 5))", "result = v(np.linspace(0, 1, 5, dtype=np.float32))"),
    "allclose": ("result = (ms.mint.allclose(x, x + 1e-9), ms.mint.allclose(x, x + 1))", "result = (True, False)"),
    "add_alpha": ("result = v(ms.mint.add(x, x, alpha=2))", "result = v(x * 3)"),
    "sub_alpha": ("result = v(ms.mint.sub(x, 1.0, alpha=0.5))", "result = v(x - np.float32(0.5))"),
    "clamp": ("result = v(ms.mint.clamp(x, 1.5, 3.5))", "result = v(np.clip(x, 1.5, 3.5))"),
    "clip_min": ("result = v(ms.mint.clip(x, min=2.0))", "result = v(np.maximum(x, np.float32(2.0)))"),
    "mul": ("result = v(ms.mint.mul(x, 2))", "result = v(x * 2)"),
    "div_floor": ("result = v(ms.mint.div(x, 2, rounding_mode='floor'))", "result = v(np.floor(x / 2))"),
    "where": ("result = v(ms.mint.where(b, x, -x))", "result = v(np.where(b, x, -x))"),
    "tril": ("result = v(ms.mint.tril(x, 1))", "result = v(np.tril(x, 1))"),
    "cumprod": ("result = v(ms.mint.cumprod(x, 1))", "result = v(x.cumprod(1))"),
    "zeros_like": ("result = v(ms.mint.zeros_like(x, dtype=ms.int32))", "result = v(np.zeros((2, 3), np.int32))"),
    "arange": ("result = v(ms.mint.arange(1, 7, 2))", "result = v(np.arange(1, 7, 2, dtype=np.int64))"),
    # mint.nn.functional
    "F_relu": ("result = v(ms.mint.nn.functional.relu(x - 2))", "result = v(np.maximum(x - 2, 0))"),
    "F_relu6": ("result = v(ms.mint.nn.functional.relu6(x * 2 - 2))", "result = v(np.clip(x * 2 - 2, 0, 6))"),
    "F_silu": ("result = v(ms.mint.nn.functional.silu(x - 2))", "y = x - 2\nresult = v(y / (1 + np.exp(-y)))"),
    "F_gelu": ("result = v(ms.mint.nn.functional.gelu(x - 2))",
               "import math\ny = (x - 2).astype(np.float64)\n"
               "result = v((y * 0.5 * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))).astype(np.float32))"),
    "F_gelu_tanh": ("result = v(ms.mint.nn.functional.gelu(x - 2, approximate='tanh'))",
                    "y = (x - 2).astype(np.float64)\nresult = v((0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * "
                    "(y + 0.044715 * y ** 3)))).astype(np.float32))"),
    "F_softmax": ("result = v(ms.mint.nn.functional.softmax(x, 0))",
                  "e = np.exp(x - x.max(0))\nresult = v(e / e.sum(0))"),
    "F_softmax_default": ("result = v(ms.mint.nn.functional.softmax(x))",
                          "e = np.exp(x - x.max(1, keepdims=True))\nresult = v(e / e.sum(1, keepdims=True))"),
    "F_log_softmax": ("result = v(ms.mint.nn.functional.log_softmax(x, dim=1))",
                      "s = x - x.max(1, keepdims=True)\nresult = v(s - np.log(np.exp(s).sum(1, keepdims=True)))"),
    "F_leaky_relu": ("result = v(ms.mint.nn.functional.leaky_relu(x - 2))",
                     "y = x - 2\nresult = v(np.where(y > 0, y, np.float32(0.01) * y))"),
    "F_elu": ("result = v(ms.mint.nn.functional.elu(x - 2, 0.5))",
              "y = x - 2\nresult = v(np.where(y > 0, y, np.float32(0.5) * (np.exp(y) - 1)))"),
    "F_hardtanh": ("result = v(ms.mint.nn.functional.hardtanh(x - 2, -0.5, 2.0))",
                   "result = v(np.clip(x - 2, -0.5, 2.0))"),
    "F_mish": ("result = v(ms.mint.nn.functional.mish(x - 2))",
               "y = x - 2\nresult = v(y * np.tanh(np.log1p(np.exp(y))))"),
    "F_logsigmoid": ("result = v(ms.mint.nn.functional.logsigmoid(x - 2))",
                     "result = v(-np.log1p(np.exp(-(x - 2))))"),
    "F_glu": ("result = v(ms.mint.nn.functional.glu(ms.mint.cat((x, x - 2), 1), 1))",
              "result = v(x / (1 + np.exp(-(x - 2))))"),
    "F_linear": ("w = ms.Tensor(np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], np.float32))\n"
                 "result = v(ms.mint.nn.functional.linear(x, w, ms.Tensor(np.array([1.0, -1.0], np.float32))))",
                 "w = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], np.float32)\n"
                 "result = v(x @ w.T + np.array([1.0, -1.0], np.float32))"),
    "F_dropout_eval": ("result = v(ms.mint.nn.functional.dropout(x, 0.5, training=False))", "result = v(x)"),
    "F_normalize": ("result = v(ms.mint.nn.functional.normalize(x))",
                    "result = v(x / np.sqrt((x ** 2).sum(1, keepdims=True)))"),
    "F_normalize_p1": ("result = v(ms.mint.nn.functional.normalize(x, 1.0, 0))",
                       "result = v(x / np.abs(x).sum(0, keepdims=True))"),
    "F_one_hot": ("result = v(ms.mint.nn.functional.one_hot(ms.Tensor(np.array([0, 2, 1], np.int64)), 4))",
                  "result = v(np.eye(4, dtype=np.int64)[[0, 2, 1]])"),
    "F_one_hot_auto": ("result = v(ms.mint.nn.functional.one_hot(ms.Tensor(np.array([0, 2], np.int64))))",
                       "result = v(np.eye(3, dtype=np.int64)[[0, 2]])"),
    "F_mse_loss": ("result = v(ms.mint.nn.functional.mse_loss(x, x * 0 + 2))", "result = v(((x - 2) ** 2).mean())"),
    "F_l1_loss_sum": ("result = v(ms.mint.nn.functional.l1_loss(x, x * 0 + 2, reduction='sum'))",
                      "result = v(np.abs(x - 2).sum())"),
    "F_softplus": ("result = v(ms.mint.nn.functional.softplus(x - 2, beta=2))",
                   "result = v(np.log1p(np.exp(2 * (x - 2))) / 2)"),
}
for _n, (_ms, _np) in TORCH_STYLE.items():
    CASES[f"mint_ts_{_n}"] = _TV + _ms
CASES["mint_squeeze_needs_dim"] = _TV + "result = ms.mint.squeeze(x[None, :, None])"  # dim is required
NUMPY_TWINS = {f"mint_ts_{_n}": _NV + _np for _n, (_ms, _np) in TORCH_STYLE.items()}

# mint.nn layers (src/opbuild/mint/nn/layers.py), with NumPy twins as above.
_LAYERS: dict[str, tuple[str, str]] = {
    "ReLU6": ("result = v(ms.mint.nn.ReLU6()(x * 2 - 2))", "result = v(np.clip(x * 2 - 2, 0, 6))"),
    "Sigmoid": ("result = v(ms.mint.nn.Sigmoid()(x - 2))", "result = v(1 / (1 + np.exp(-(x - 2))))"),
    "Tanh": ("result = v(ms.mint.nn.Tanh()(x - 2))", "result = v(np.tanh(x - 2))"),
    "GELU_tanh": ("result = v(ms.mint.nn.GELU(approximate='tanh')(x - 2))",
                  "y = (x - 2).astype(np.float64)\nresult = v((0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * "
                  "(y + 0.044715 * y ** 3)))).astype(np.float32))"),
    "SiLU": ("result = v(ms.mint.nn.SiLU()(x - 2))", "y = x - 2\nresult = v(y / (1 + np.exp(-y)))"),
    "ELU": ("result = v(ms.mint.nn.ELU(0.5)(x - 2))",
            "y = x - 2\nresult = v(np.where(y > 0, y, np.float32(0.5) * (np.exp(y) - 1)))"),
    "Hardtanh": ("result = v(ms.mint.nn.Hardtanh(-0.5, max_val=2.0)(x - 2))", "result = v(np.clip(x - 2, -0.5, 2))"),
    "GLU": ("result = v(ms.mint.nn.GLU(0)(x))", "result = v(x[:1] / (1 + np.exp(-x[1:])))"),
    "Softmax": ("result = v(ms.mint.nn.Softmax(dim=0)(x))", "e = np.exp(x - x.max(0))\nresult = v(e / e.sum(0))"),
    "LogSoftmax": ("result = v(ms.mint.nn.LogSoftmax()(x))",
                   "s = x - x.max(1, keepdims=True)\nresult = v(s - np.log(np.exp(s).sum(1, keepdims=True)))"),
    "Flatten": ("result = v(ms.mint.nn.Flatten()(x[None, :, :, None]))", "result = v(x.reshape(1, 6))"),
    "Dropout_eval": ("d = ms.mint.nn.Dropout(0.3)\nd.set_train(False)\nresult = v(d(x))", "result = v(x)"),
    "MSELoss": ("result = v(ms.mint.nn.MSELoss()(x, x * 0 + 2))", "result = v(((x - 2) ** 2).mean())"),
    "L1Loss_none": ("result = v(ms.mint.nn.L1Loss(reduction='none')(x, x * 0 + 2))", "result = v(np.abs(x - 2))"),
    "ReLU": ("result = v(ms.mint.nn.ReLU()(x - 2))", "result = v(np.maximum(x - 2, 0))"),
    "Hardswish": ("result = v(ms.mint.nn.Hardswish()(x - 2))",
                  "y = x - 2\nresult = v(y * np.clip(y + 3, 0, 6) / 6)"),
}
for _n, (_ms, _np) in _LAYERS.items():
    CASES[f"mint_nn_{_n}"] = _TV + _ms
    NUMPY_TWINS[f"mint_nn_{_n}"] = _NV + _np
CASES["mint_nn_dropout_train"] = ("d = ms.mint.nn.Dropout(0.5)\nd.set_train(True)\n"
                                  "out = d(ms.mint.ones((4000,))).asnumpy()\n"
                                  "result = (sorted(set(out.tolist())), bool(1700 < (out == 0).sum() < 2300))")
CASES["mint_nn_dropout_bad_p"] = "result = ms.mint.nn.Dropout(p=2.0)"
CASES["mint_nn_mse_bad_reduction"] = "result = ms.mint.nn.MSELoss(reduction='avg')"

# mint.linalg and mint.special, with NumPy twins.
_MORE: dict[str, tuple[str, str]] = {
    "linalg_inv": ("result = v(ms.mint.linalg.inv(x[:, :2] + 1))", "result = v(np.linalg.inv(x[:, :2] + 1))"),
    "linalg_norm": ("result = v(ms.mint.linalg.norm(x))", "result = v(np.linalg.norm(x))"),
    "linalg_norm_dim": ("result = v(ms.mint.linalg.norm(x, 1, dim=1))", "result = v(np.abs(x).sum(1))"),
    "linalg_vector_norm": ("result = v(ms.mint.linalg.vector_norm(x, 3, dim=0, keepdim=True))",
                           "result = v((np.abs(x) ** 3).sum(0, keepdims=True) ** (1 / 3))"),
    "linalg_matrix_norm": ("result = v(ms.mint.linalg.matrix_norm(x, 1))", "result = v(np.abs(x).sum(0).max())"),
    "linalg_qr": ("q, r = ms.mint.linalg.qr(x.T)\nresult = v(ms.mint.matmul(q, r))", "result = v(x.T)"),
    "special_erfc": ("result = v(ms.mint.special.erfc(x - 2))",
                     "import math\nresult = v(np.vectorize(math.erfc)(x - 2).astype(np.float32))"),
    "special_exp2": ("result = v(ms.mint.special.exp2(x))", "result = v(np.exp2(x))"),
    "special_expm1": ("result = v(ms.mint.special.expm1(x - 2))", "result = v(np.expm1(x - 2))"),
    "special_log1p": ("result = v(ms.mint.special.log1p(x))", "result = v(np.log1p(x))"),
    "special_sinc": ("result = v(ms.mint.special.sinc(x - 2))", "result = v(np.sinc(x - 2))"),
    "special_round": ("result = v(ms.mint.special.round(x * 1.5))", "result = v(np.round(x * 1.5))"),
    "special_log_softmax": ("result = v(ms.mint.special.log_softmax(x, 0))",
                            "s = x - x.max(0)\nresult = v(s - np.log(np.exp(s).sum(0)))"),
}
for _n, (_ms, _np) in _MORE.items():
    CASES[f"mint_{_n}"] = _TV + _ms
    NUMPY_TWINS[f"mint_{_n}"] = _NV + _np

# mint's random creation functions: dtype, shape, range and seeding (the bits are each framework's own).
CASES.update({
    "mint_rand": ("t = ms.mint.rand(200, 3)\nv = t.asnumpy()\n"
                  "result = (t.dtype, t.shape, bool(v.min() >= 0), bool(v.max() < 1), "
                  "abs(float(v.mean()) - 0.5) < 0.05)"),
    "mint_rand_tuple_dtype": "t = ms.mint.rand((2, 2), dtype=ms.float16)\nresult = (t.dtype, t.shape)",
    "mint_randn": ("t = ms.mint.randn(5000)\nv = t.asnumpy()\n"
                   "result = (t.dtype, t.shape, abs(float(v.mean())) < 0.1, abs(float(v.std()) - 1) < 0.1)"),
    "mint_rand_seeded": ("g = ms.Generator()\ng.manual_seed(4)\na = ms.mint.rand(8, generator=g).asnumpy()\n"
                         "g.manual_seed(4)\nb = ms.mint.rand(8, generator=g).asnumpy()\n"
                         "c = ms.mint.rand(8, generator=g).asnumpy()\n"
                         "result = (bool((a == b).all()), bool((a == c).all()))"),
    "mint_randint": ("t = ms.mint.randint(3, 9, (500,))\nv = t.asnumpy()\n"
                     "result = (t.dtype, t.shape, sorted(set(v.tolist())))"),
    "mint_randint_high": "t = ms.mint.randint(4, (300,))\nresult = (t.dtype, sorted(set(t.asnumpy().tolist())))",
    "mint_normal": ("t = ms.mint.normal(3.0, 0.5, (4000,))\nv = t.asnumpy()\n"
                    "result = (t.dtype, t.shape, abs(float(v.mean()) - 3) < 0.05, abs(float(v.std()) - 0.5) < 0.05)"),
    "mint_normal_tensor": ("t = ms.mint.normal(ms.Tensor(np.array([0.0, 100.0], np.float32)), 0.01)\n"
                           "result = (t.dtype, t.shape, np.round(t.asnumpy()).tolist())"),
    "mint_randperm": ("t = ms.mint.randperm(6)\nresult = (t.dtype, t.shape, sorted(t.asnumpy().tolist()))"),
    "mint_rand_like": ("t = ms.mint.rand_like(ms.Tensor(np.zeros((2, 3), np.float64)))\nresult = (t.dtype, t.shape)"),
    "mint_randn_like": ("t = ms.mint.randn_like(ms.Tensor(np.zeros((3,), np.float32)))\nresult = (t.dtype, t.shape)"),
    "mint_randint_bad_range": "result = ms.mint.randint(5, 5, (2,))",
})

# mint/more_fns.py, with NumPy twins.
_FNS: dict[str, tuple[str, str]] = {
    "argsort": ("result = v(ms.mint.argsort(x, 1, descending=True))", "result = v(np.argsort(-x, 1, kind='stable'))"),
    "cummax": ("m, i = ms.mint.cummax(x, 1)\nresult = (v(m), v(i))",
               "result = (v(np.maximum.accumulate(x, 1)), v(np.array([[0, 1, 1], [0, 0, 0]], np.int64)))"),
    "cummin": ("m, i = ms.mint.cummin(x, 0)\nresult = (v(m), v(i))",
               "result = (v(np.minimum.accumulate(x, 0)), v(np.array([[0, 0, 0], [0, 1, 0]], np.int64)))"),
    "median_all": ("result = v(ms.mint.median(x))", "result = v(np.sort(x.reshape(-1))[2])"),
    "median_dim": ("m, i = ms.mint.median(x, 1, True)\nresult = (v(m), v(i))",
                   "result = (v(np.array([[2.0], [3.0]], np.float32)), v(np.array([[2], [2]], np.int64)))"),
    "meshgrid": ("a, c = ms.mint.meshgrid(x[0], x[1, :2])\nresult = (v(a), v(c))",
                 "a, c = np.meshgrid(x[0], x[1, :2], indexing='ij')\nresult = (v(a), v(c))"),
    "repeat_interleave": ("result = v(ms.mint.repeat_interleave(x, 2, 1))", "result = v(np.repeat(x, 2, 1))"),
    "diff": ("result = v(ms.mint.diff(x, dim=1))", "result = v(np.diff(x, axis=1))"),
    "nansum": ("y = ms.mint.where(x > 4, x * np.nan, x)\nresult = v(ms.mint.nansum(y, 1))",
               "result = v(np.nansum(np.where(x > 4, np.nan, x), 1))"),
    "count_nonzero": ("result = v(ms.mint.count_nonzero(x - 1, dim=1))",
                      "result = v(np.count_nonzero(x - 1, 1).astype(np.int64))"),
    "addcmul": ("result = v(ms.mint.addcmul(x, x, x, value=0.5))", "result = v(x + 0.5 * x * x)"),
    "addcdiv": ("result = v(ms.mint.addcdiv(x, x, x + 1, value=2))", "result = v(x + 2 * x / (x + 1))"),
    "mv": ("result = v(ms.mint.mv(x, x[0]))", "result = v(x @ x[0])"),
    "diag_1d": ("result = v(ms.mint.diag(x[0], 1))", "result = v(np.diag(x[0], 1))"),
    "diag_2d": ("result = v(ms.mint.diag(x, -1))", "result = v(np.diag(x, -1))"),
    "scatter": ("i = ms.Tensor(np.array([[2, 0]], np.int64))\nresult = v(ms.mint.scatter(x, 1, i, x[:1, :2] * 10))",
                "y = x.copy()\ny[0, 2], y[0, 0] = 10.0, 50.0\nresult = v(y)"),
    "scatter_add": ("i = ms.Tensor(np.array([[2, 2]], np.int64))\n"
                    "result = v(ms.mint.scatter_add(x, 1, i, x[:1, :2]))",
                    "y = x.copy()\ny[0, 2] += 6.0\nresult = v(y)"),
    "take": ("result = v(ms.mint.take(x, ms.Tensor(np.array([[5, 0]], np.int64))))",
             "result = v(x.reshape(-1)[[[5, 0]]])"),
    "clone": ("result = v(ms.mint.clone(x))", "result = v(x)"),
    "fix": ("result = v(ms.mint.fix(x - 2.5))", "result = v(np.trunc(x - 2.5))"),
    "dstack": ("result = v(ms.mint.dstack((x, x)))", "result = v(np.dstack((x, x)))"),
    "arcsin": ("result = v(ms.mint.arcsin(x / 5))", "result = v(np.arcsin(x / 5))"),
    "isnan": ("result = v(ms.mint.isnan(x))", "result = v(np.isnan(x))"),
    "greater_equal": ("result = v(ms.mint.greater_equal(x, 2.0))", "result = v(x >= 2)"),
    "less": ("result = v(ms.mint.less(x, 2.0))", "result = v(x < 2)"),
    "divide_trunc": ("result = v(ms.mint.divide(x - 2, 2, rounding_mode='trunc'))",
                     "result = v(np.trunc((x - 2) / 2))"),
}
for _n, (_ms, _np) in _FNS.items():
    CASES[f"mint_fn_{_n}"] = _TV + _ms
    NUMPY_TWINS[f"mint_fn_{_n}"] = _NV + _np
