"""Programs over the older ``mindspore.ops`` names model zoos call (ops/api/legacy_names.py, graph_helpers.py,
the communication names at ``ops``' top level): scripts/record_legacy_names.py records MindSpore 2.10's
``str(result)`` of each, tests/compat/test_legacy_names.py compares opbuild's. Each program runs with ``ms`` and
``np`` and sets ``result``; float results are rounded lists."""

X = "x = ms.Tensor(np.array([[1.5, -2.0], [3.0, 0.5]], np.float32))\n"
Y = "y = ms.Tensor(np.array([[0.5, 4.0], [-1.0, 2.0]], np.float32))\n"
RD = "\nresult = (str(r.dtype), r.asnumpy().astype(np.float64).round(4).tolist())"

BINARY = ("tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_pow", "tensor_mod", "tensor_floordiv",
          "floordiv", "floormod", "pows", "tensor_ge", "tensor_gt", "tensor_le", "tensor_lt", "multiply")
UNARY = ("tensor_exp", "tensor_expm1", "identity")
REDUCE = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min")
SCALAR2 = ("scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
           "scalar_eq", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_max", "scalar_min")
SCALAR1 = ("scalar_log", "scalar_uadd", "scalar_usub")

CASES: dict[str, str] = {}
for _n in BINARY:
    CASES[_n] = X + Y + f"r = ms.ops.{_n}(x, y)" + RD
    CASES[f"functional_{_n}"] = X + Y + f"r = ms.ops.functional.{_n}(x, y)" + RD
for _n in UNARY:
    CASES[_n] = X + f"r = ms.ops.{_n}(x)" + RD
for _n in REDUCE:
    CASES[_n] = X + f"r = ms.ops.{_n}(x, 1)" + RD
    CASES[f"{_n}_all"] = X + f"r = ms.ops.{_n}(x)" + RD
    CASES[f"{_n}_tuple"] = X + f"r = ms.ops.{_n}(x, (0, 1))" + RD
for _n in SCALAR2:
    CASES[_n] = f"result = (ms.ops.{_n}(7, 2), ms.ops.{_n}(2.5, 4))"
for _n in SCALAR1:
    CASES[_n] = f"result = ms.ops.{_n}(3)"

CASES.update({
    "reduce_sum_int": "r = ms.ops.reduce_sum(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)), 0)" + RD,
    "tensor_slice": X + "r = ms.ops.tensor_slice(x, (0, 1), (2, 1))" + RD,
    "tensor_range": "r = ms.ops.tensor_range(ms.Tensor(0, ms.int32), ms.Tensor(7, ms.int32), ms.Tensor(3, ms.int32))"
                    + RD,
    "tensor_range_float": "r = ms.ops.tensor_range(ms.Tensor(1.0), ms.Tensor(2.0), ms.Tensor(0.25))" + RD,
    "shape_": X + "result = ms.ops.shape_(x)",
    "reshape_": X + "r = ms.ops.reshape_(x, (4,))" + RD,
    "row_stack": X + Y + "r = ms.ops.row_stack([x, y])" + RD,
    "log_matrix_determinant": X + "s, v = ms.ops.log_matrix_determinant(x)\n"
                              "result = (s.asnumpy().round(4).tolist(), v.asnumpy().round(4).tolist())",
    "expand": "r = ms.ops.expand(ms.Tensor([[1.0], [2.0]]), ms.Tensor([2, 3]))" + RD,
    "expand_keep": "r = ms.ops.expand(ms.Tensor([[1.0], [2.0]]), ms.Tensor([3, -1, 2]))" + RD,
    "expand_as": X + "r = ms.ops.expand_as(ms.Tensor([[1.0], [2.0]]), x)" + RD,
    "reverse": X + "r = ms.ops.reverse(x, [1])" + RD,
    "reverse_both": X + "r = ms.ops.reverse(x, [0, 1])" + RD,
    "top_k": "v, i = ms.ops.top_k(ms.Tensor([1.0, 5.0, 3.0, 4.0]), 2)\nresult = (v.asnumpy().tolist(), str(i.dtype), "
             "i.asnumpy().tolist())",
    "top_k_2d": X + "v, i = ms.ops.top_k(x, 1)\nresult = (v.asnumpy().tolist(), i.asnumpy().tolist())",
    "addbmm": X + Y + "r = ms.ops.addbmm(x, ms.ops.stack([x, y]), ms.ops.stack([y, x]))" + RD,
    "addbmm_scaled": X + Y + "r = ms.ops.addbmm(x, ms.ops.stack([x, y]), ms.ops.stack([y, x]), beta=0.5, alpha=2)"
                     + RD,
    "mixed_precision_cast": X + "r = ms.ops.functional.mixed_precision_cast(ms.float16, x)" + RD,
    "mixed_precision_cast_int": "r = ms.ops.functional.mixed_precision_cast(ms.float16, ms.Tensor([1, 2]))" + RD,
    "clip_by_global_norm": X + Y + "a, b = ms.ops.composite.clip_by_global_norm((x, y), 1.0)\n"
                           "result = (a.asnumpy().round(4).tolist(), b.asnumpy().round(4).tolist())",
    "gamma_shape": "result = ms.ops.gamma((3, 1, 2), ms.Tensor([[3.0, 4.0], [5.0, 6.0]]), ms.Tensor([1.0]), "
                   "seed=5).shape",
    "poisson_shape": "result = ms.ops.poisson((4, 1), ms.Tensor(np.array([5.0, 10.0], np.float32)), seed=5).shape",
    "tuple_getitem": "result = (ms.ops.tuple_getitem((1, 2, 3), 1), ms.ops.tuple_getitem((1, 2, 3), -1))",
    "tuple_len": "result = ms.ops.tuple_len((1, 2, 3))",
    "tuple_setitem": "t = (1, 2, 3)\nresult = (ms.ops.tuple_setitem(t, 1, 9), t)",
    "tuple_reversed": "result = ms.ops.tuple_reversed((1, 2, 3))",
    "tuple_equal": "result = (ms.ops.tuple_equal((1, 2), (1, 2)), ms.ops.tuple_equal((1, 2), (2, 1)))",
    "tuple_div": "result = ms.ops.tuple_div((4, 6), (2, 3))",
    "tuple_div_inexact": "result = ms.ops.tuple_div((5, 6), (2, 3))",
    "list_getitem": "result = ms.ops.list_getitem([4, 5], 0)",
    "list_len": "result = ms.ops.list_len([4, 5])",
    "list_setitem": "l = [1, 2]\nresult = (ms.ops.list_setitem(l, 0, 5), l)",
    "list_equal": "result = (ms.ops.list_equal([1], [1]), ms.ops.list_equal([1], [2]))",
    "dict_getitem": "result = ms.ops.dict_getitem({'a': 1, 'b': 2}, 'b')",
    "make_tuple": "result = ms.ops.make_tuple(1, 'two', 3.0)",
    "make_list": "result = ms.ops.make_list(1, 2)",
    "make_slice": "result = ms.ops.make_slice(1, 5, 2)",
    "make_range": "result = (ms.ops.make_range(1, 5), ms.ops.make_range(0, 10, 3))",
    "in_dict": "result = (ms.ops.in_dict('a', {'a': 1}), ms.ops.not_in_dict('a', {'a': 1}), "
               "ms.ops.in_dict('z', {'a': 1}))",
    "is_": "result = (ms.ops.is_(None, None), ms.ops.is_not(1, None), ms.ops.is_(1, None))",
    "shape_mul": "result = (ms.ops.shape_mul((2, 3, 4)), ms.ops.shape_mul((5,)))",
    "reduced_shape": "result = (ms.ops.functional.reduced_shape((2, 3, 4), (1,)), "
                     "ms.ops.functional.reduced_shape((2, 3), ()))",
    "partial": X + Y + "r = ms.ops.partial(ms.ops.add, x)(y)" + RD,
    "comm_names_at_ops": "result = [n for n in ('all_reduce', 'all_gather_into_tensor', 'broadcast', 'reduce', "
                         "'send', 'recv', 'isend', 'irecv', 'barrier', 'TCPStore', 'P2POp', 'set_comm_ops_inplace', "
                         "'init_process_group', 'get_rank') if hasattr(ms.ops, n)]",
})
