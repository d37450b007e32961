"""Indexing and scatter calls with indices at and past the ends of their axes, where MindSpore 2.10's CPU
kernels raise (Gather, GatherD, GatherNd, the TensorScatter* family, ScatterNd, the in-place Scatter* and
ScatterNd* on a Parameter) or count a negative index from
the end. scripts/record_tensor_overloads.py records them into tests/fixtures/mindspore/index_bounds.json;
tests/core/test_tensor_overloads.py replays them (tests/ops/test_index_bounds.py checks opbuild's error in
both modes). Expressions over the names SETUP defines."""

# Recorded one call per process: MindSpore 2.10 repeats a failed kernel's error on the next call.
ISOLATED = True

SETUP = """
ops = ms.ops
x = ms.Tensor(np.arange(15, dtype=np.float32).reshape(5, 3))
u = ms.Tensor(np.ones((1, 3), np.float32))
def i32(v):
    return ms.Tensor(np.array(v, np.int32))
def param():
    return ms.Parameter(ms.Tensor(np.arange(15, dtype=np.float32).reshape(5, 3)), name="p")
"""

CASES = [
    "ops.gather(x, i32([0, 4]), 0)", "ops.gather(x, i32([0, 5]), 0)", "ops.gather(x, i32([-5, -1]), 0)",
    "ops.gather(x, i32([0, -6]), 0)", "ops.gather(x, i32([[2], [3]]), 1)", "ops.Gather()(x, i32([7]), 0)",
    "ops.index_select(x, 0, i32([5]))", "x.gather(i32([-4]), 1)", "x[i32([1, 5])]", "x[i32([-5])]",
    "ops.gather_elements(x, 1, i32([[0], [2], [-3], [0], [1]]))",
    "ops.gather_elements(x, 1, i32([[0], [3], [0], [0], [0]]))",
    "ops.gather_elements(x, 1, i32([[0], [-4], [0], [0], [0]]))",
    "ops.gather_nd(x, i32([[4, 2], [0, 0]]))", "ops.gather_nd(x, i32([[5, 0]]))", "ops.gather_nd(x, i32([[0, 3]]))",
    "ops.gather_nd(x, i32([[-1, 0]]))",
    "ops.tensor_scatter_update(x, i32([[4]]), u)", "ops.tensor_scatter_update(x, i32([[5]]), u)",
    "ops.tensor_scatter_update(x, i32([[-1]]), u)", "ops.tensor_scatter_add(x, i32([[5]]), u)",
    "ops.tensor_scatter_add(x, i32([[-1]]), u)", "ops.tensor_scatter_max(x, i32([[5]]), u)",
    "ops.TensorScatterSub()(x, i32([[6]]), u)", "ops.scatter_nd(i32([[4]]), u, (5, 3))",
    "ops.scatter_nd(i32([[5]]), u, (5, 3))", "ops.scatter_nd(i32([[-1]]), u, (5, 3))",
    "ops.ScatterNd()(i32([[5]]), u, (5, 3))", "ms.nn.Embedding(5, 3)(i32([1, 5]))",
    "ops.scatter_add(param(), i32([4]), u)", "ops.scatter_add(param(), i32([5]), u)",
    "ops.scatter_add(param(), i32([-1]), u)", "ops.ScatterUpdate()(param(), i32([-1]), u)",
    "ops.scatter_max(param(), i32([5]), u)", "ops.scatter_nd_update(param(), i32([[5]]), u)",
    "ops.scatter_nd_add(param(), i32([[-1]]), u)", "ops.scatter_nd_add(param(), i32([[2]]), u)",
]
