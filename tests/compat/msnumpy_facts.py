"""Small facts of ``mindspore.numpy`` (its dtype names, the dtypes of its defaults and promotions, Python
results, refusals) whose ``str(result)`` scripts/record_msnumpy.py records from MindSpore 2.10 and
tests/numpy/test_msnumpy_programs.py compares with opbuild's. Each program runs with ``ms`` (the framework,
its NumPy layer imported as ``ms.numpy``) and ``np`` and sets ``result``; imports no framework itself."""

M = "mnp = ms.numpy\n"

CASES = {
    "dtype_names": M + "result = [mnp.int_, mnp.float_, mnp.bool_, mnp.int8, mnp.uint16, mnp.float16, mnp.float64]",
    "constants": M + ("result = [(n, getattr(mnp, n)) for n in ('pi', 'e', 'inf', 'nan', 'euler_gamma', 'newaxis', "
                      "'PINF', 'NINF') if hasattr(mnp, n)]"),
    "array_dtypes": M + ("result = [mnp.array(v).dtype for v in ([1, 2], [1, 2.5], True, 3, 2.5, (1, 2), "
                         "[[1], [2]], [True, False])]"),
    "asarray_dtype_arg": M + "result = [mnp.asarray([1, 2], d).dtype for d in ('float32', mnp.int8, 'int16')]",
    "asfarray": M + "result = (mnp.asfarray([1, 2]).dtype, mnp.asfarray([1, 2], mnp.int32).dtype)",
    "filled_dtypes": M + ("result = [mnp.zeros(2).dtype, mnp.ones((2,), 'int32').dtype, mnp.full(2, 3).dtype, "
                          "mnp.full(2, 2.5).dtype, mnp.full(2, True).dtype, mnp.empty(2).dtype, "
                          "mnp.full((2, 2), [1.5, 2]).dtype, mnp.eye(2).dtype, mnp.tri(2).dtype]"),
    "range_dtypes": M + ("result = [mnp.arange(3).dtype, mnp.arange(0.5, 2).dtype, mnp.arange(0, 1, 0.5).dtype, "
                         "mnp.linspace(0, 1, 3).dtype, mnp.logspace(0, 1, 3).dtype, mnp.arange(3, dtype='float32')]"),
    "linspace_retstep": M + "result = mnp.linspace(0, 1, 5, retstep=True)",
    "sum_dtypes": M + ("x = mnp.array([1, 2, 3], mnp.int8)\nb = mnp.array([True, False, True])\n"
                       "i = mnp.array([1, 2, 3])\nresult = [mnp.sum(x).dtype, mnp.sum(i).dtype, mnp.count_nonzero(i), "
                       "mnp.mean(i).dtype, mnp.argmax(i).dtype, mnp.cumsum(x).dtype, mnp.sum(i, dtype=mnp.float32)]"),
    "promote_scalars": M + ("i8 = mnp.array([1, 2], mnp.int8)\nf16 = mnp.array([1, 2], mnp.float16)\n"
                            "i = mnp.array([1, 2])\nresult = [mnp.add(i8, 1).dtype, mnp.add(f16, 1.0).dtype, "
                            "mnp.add(i, 1.5).dtype]"),
    "promote_divide_int": M + "i = mnp.array([1, 2])\nresult = mnp.divide(i, i)",
    "promote_int8_int32": M + "result = mnp.add(mnp.array([1, 2], mnp.int8), mnp.array([1, 2])).dtype",
    "promote_f16_int32": M + "result = mnp.multiply(mnp.array([1, 2], mnp.float16), mnp.array([1, 2])).dtype",
    "mean_int": M + ("i = mnp.array([[1, 2], [4, 4], [-3, 0]])\nresult = (mnp.mean(i), mnp.mean(i, 0), mnp.mean(i, 1), "
                     "mnp.std(i), mnp.var(i, 0), mnp.average(i))"),
    "cumsum_dtypes": M + ("result = [mnp.cumsum(mnp.array([1, 2], d)).dtype for d in (mnp.int8, mnp.int16, "
                          "mnp.int32, mnp.uint8, mnp.float16)]"),
    "size_isscalar": M + ("x = mnp.ones((2, 3))\nresult = (mnp.size(x), mnp.size(x, 0), mnp.isscalar(x), "
                          "mnp.isscalar(1))"),
    "array_equal_types": M + ("a = mnp.array([1, 2])\nresult = (mnp.array_equal(a, [1, 2]), "
                              "mnp.array_equal(a, [1, 3]), mnp.array_equiv(a, [[1, 2], [1, 2]]), "
                              "mnp.array_equiv(a, [1, 2, 3]))"),
    "result_type": M + ("result = (mnp.result_type(mnp.int8, mnp.int16), mnp.result_type('int32', 1.0), "
                        "mnp.promote_types(mnp.int32, mnp.float16), mnp.promote_types('int8', 'uint8'))"),
    "unique_inverse": M + "result = mnp.unique(mnp.array([3, 1, 3, 2, 1]), return_inverse=True)",
    "argwhere": M + "result = mnp.argwhere(mnp.array([[0, 1], [2, 0]]))",
    "set_functions": M + ("a, b = mnp.array([5, 1, 3, 3, 7]), mnp.array([3, 4, 5])\n"
                          "result = (mnp.intersect1d(a, b), mnp.setdiff1d(a, b))"),
    "repr_ones": M + "result = repr(mnp.ones((2,)))",
    "array_str": M + "result = mnp.array_str(mnp.arange(3) * 0.5)",
    "split_unequal_refused": M + "result = mnp.split(mnp.arange(5), 2)",
    "reshape_bad_refused": M + "result = mnp.reshape(mnp.arange(6), (4, 2))",
    "arange_zero_step_refused": M + "result = mnp.arange(0, 3, 0)",
    "concatenate_ranks_refused": M + "result = mnp.concatenate((mnp.ones((2, 2)), mnp.ones(2)))",
}
