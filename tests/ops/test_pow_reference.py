"""Pow's NumPy reference agrees with C's pow (and MindSpore) where NumPy's scalar shortcut does not:
(-inf) ** 0.5 is +inf, also for 0-d operands (issue 23, point 10); and property tests run derandomized."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings

import opbuild.ops as ops
from opbuild.ops.elementwise import _pow_ref
from tests.ops.test_elementwise import numpy_ref, run_both


@pytest.mark.parametrize("sa, sb", [((), ()), ((3,), ()), ((), (3,)), ((1,), (1,)), ((2, 3), (1, 3))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_of_minus_inf_to_one_half_is_inf(sa, sb, dtype) -> None:
    a, b = np.full(sa, -np.inf, dtype), np.full(sb, 0.5, dtype)
    want = numpy_ref(_pow_ref, a, b)
    assert np.all(want == np.inf) and want.shape == np.broadcast_shapes(sa, sb) and want.dtype == dtype
    for got in run_both(ops.Pow(), a, b):
        np.testing.assert_array_equal(got, want)


def test_property_tests_are_derandomized() -> None:
    assert settings.default.derandomize and settings.default.database is None
