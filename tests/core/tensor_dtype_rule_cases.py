"""Calls whose result dtype follows a MindSpore 2.10 rule beyond plain promotion: products and running
products of integer and bool tensors in int64 (so they do not overflow the input's type), Python operators
and element-wise extremes on bool tensors (logical), bool reductions by primitive, and ``ops.floor_div``.
scripts/record_tensor_overloads.py records them into tests/fixtures/mindspore/tensor_dtype_rules.json;
tests/core/test_tensor_overloads.py replays them. Expressions over the names SETUP defines."""

# Recorded one call per process: MindSpore 2.10 repeats a failed kernel selection's error on the next call.
ISOLATED = True

SETUP = """
ops = ms.ops
t = ms.Tensor(np.array([True, False]))
u = ms.Tensor(np.array([True, True]))
big = ms.Tensor(np.array([2 ** 20, 2 ** 20], np.int32))
"""

_DTYPES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32")


def _x(dt: str) -> str:
    return "ms.Tensor(np.array([True, True]))" if dt == "bool" else f"ms.Tensor(np.array([3, 2], np.{dt}))"


CASES = [
    *[f"ops.prod({_x(dt)})" for dt in _DTYPES],
    *[f"{_x(dt)}.prod()" for dt in _DTYPES],
    *[f"ops.cumprod({_x(dt)}, 0)" for dt in _DTYPES],
    *[f"ops.ReduceProd()({_x(dt)})" for dt in _DTYPES],
    *[f"ops.ReduceSum()({_x(dt)})" for dt in _DTYPES],
    *[f"ops.sum({_x(dt)})" for dt in _DTYPES],
    "ops.prod(big)", "big.prod()", "ops.cumprod(big, 0)", "ops.prod(big, 0, True)",
    "ops.prod(big, dtype=ms.float32)", "ops.prod(ms.Tensor(np.array([1.5, 2.0], np.float32)), dtype=ms.int32)",
    "ops.prod(ms.Tensor(np.array([[1, 2], [3, 4]], np.int8)), axis=1, keep_dims=True)",
    "ops.cumprod(big, 0, dtype=ms.float32)",
    "t + u", "t - u", "t * u", "u - u", "t + 1", "t + ms.Tensor(np.array([1, 2], np.int32))", "t * 2.5",
    "ops.maximum(t, u)", "ops.minimum(t, u)", "ops.addn([t, u])", "ops.add(t, u)", "ops.mul(t, u)",
    "ops.floor_div(ms.Tensor(np.array([-7, 7], np.int32)), ms.Tensor(np.array([2, -2], np.int32)))",
    "ops.floor_div(ms.Tensor(np.array([-7.5, 7.5], np.float32)), 2)",
    *[f"ops.unique(ms.Tensor(np.array([3, 1, 3], np.{dt})))" for dt in ("int64", "int32", "float32", "uint8")],
]
