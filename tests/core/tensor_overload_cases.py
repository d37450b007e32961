"""Calls of MindSpore 2.x's ``dim``/``keepdim`` Tensor overloads (and the NumPy-style ones beside them) that
scripts/record_tensor_overloads.py records from MindSpore 2.10 and tests/core/test_tensor_overloads.py
replays on opbuild. Each case is an expression over ``a`` (float32 [[0, 1, 2], [3, 4, 5]]), ``b`` (float32
[2, 3, 4] arange), ``i`` (int64 [[1, 2], [3, 4]]), ``idx`` (int32 [[0, 0], [1, 1]]) and the module ``ms``."""

SETUP = """
a = ms.Tensor(np.arange(6).reshape(2, 3).astype('float32'))
b = ms.Tensor(np.arange(24).reshape(2, 3, 4).astype('float32'))
i = ms.Tensor(np.array([[1, 2], [3, 4]]), dtype=ms.int64)
idx = ms.Tensor(np.array([[0, 0], [1, 1]]), ms.int32)
"""

CASES = [
    "a.max()", "a.max(0)", "a.min(1)", "a.max(0, True)", "a.max(dim=0)", "a.max(axis=0, keepdims=True)",
    "a.max(axis=0, return_indices=True)",
    "a.min(axis=0, initial=9, where=ms.Tensor([[False, True, True], [False, True, False]]))",
    "a.argmax(dim=1)", "a.argmax(1)", "a.argmax(dim=1, keepdim=True)", "a.argmin(dim=0)",
    "a.all(dim=1)", "a.all()", "a.sum()", "a.sum(1, keepdim=True)", "a.sum(dim=1)", "a.sum(axis=1)",
    "a.sum(dim=1, dtype=ms.float16)", "a.mean(dim=1)", "a.mean(1, keepdim=True)", "a.mean(0, True)",
    "a.prod(dim=1)", "a.sort(dim=0, descending=True)", "a.sort(axis=-1)", "a.cumsum(dim=1)", "a.cumsum(axis=0)",
    "a.chunk(3, dim=1)", "a.chunk(2, axis=0)", "a.transpose(0, 1)", "a.transpose(1, 0)", "b.transpose(0, 2)",
    "b.transpose((0, 2, 1))", "b.flatten(0, 1)", "b.flatten()", "b.flatten(order='C')",
    "a.add(a, alpha=0.5)", "a.sub(a, alpha=2)", "a.add(1)", "a.remainder(divisor=ms.Tensor(2.0))",
    "a.expand_as(x=ms.Tensor(np.ones((2, 2, 3), np.float32)))",
    "a.gather(1, ms.Tensor(np.array([[0, 0, 2], [1, 1, 0]]), ms.int32))",
    "a.gather(ms.Tensor(np.array([1, 0]), ms.int32), 0)",
    "i.view(ms.int32)", "a.view((3, 2))", "a.view(3, 2)",
    "a.select(0, 1)", "a.select(1, -1)",
    "ms.Tensor([2, 3], ms.float32).select(ms.Tensor([True, False]), ms.Tensor([1, 2], ms.float32))",
]
