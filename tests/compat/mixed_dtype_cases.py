"""Programs calling ``ops.Select()(cond, x, y)`` with ``x`` and ``y`` of different dtypes (Faster R-CNN's box
sampler selects between an int64 ArgMaxWithValue index and int32 constants): MindSpore 2.10 promotes both to
their common type, in both modes. scripts/record_mixed_dtype.py records its ``str(result)`` of each,
tests/compat/test_mixed_dtype.py compares opbuild's. Each program runs with ``ms`` and ``np`` and sets
``result``."""

C = "c = ms.Tensor(np.array([True, False, True]))\n"


def r(t: str) -> str:
    """A Tensor's dtype and values (rounded to 4 digits)."""
    return f"(str({t}.dtype), {t}.asnumpy().astype(np.float64).round(4).tolist())"


def sel(xs: str, ys: str) -> str:
    return C + f"x = ms.Tensor(np.array({xs}))\ny = ms.Tensor(np.array({ys}))\n" \
        "result = (" + r("ms.ops.Select()(c, x, y)") + ", " + r("ms.ops.Select()(c, y, x)") + ")"


CASES: dict[str, str] = {
    "int64_int32": sel("[1, 2, 3], np.int64", "[7, 8, 9], np.int32"),
    "int32_uint8": sel("[1, 2, 3], np.int32", "[7, 8, 9], np.uint8"),
    "float32_float16": sel("[1.5, 2.5, 3.5], np.float32", "[7.25, 8.25, 9.25], np.float16"),
    "float16_int32": sel("[1.5, 2.5, 3.5], np.float16", "[7, 8, 9], np.int32"),
    "bool_int32": sel("[True, False, True]", "[7, 8, 9], np.int32"),
    "same_dtype": sel("[1, 2, 3], np.int32", "[7, 8, 9], np.int32"),
}
