"""The functional API over integer, bool and float16 inputs, beyond tests/core/int_input_cases.py: elementwise
unary and binary functions, activations, reductions and scans called with one dtype each.
scripts/record_dtype_fixes.py records MindSpore 2.10's values, dtypes and shapes (or its error's type) into
tests/fixtures/mindspore/int_dtypes.json; tests/compat/test_int_dtypes.py replays them. Expressions over the names
tests/compat/dtype_fix_cases.py's ``SETUP`` defines, plus ``T2`` (a second operand of ``T``'s shape)."""

from tests.compat.dtype_fix_cases import SETUP as _SETUP

SETUP = _SETUP + """
def T2(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([True, True, False]))
    if dt.startswith('uint'):
        return ms.Tensor(np.array([3, 1, 2, 1], dt))
    if dt.startswith('int'):
        return ms.Tensor(np.array([2, 3, -1, 4, 1, -2], dt))
    return ms.Tensor(np.array([1.5, -1.0, 2.0, 0.5, -3.0, 2.0, 0.25, -1.5, 4.0, 1.0, 2.0, 0.5], dt))
"""

DTYPES = ("bool", "int8", "uint8", "int32", "int64", "float16")

UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf", "erfc",
         "erfinv", "exp", "exp2", "expm1", "floor", "log", "log10", "log1p", "log2", "logit", "neg", "negative",
         "relu6", "rsqrt", "sigmoid", "sign", "sin", "sinh", "square", "tan", "tanh", "softsign", "sgn", "signbit",
         "i0", "bessel_j0", "bessel_i0", "mish", "hardswish", "hardsigmoid", "silu", "gelu", "selu", "elu",
         "softplus", "logsigmoid", "angle", "conj", "real", "imag", "deg2rad", "rad2deg", "nan_to_num", "isinf",
         "isneginf", "isposinf", "isreal", "logical_not", "invert", "relu", "leaky_relu", "hardtanh", "tanhshrink",
         "softshrink", "hardshrink", "celu", "count_nonzero", "msort", "mean", "prod", "amax", "amin", "argmin",
         "all", "any", "diff", "logsumexp", "std", "var", "median")
UNARY_ARGS = {"cumprod": ", 0", "cummax": ", 0", "cummin": ", 0", "flip": ", (0,)", "softmax": ", 0",
              "log_softmax": ", 0", "topk": ", 2", "sort": "", "max": "", "min": "", "aminmax": "", "std_mean": "",
              "var_mean": "", "logsumexp": ", 0", "polygamma": None}
BINARY = ("add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "maximum",
          "minimum", "atan2", "hypot", "copysign", "logaddexp", "logaddexp2", "heaviside", "gcd", "lcm",
          "bitwise_and", "bitwise_or", "bitwise_xor", "ldexp", "nextafter", "fmax", "fmin", "eq", "ne", "lt", "le",
          "logical_and", "logical_xor", "xdivy", "float_power", "igamma")

CASES = [
    *[f"ops.{f}(T('{dt}'))" for f in UNARY for dt in DTYPES],
    *[f"ops.{f}(T('{dt}'){a})" for f, a in UNARY_ARGS.items() if a is not None for dt in DTYPES],
    *[f"ops.polygamma(ms.Tensor(1), T('{dt}'))" for dt in DTYPES],
    *[f"ops.{f}(T('{dt}'), T2('{dt}'))" for f in BINARY for dt in DTYPES],
]
GRAPH: list = []



# Differences found and not yet resolved (tests/compat/test_int_dtypes.py marks them strict xfail, so one that
# starts to match must leave these lists): see docs/mindspore-compat.md.
# MindSpore computes, opbuild refuses the dtype: none now (selu of int8/int32 is computed as MindSpore's,
# tests/compat/int_activation_cases.py).
OPEN_OPBUILD_REFUSES: tuple[str, ...] = ()

# MindSpore's CPU refuses (no kernel for the dtype), opbuild computes a result.
OPEN_MINDSPORE_REFUSES = (
    "ops.log10(T('bool'))",
    "ops.log10(T('int8'))",
    "ops.log10(T('uint8'))",
    "ops.log10(T('int32'))",
    "ops.log10(T('int64'))",
    "ops.log2(T('bool'))",
    "ops.log2(T('int8'))",
    "ops.log2(T('uint8'))",
    "ops.log2(T('int32'))",
    "ops.log2(T('int64'))",
    "ops.logit(T('bool'))",
    "ops.logit(T('int8'))",
    "ops.logit(T('uint8'))",
    "ops.logit(T('int32'))",
    "ops.logit(T('int64'))",
    "ops.relu6(T('int8'))",
    "ops.relu6(T('uint8'))",
    "ops.relu6(T('int32'))",
    "ops.relu6(T('int64'))",
    "ops.sign(T('int8'))",
    "ops.sign(T('uint8'))",
    "ops.sgn(T('int8'))",
    "ops.sgn(T('uint8'))",
    "ops.conj(T('bool'))",
    "ops.real(T('uint8'))",
    "ops.deg2rad(T('bool'))",
    "ops.deg2rad(T('int8'))",
    "ops.deg2rad(T('uint8'))",
    "ops.deg2rad(T('int32'))",
    "ops.deg2rad(T('int64'))",
    "ops.rad2deg(T('bool'))",
    "ops.rad2deg(T('int8'))",
    "ops.rad2deg(T('uint8'))",
    "ops.rad2deg(T('int32'))",
    "ops.rad2deg(T('int64'))",
    "ops.nan_to_num(T('bool'))",
    "ops.nan_to_num(T('int8'))",
    "ops.nan_to_num(T('uint8'))",
    "ops.nan_to_num(T('int32'))",
    "ops.nan_to_num(T('int64'))",
    "ops.count_nonzero(T('bool'))",
    "ops.mean(T('bool'))",
    "ops.argmin(T('bool'))",
    "ops.std(T('bool'))",
    "ops.std(T('int8'))",
    "ops.std(T('uint8'))",
    "ops.std(T('int32'))",
    "ops.std(T('int64'))",
    "ops.var(T('bool'))",
    "ops.var(T('int8'))",
    "ops.var(T('uint8'))",
    "ops.var(T('int32'))",
    "ops.var(T('int64'))",
    "ops.median(T('int8'))",
    "ops.median(T('uint8'))",
    "ops.median(T('float16'))",
    "ops.std_mean(T('bool'))",
    "ops.std_mean(T('int8'))",
    "ops.std_mean(T('uint8'))",
    "ops.std_mean(T('int32'))",
    "ops.std_mean(T('int64'))",
    "ops.var_mean(T('bool'))",
    "ops.var_mean(T('int8'))",
    "ops.var_mean(T('uint8'))",
    "ops.var_mean(T('int32'))",
    "ops.var_mean(T('int64'))",
    "ops.logsumexp(T('bool'), 0)",
    "ops.logsumexp(T('int8'), 0)",
    "ops.logsumexp(T('uint8'), 0)",
    "ops.logsumexp(T('int32'), 0)",
    "ops.logsumexp(T('int64'), 0)",
    "ops.hypot(T('bool'), T2('bool'))",
    "ops.hypot(T('int8'), T2('int8'))",
    "ops.hypot(T('uint8'), T2('uint8'))",
    "ops.hypot(T('int32'), T2('int32'))",
    "ops.hypot(T('int64'), T2('int64'))",
    "ops.hypot(T('float16'), T2('float16'))",
    "ops.copysign(T('bool'), T2('bool'))",
    "ops.logaddexp(T('bool'), T2('bool'))",
    "ops.logaddexp(T('int8'), T2('int8'))",
    "ops.logaddexp(T('uint8'), T2('uint8'))",
    "ops.logaddexp(T('int32'), T2('int32'))",
    "ops.logaddexp(T('int64'), T2('int64'))",
    "ops.logaddexp2(T('bool'), T2('bool'))",
    "ops.logaddexp2(T('int8'), T2('int8'))",
    "ops.logaddexp2(T('uint8'), T2('uint8'))",
    "ops.logaddexp2(T('int32'), T2('int32'))",
    "ops.logaddexp2(T('int64'), T2('int64'))",
    "ops.heaviside(T('bool'), T2('bool'))",
    "ops.gcd(T('int8'), T2('int8'))",
    "ops.gcd(T('uint8'), T2('uint8'))",
    "ops.lcm(T('int8'), T2('int8'))",
    "ops.lcm(T('uint8'), T2('uint8'))",
    "ops.fmax(T('bool'), T2('bool'))",
    "ops.fmax(T('int8'), T2('int8'))",
    "ops.fmax(T('uint8'), T2('uint8'))",
    "ops.fmin(T('int8'), T2('int8'))",
    "ops.fmin(T('uint8'), T2('uint8'))",
    "ops.fmin(T('int32'), T2('int32'))",
    "ops.fmin(T('int64'), T2('int64'))",
    "ops.fmin(T('float16'), T2('float16'))",
    "ops.xdivy(T('bool'), T2('bool'))",
    "ops.xdivy(T('int8'), T2('int8'))",
    "ops.xdivy(T('uint8'), T2('uint8'))",
    "ops.xdivy(T('int32'), T2('int32'))",
    "ops.xdivy(T('int64'), T2('int64'))",
)

# Both compute, the values differ: MindSpore's float16 max/min/relu/sign drop NaN, bool floor_divide/
# remainder/fmod by False and integer 0 ** -1 (undefined) give other numbers.
OPEN_VALUES = (
    "ops.digamma(T('float16'))",
    "ops.relu6(T('float16'))",
    "ops.sign(T('float16'))",
    "ops.sgn(T('float16'))",
    "ops.bessel_j0(T('float16'))",
    "ops.mish(T('float16'))",
    "ops.hardswish(T('float16'))",
    "ops.softplus(T('float16'))",
    "ops.relu(T('float16'))",
    "ops.hardtanh(T('float16'))",
    "ops.amax(T('float16'))",
    "ops.amin(T('float16'))",
    "ops.argmin(T('float16'))",
    "ops.any(T('uint8'))",
    "ops.log_softmax(T('float16'), 0)",
    "ops.topk(T('float16'), 2)",
    "ops.max(T('float16'))",
    "ops.min(T('float16'))",
    "ops.polygamma(ms.Tensor(1), T('float16'))",
    "ops.floor_divide(T('bool'), T2('bool'))",
    "ops.floor_divide(T('float16'), T2('float16'))",
    "ops.remainder(T('bool'), T2('bool'))",
    "ops.fmod(T('bool'), T2('bool'))",
    "ops.pow(T('int32'), T2('int32'))",
    "ops.pow(T('int64'), T2('int64'))",
    "ops.maximum(T('float16'), T2('float16'))",
    "ops.minimum(T('float16'), T2('float16'))",
    "ops.logaddexp(T('float16'), T2('float16'))",
    "ops.logaddexp2(T('float16'), T2('float16'))",
    "ops.heaviside(T('float16'), T2('float16'))",
)
OPEN = frozenset(OPEN_OPBUILD_REFUSES + OPEN_MINDSPORE_REFUSES + OPEN_VALUES)


def graph_key(fn: str, args: list[str]) -> str:
    """The fixture key of a GRAPH case."""
    return f"graph: {fn}({', '.join(args)})"
