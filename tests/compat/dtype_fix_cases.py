"""Integer, bool, float16 and edge-value inputs of ``ops.inv``/``lgamma``/``sinc``/``addbmm``/``searchsorted``/
``cholesky_inverse``, their primitive classes (``Inv``, ``Lgamma``, ``Sinc``, ``SearchSorted``,
``CholeskyInverse``) and Tensor methods, in PyNative (``CASES``: expressions over the names ``SETUP`` defines)
and inside a GRAPH_MODE Cell (``GRAPH``: a callable's expression and its arguments' expressions).
scripts/record_dtype_fixes.py records MindSpore 2.10's values, dtypes and shapes into
tests/fixtures/mindspore/dtype_fixes.json; tests/compat/test_dtype_fixes.py replays them."""

SETUP = """
ops = ms.ops
def T(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([True, False, True]))
    if dt.startswith('uint'):
        return ms.Tensor(np.array([0, 1, 2, 7], dt))
    if dt.startswith('int'):
        return ms.Tensor(np.array([-3, -1, 0, 1, 2, 7], dt))
    return ms.Tensor(np.array([-2.5, -2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 1e-3, np.inf, -np.inf, np.nan], dt))
def B(dt, shape):
    n = int(np.prod(shape))
    if dt == 'bool':
        return ms.Tensor((np.arange(n) % 3 != 1).reshape(shape))
    return ms.Tensor(((np.arange(n) % 5) - (0 if dt.startswith('uint') else 2)).reshape(shape).astype(dt))
def S(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([False, False, True, True]))
    return ms.Tensor(np.array([0, 1, 1, 3, 5], dt))
def V(dt):
    if dt == 'bool':
        return ms.Tensor(np.array([True, False]))
    return ms.Tensor(np.array([1, 0, 4, 6, 3], dt))
def C(dt):
    # not triangular: MindSpore's CholeskyInverse and opbuild must agree on which entries they read
    return ms.Tensor(np.array([[2.0, 0.5, -1.0], [0.3, 1.5, 0.25], [-0.4, 0.7, 3.0]], dt))
"""

INTS = ("bool", "int8", "uint8", "int16", "int32", "int64")
FLOATS = ("float16", "float32", "float64")
DTYPES = INTS + FLOATS

CASES = [
    *[f"{f}(T('{dt}'))" for f in ("ops.inv", "ops.Inv()", "ops.lgamma", "ops.Lgamma()", "ops.sinc", "ops.Sinc()")
      for dt in DTYPES],
    *[f"T('{dt}').{m}()" for m in ("inv", "lgamma", "sinc") for dt in DTYPES],
    *[f"ops.addbmm(B('{dt}', (2, 2)), B('{dt}', (3, 2, 4)), B('{dt}', (3, 4, 2)))" for dt in DTYPES],
    *[f"ops.addbmm(B('{dt}', (2, 2)), B('{dt}', (3, 2, 4)), B('{dt}', (3, 4, 2)), beta=2, alpha=3)" for dt in DTYPES],
    *[f"ops.addbmm(B('{dt}', (2, 2)), B('{dt}', (3, 2, 4)), B('{dt}', (3, 4, 2)), beta=0.5, alpha=1.5)"
      for dt in ("int32", "float32")],
    *[f"B('{dt}', (2, 2)).addbmm(B('{dt}', (3, 2, 4)), B('{dt}', (3, 4, 2)))" for dt in ("int8", "int32", "float16")],
    *[f"ops.searchsorted(S('{dt}'), V('{dt}'))" for dt in DTYPES],
    *[f"ops.searchsorted(S('{dt}'), V('{dt}'), out_int32=True, right=True)" for dt in ("int32", "float32")],
    "ops.searchsorted(S('float32'), V('float32'), side='right')",
    "ops.searchsorted(S('int64'), V('int32'))", "ops.searchsorted(S('float32'), V('int64'))",
    "ops.searchsorted(S('int32'), V('float32'))",
    *[f"ops.SearchSorted()(S('{dt}'), V('{dt}'))" for dt in ("int32", "float32", "float16", "bool")],
    "ops.SearchSorted(dtype=ms.int32, right=True)(S('float32'), V('float32'))",
    *[f"S('{dt}').searchsorted(V('{dt}'))" for dt in ("int32", "float32", "float64")],
    *[f"{f}(C('{dt}'))" for f in ("ops.cholesky_inverse", "ops.CholeskyInverse()") for dt in FLOATS],
    "ops.cholesky_inverse(C('float32'), upper=True)", "ops.cholesky_inverse(C('float64'), True)",
    "ops.CholeskyInverse(upper=True)(C('float32'))", "ops.cholesky_inverse(C('int32'))",
    "C('float32').cholesky_inverse()", "C('float64').cholesky_inverse(upper=True)",
]

GRAPH = [
    *[(f, [f"T('{dt}')"]) for f in ("ops.inv", "ops.Inv()", "ops.lgamma", "ops.Lgamma()", "ops.sinc", "ops.Sinc()")
      for dt in ("bool", "int8", "int32", "int64", "float16", "float32")],
    *[("ops.addbmm", [f"B('{dt}', (2, 2))", f"B('{dt}', (3, 2, 4))", f"B('{dt}', (3, 4, 2))"])
      for dt in ("int8", "int32", "float16", "float32")],
    *[("ops.searchsorted", [f"S('{dt}')", f"V('{dt}')"]) for dt in ("int32", "float32")],
    ("ops.SearchSorted(dtype=ms.int32, right=True)", ["S('float32')", "V('float32')"]),
    ("ops.cholesky_inverse", ["C('float32')"]), ("ops.CholeskyInverse(upper=True)", ["C('float64')"]),
]


def graph_key(fn: str, args: list[str]) -> str:
    """The fixture key of a GRAPH case."""
    return f"graph: {fn}({', '.join(args)})"
