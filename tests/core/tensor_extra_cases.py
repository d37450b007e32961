"""Calls of the whole-data Tensor methods (core/tensor_extras.py) that scripts/record_tensor_overloads.py
records from MindSpore 2.10 into tests/fixtures/mindspore/tensor_extras.json and
tests/core/test_tensor_overloads.py replays on opbuild. Expressions over the names SETUP defines."""

SETUP = """
a = ms.Tensor(np.arange(6).reshape(2, 3).astype('float32'))
m = ms.Tensor(np.array([[0.57, 0.11, 0.21], [0.38, 0.50, 0.57], [0.36, 0.16, 0.44]]).astype(np.float32))
s = ms.Tensor(np.array([[1, 0], [-5, 0]]), ms.float32)
z = ms.Tensor(np.zeros((5, 5)), dtype=ms.float32)
src = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), dtype=ms.float32)
"""

CASES = [
    "a.H", "a.data", "a.byte()", "a.has_init", "a.value()",
    "a.allclose(a)", "a.allclose(a + 1e-3)", "ms.Tensor(np.array([2, 3, 1, 0])).choose("
    "[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]])",
    "ms.Tensor.convert_bytes_to_tensor(a.get_bytes(), a.shape, a.dtype)",
    "a.storage_offset()", "a.stride()", "a.is_pinned()", "a.is_shared()", "a.move_to('CPU')",
    "a.set_const_arg(True)", "a.flush_from_cache()",
    "ms.Tensor(np.ones((6, 3)), ms.float32).fill_diagonal(5.0, wrap=True)",
    "ms.Tensor(np.ones((6, 3)), ms.float32).fill_diagonal(2.0)",
    "a.itemset((0, 1), 4)", "a.resize(3, 3)", "a.resize(2, 2)",
    "src.index_add(ms.Tensor(np.array([0, 2]), ms.int32), "
    "ms.Tensor(np.array([[0.5, 1.0], [1.0, 1.5], [2.0, 2.5]]), ms.float32), axis=1)",
    "ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]]).astype(np.int32)).index_put([ms.Tensor(np.array([0, 1, 1])"
    ".astype(np.int32)), ms.Tensor(np.array([1, 2, 1]).astype(np.int32))], ms.Tensor(np.array([3])"
    ".astype(np.int32)), True)",
    "ms.Tensor(np.array([1., 2., 3., 4.]), ms.float32).masked_scatter(ms.Tensor(np.array([True, True, False, "
    "True])), ms.Tensor(np.array([5., 6., 7.]), ms.float32))",
    "z.scatter(dim=0, index=ms.Tensor(np.array([[0, 0, 0], [2, 2, 2], [4, 4, 4]]), dtype=ms.int64), src=src)",
    "z.scatter(axis=1, index=ms.Tensor(np.array([[0, 2, 4], [0, 2, 4]]), dtype=ms.int64), src=src)",
    "m.median(axis=0, keepdims=False)", "m.median(dim=1, keepdim=True)", "m.median()",
    "ms.Tensor(np.ones((3, 3, 3, 3)), ms.float32).sum_to_size((1, 3, 1, 3))",
    "ms.Tensor(np.ones((2, 3, 4)), ms.float32).sum_to_size(3, 1)",
    "(s.to_coo().indices, s.to_coo().values, s.to_coo().shape)",
    "ms.Tensor([1, 2, 3, 4]).assign_value(ms.Tensor(np.array([[1, 2], [3, 4]])))",
    "(s.to_csr().indptr, s.to_csr().indices, s.to_csr().values, s.to_csr().shape)",
]
