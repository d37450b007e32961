"""``repr(Tensor)`` in MindSpore's layout (``Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00, ...])``).

Documented examples and user scripts compare printed tensors, so the layout follows MindSpore 2.10's
(recorded by scripts/record_tensor_print.py, checked by tests/core/test_tensor_format.py): floats in
scientific notation with 8 (float16: 4) decimals, integers and booleans as written, ``", "`` between elements,
right-justified to the widest shown element. A 0-d tensor prints its value in the shortest ``%g`` form. A 1-D
tensor is elided (``a, b, c ... x, y, z``) above 1000 elements and wraps every 12 elements (24 for integers); a
tensor of rank 2 or more elides every axis longer than 6 and starts on its own line. ``str(Tensor)`` stays
NumPy's layout, as MindSpore's ``print(tensor)`` is.
"""

from __future__ import annotations

import numpy as np

EDGE = 3
ND_THRESHOLD = 6
ONE_D_THRESHOLD = 1000


def _scalar(v, kind: str) -> str:
    if kind == "b":
        return "True" if v else "False"
    if kind in "iu":
        return str(int(v))
    if kind == "c":
        return f"{complex(v).real:g}{complex(v).imag:+g}j"
    return f"{float(v):g}"


def _element(v, kind: str, half: bool, short: bool) -> str:
    """One element of a tensor of rank >= 1 (before justification)."""
    if kind == "b":
        return ("True" if v else "False").rjust(5)
    if kind == "f" and not short:
        x = float(v)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x: .4e}" if half else f"{x: .8e}"
    return _scalar(v, kind)


def _kind(arr: np.ndarray, dtype_name: str) -> tuple[str, bool, bool]:
    """(NumPy kind, float16, printed short): bfloat16 prints its values in the shortest form."""
    if dtype_name == "bfloat16":
        return "f", False, True
    return arr.dtype.kind, arr.dtype == np.float16, False


def _elide(arr: np.ndarray, axis: int, nd: bool) -> bool:
    n = arr.shape[axis]
    return n > ND_THRESHOLD if nd else arr.size > ONE_D_THRESHOLD


def _shown(arr: np.ndarray, nd: bool) -> np.ndarray:
    """The elements that will be printed (for the column width)."""
    for axis in range(arr.ndim):
        if _elide(arr, axis, nd):
            idx = list(range(EDGE)) + list(range(arr.shape[axis] - EDGE, arr.shape[axis]))
            arr = np.take(arr, idx, axis=axis)
    return arr


def _row(items: list[str], elided: bool, per_line: int | None) -> str:
    if elided:
        return "[" + ", ".join(items[:EDGE]) + " ... " + ", ".join(items[EDGE:]) + "]"
    if per_line is None:
        return "[" + ", ".join(items) + "]"
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ", \n ".join(lines) + "]"


def _block(arr: np.ndarray, fmt, depth: int, nd: bool, per_line: int | None) -> str:
    elided = _elide(arr, 0, nd)
    n = arr.shape[0]
    index = list(range(EDGE)) + [None] + list(range(n - EDGE, n)) if elided else list(range(n))
    if arr.ndim == 1:
        items = [fmt(arr[i]) for i in index if i is not None]
        return _row(items, elided, per_line)
    sep = ",\n" + " " * (depth + 1)
    parts = ["..." if i is None else _block(arr[i], fmt, depth + 1, nd, per_line) for i in index]
    out = parts[0]
    for prev, part in zip(parts, parts[1:]):
        if part == "...":
            out += ",\n" + " " * (depth + 1) + "..."
        elif prev == "...":
            out += "\n" + " " * (depth + 1) + part
        else:
            out += sep + part
    return "[" + out + "]"


def format_value(arr: np.ndarray, dtype_name: str) -> str:
    """The part of MindSpore's tensor repr after ``value=`` (with its leading space or line break)."""
    kind, half, short = _kind(arr, dtype_name)
    if arr.ndim == 0:
        return " " + _scalar(arr.item() if kind != "f" or not short else float(arr), kind)
    if arr.size == 0:
        return "\n" if arr.ndim > 1 else " "
    nd = arr.ndim > 1
    width = max(len(_element(v, kind, half, short)) for v in _shown(arr, nd).ravel())

    def fmt(v) -> str:
        return _element(v, kind, half, short).rjust(width)

    per_line = None if nd else (24 if kind in "iu" else 12)
    body = _block(arr, fmt, 0, nd, per_line)
    return ("\n" if nd else " ") + body


def tensor_repr(arr: np.ndarray, shape: tuple[int, ...], dtype) -> str:
    """``Tensor(shape=[...], dtype=Float32, value=...)`` as MindSpore writes it."""
    return f"Tensor(shape={list(shape)}, dtype={dtype}, value={format_value(arr, dtype.name)})"
