"""Run a function of Tensors in either mode and compare with NumPy; compare printed results with MindSpore's."""

from __future__ import annotations

import ast
import re

import numpy as np

import opbuild as ms
from opbuild import Tensor

from ..helpers import FnCell


def run(mode: str, fn, *arrays):
    """``fn(*Tensors)`` in PyNative, or traced in a Cell in graph mode (the ``mode`` fixture's name);
    returns NumPy arrays (a tuple when fn returns several)."""
    tensors = [Tensor(a) for a in arrays]
    out = FnCell(fn)(*tensors) if mode == "graph" else fn(*tensors)
    if isinstance(out, (tuple, list)):
        return tuple(o.asnumpy() for o in out)
    return out.asnumpy()


def close(actual, expected, rtol=1e-5, atol=1e-6):
    """Values and dtype-kind equal (within float tolerance) and the same shape."""
    expected = np.asarray(expected)
    assert np.shape(actual) == expected.shape, (np.shape(actual), expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def printed_literal(text: str) -> object:
    """``str(result)`` as Python values (dtype names as strings), for a numeric comparison; None if it is not."""
    try:
        return ast.literal_eval(re.sub(r"mindspore\.(\w+)", r"'\1'", text).replace("nan", "None"))
    except (ValueError, SyntaxError):
        return None


def close_literals(a: object, b: object) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close_literals(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)):
        return a == b
    return isinstance(b, (int, float)) and abs(a - b) <= 2e-4 * max(1.0, abs(b))


def same_printed(got: str, want: str) -> bool:
    """Equal printed results, or equal within the last rounded digit (float32 kernels differ in the last ulp)."""
    if got == want:
        return True
    a, b = printed_literal(got), printed_literal(want)
    return a is not None and b is not None and close_literals(a, b)


_ = ms  # the mode fixture switches the context of this package
