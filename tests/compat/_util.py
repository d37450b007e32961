"""Run a function of Tensors in either mode and compare with NumPy."""

from __future__ import annotations

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


_ = ms  # the mode fixture switches the context of this package
