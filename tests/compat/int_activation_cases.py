"""The activations MindSpore 2.10 computes over integers and bool, keeping the dtype (``hardswish``,
``hardsigmoid``, ``leaky_relu``, ``hardtanh``), over the whole int8 range and with non-integral arguments:
its CPU rounds toward zero, casts ``leaky_relu``'s alpha to the integer dtype first (0.5 -> 0, 1.7 -> 1) and
clips ``hardtanh`` to its float bounds before rounding. scripts/record_dtype_fixes.py int_activation_cases
records tests/fixtures/mindspore/int_activations.json; tests/compat/test_int_activations.py replays it."""

SETUP = """
ops = ms.ops
def W(dt):
    x = np.array([-128, -100, -20, -18, -17, -11, -6, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 9, 20, 100, 127])
    if dt == 'bool':
        return ms.Tensor(np.array([True, False, True]))
    return ms.Tensor((np.abs(x) if dt.startswith('uint') else x).astype(dt))
"""

CALLS = ("ops.hardswish({})", "ops.hardsigmoid({})", "ops.leaky_relu({})", "ops.leaky_relu({}, 0.5)",
         "ops.leaky_relu({}, 1.7)", "ops.leaky_relu({}, -0.5)", "ops.hardtanh({})", "ops.hardtanh({}, -2.5, 2.5)",
         "ops.hardtanh({}, 0.5, 7.5)", "ops.selu({})", "ms.nn.SeLU()({})")
DTYPES = ("bool", "int8", "uint8", "int16", "int32", "int64")

CASES = [call.format(f"W('{dt}')") for call in CALLS for dt in DTYPES]
# The same functions inside a GRAPH_MODE Cell (MindSpore's graph compiles its own kernels).
GRAPH = [("ops.hardswish", ["W('int32')"]), ("ops.hardsigmoid", ["W('int8')"]), ("ops.leaky_relu", ["W('int64')"]),
         ("ops.hardtanh", ["W('int16')"]), ("ops.selu", ["W('int32')"]), ("ms.nn.SeLU()", ["W('int8')"]),
         ("ops.selu", ["W('bool')"])]


def graph_key(fn: str, args: list[str]) -> str:
    """The fixture key of a GRAPH case."""
    return f"graph: {fn}({', '.join(args)})"


# Integer selu (int8 and int32 only; other integers and bool are refused): MindSpore casts selu's scale and
# alpha to the integer dtype, as leaky_relu's alpha (both 1), so x > 0 stays x and the negative branch is
# exp(x) - 1 computed in float32 and truncated: 0 down to -17, -1 from -18 on (where it rounds to -1).
# Difference kept (a strict xfail in tests/compat/test_int_activations.py): MindSpore's bool leaky_relu with
# alpha > 1 fails for want of a bool Minimum kernel, where opbuild returns the input.
OPEN = frozenset({"ops.leaky_relu(W('bool'), 1.7)"})
