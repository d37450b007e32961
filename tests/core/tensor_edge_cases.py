"""Calls at the edges of an op's domain where MindSpore 2.10's CPU answer is not the obvious one: gathers
with negative indices (counted from the end), squeezes of axes whose size is not 1 (left in place), and
``ops.full`` with a bool value and a size tuple (int64). scripts/record_tensor_overloads.py records them into
tests/fixtures/mindspore/tensor_edges.json; tests/core/test_tensor_overloads.py replays them. Expressions
over the names SETUP defines."""

# Recorded one call per process: MindSpore 2.10 repeats a failed kernel selection's error on the next call.
ISOLATED = True

SETUP = """
ops = ms.ops
x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
y = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4, 1))
neg = ms.Tensor(np.array([-1, -3, 0], np.int32))
"""

CASES = [
    "ops.gather(x, neg, 1)", "ops.gather(x, neg, 0)", "ops.gather(x, neg, -1)", "ops.Gather()(x, neg, 0)",
    "ops.gather(x, ms.Tensor(np.array([[-1], [-2]], np.int64)), 0)", "ops.index_select(x, 1, neg)",
    "x.gather(neg, 1)", "ops.gather(x, ms.Tensor(np.array([-4, 3], np.int32)), 1)",
    "ops.squeeze(x, 0)", "ops.squeeze(y, (0, 1))", "ops.squeeze(y, 2)", "ops.squeeze(y)",
    "ops.Squeeze(0)(x)", "ops.Squeeze((0, 1))(y)", "x.squeeze(0)", "y.squeeze((1, 2))",
    "ops.full((2,), True)", "ops.full((2, 1), False)", "ops.full((2,), True, dtype=ms.bool_)",
    "ops.full((2,), 3)", "ops.full((2,), 1.5)",
]
