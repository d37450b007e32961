"""Integer, bool and float16 inputs where MindSpore 2.10's answer is not the float32 one: ``sqrt``/
``reciprocal`` of integers in float32, ``isnan``/``isfinite``/``trunc``/``round`` taking integers, ``abs``/
``relu`` returning bool tensors, norms of integers, int8/uint8/int16 matrix products in their own dtype, argmax
of bool, the Tensor method ``cumsum`` widening narrow integers to int32, ``nansum``/``trace`` keeping an integer
dtype, float16 ``histc`` counting in float32, ordered comparisons of bools, and negative Python ints wrapped
into an unsigned tensor's dtype. scripts/record_tensor_overloads.py records them into
tests/fixtures/mindspore/int_inputs.json; tests/core/test_tensor_overloads.py replays them. Expressions over
the names SETUP defines."""

# Recorded one call per process: MindSpore 2.10 repeats a failed kernel selection's error on the next call.
ISOLATED = True

SETUP = """
ops = ms.ops
def T(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([True, False, True, True]))
    if dt.startswith('uint'):
        return ms.Tensor(np.array([3, 0, 2, 5], dt))
    if dt.startswith('int'):
        return ms.Tensor(np.array([-3, 0, 2, 5], dt))
    return ms.Tensor(np.array([-2.5, 0.0, 1.5, 4.0], dt))
def M(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([[True, False, True], [False, False, True]]))
    if dt.startswith('uint'):
        return ms.Tensor(np.array([[1, 2, 3], [4, 0, 6]], dt))
    return ms.Tensor(np.array([[1, -2, 3], [4, 0, -6]], dt))
def P(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([True, True, False, True]))
    return ms.Tensor(np.array([1, 4, 9, 2], dt))
"""

_INTS = ("bool", "int8", "uint8", "int16", "int32", "int64")
_NARROW = ("int8", "uint8", "int16")

CASES = [
    *[f"ops.{f}(T('{dt}'))" for f in ("sqrt", "reciprocal", "isnan", "isfinite", "trunc") for dt in _INTS],
    *[f"T('{dt}').{m}()" for m in ("sqrt", "reciprocal", "isnan", "trunc") for dt in ("bool", "int8", "int64")],
    "ops.round(T('int32'))", "ops.round(T('int64'))", "T('int64').round()", "round(ms.Tensor(np.array(3, 'int32')))",
    "round(ms.Tensor(np.array(2.5, 'float32')))", "ops.abs(T('bool'))", "T('bool').abs()", "abs(T('bool'))",
    "ops.relu(T('bool'))", "ops.frac(T('int8'))", "ops.frac(T('int64'))", "ops.frac(T('bool'))",
    "ops.absolute(T('int32'))", "ops.absolute(T('bool'))", "ops.absolute(T('float16'))",
    "str(ops.dtype(M('int16')))", "ops.sqrt(ms.Tensor(np.array(3, 'int64')))",
    *[f"ops.norm(M('{dt}'))" for dt in ("int8", "uint8", "int32", "int64")], "M('int16').norm()",
    *[f"ops.matmul(M('{dt}'), M('{dt}').T)" for dt in _NARROW], *[f"M('{dt}') @ M('{dt}').T" for dt in _NARROW],
    "ops.mm(M('int8'), M('int8').T)", "ops.bmm(M('uint8').reshape(1, 2, 3), M('uint8').reshape(1, 3, 2))",
    "ops.inner(M('int16'), M('int16'))", "ops.tensor_dot(M('int8'), M('int8'), ((1,), (1,)))",
    "ops.matmul(M('int32'), M('int32').T)",
    "ops.argmax(M('bool'))", "ops.argmax(M('bool'), 1)", "M('bool').argmax()",
    *[f"M('{dt}').cumsum(0)" for dt in ("bool", "int8", "uint8", "int16", "int32")], "ops.cumsum(M('int8'), 1)",
    *[f"ops.nansum(M('{dt}'))" for dt in ("bool", "int8", "uint8", "int16", "int32", "int64")],
    *[f"ops.trace(M('{dt}').reshape(3, 2))" for dt in ("int8", "uint8", "int16", "int32", "int64")],
    "ops.histc(T('float16'), 4)", "ops.histc(T('float32'), 4)", "ops.histc(T('int32'), 4)",
    "ops.xlogy(T('int16'), P('float16'))", "ops.xlogy(T('bool'), P('float16'))", "ops.xlogy(T('int32'), P('float32'))",
    "ops.div(T('bool'), -2, rounding_mode='trunc')", "ops.div(T('int8'), -2, rounding_mode='trunc')",
    "ops.div(T('bool'), 2, rounding_mode='floor')",
    "ops.gt(T('bool'), P('bool'))", "ops.le(T('bool'), P('bool'))", "T('bool') < P('bool')", "T('bool') >= P('bool')",
    "ops.floor_divide(T('uint8'), -2)", "ops.remainder(T('uint8'), -2)", "T('uint8') // -2", "T('uint8') % -2",
    "-7 // P('uint8')", "ops.clip(T('uint8'), -1, 3)",
    "ops.ReduceAll()(M('bool'))", "ops.ReduceAll()(M('int8'))", "ops.ReduceAll(True)(M('float32'), 1)",
    "ops.ReduceAll()(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)), 0)",
    "ops.positive(T('bool'))", "ops.positive(T('int8'))",
    "ops.ReduceMean()(M('uint8'))", "ops.ReduceMean(True)(M('uint8'), 1)", "ops.ReduceMean()(M('int64'), 0)",
    "ops.ReduceMean()(ms.Tensor(np.array([-3, 0, 2], np.int32)))", "ops.ReduceMean()(M('bool'))",
    "ops.norm(M('int8'), 1)", "ops.norm(M('int32'), -1)", "ops.norm(T('int8'), float('inf'))",
    "ops.norm(M('uint8'), float('inf'), 0)", "ops.norm(M('int64'), -float('inf'))", "ops.norm(T('int32'), 0)",
    "ops.norm(M('bool'), 1, (0, 1))", "ops.norm(T('uint8'), 2)", "ops.norm(M('int16'), 'fro')",
    "ops.norm(M('int32'), None, 1)", "ops.norm(M('int8'), 1, dtype=ms.float32)", "M('int32').norm(1)",
    "ops.isclose(M('bool'), M('bool'))", "ops.isclose(T('bool'), P('bool'))", "ops.isclose(T('uint8'), P('uint8'))",
    "ms.Tensor(np.array([[1.5, -2.0, 3.25]], np.float32)).cumsum(axis=1, dtype=ms.int64)",
    "M('int8').cumsum(1, dtype=ms.int8)",
    "M('bool').cumsum(0, dtype=ms.float32)",
    "ops.kron(T('bool'), P('bool'))", "ops.kron(M('bool'), M('bool'))",
    "ops.scatter_nd(ms.Tensor(np.array([[1], [1], [3]], np.int32)), ms.Tensor(np.array([True, False, True])), (4,))",
    "ops.pad(T('bool'), (1, 1), value=2)", "ops.pad(T('int32'), (1, 1), value=2.5)",
    "ops.pad(T('uint8'), (1, 1), value=-1)",
    "ops.pad(T('float16'), (2, 1), value=3)",
    "ops.xlogy(ms.Tensor(np.array([0.0, 1.0, 0.0, 2.0], np.float32)), ms.Tensor(np.array([0.0, 0.0, -1.0, 3.0], "
    "np.float32)))", "ops.xdivy(ms.Tensor(np.array([0.0, 1.0, 0.0, 2.0], np.float32)), ms.Tensor(np.array([0.0, 0.0, "
    "-1.0, 4.0], np.float32)))",
]
