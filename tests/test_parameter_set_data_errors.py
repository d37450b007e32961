"""Parameter.set_data with values no array of the parameter's dtype can hold: a TypeError naming the
parameter and what it takes, not NumPy's bare conversion message; the parameter keeps its value."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import Parameter, Tensor


@pytest.mark.parametrize("bad", ["abc", None, [[1, 2], [3]], {"a": 1}, object()])
@pytest.mark.parametrize("slice_shape", [False, True])
def test_unconvertible_data_names_the_parameter(bad, slice_shape) -> None:
    p = Parameter(Tensor(np.arange(3, dtype=np.int32)), name="layer.w")
    with pytest.raises(TypeError, match=r"Parameter layer.w: set_data takes a Tensor, array or number "
                                        r"convertible to int32, got"):
        p.set_data(bad, slice_shape=slice_shape)
    np.testing.assert_array_equal(p.asnumpy(), np.arange(3, dtype=np.int32))
    assert p.shape == (3,)


@pytest.mark.parametrize("bad", [2**40, [1e20, 0.0, 0.0], -(2**63) - 1])
def test_a_value_out_of_the_dtype_range_names_the_parameter(bad) -> None:
    """NumPy's OverflowError ("Python integer ... out of bounds for int32") named neither the parameter nor the
    fix (MindSpore 2.10 wraps 2**40 to 0 without a word; opbuild refuses rather than store a wrong number)."""
    p = Parameter(Tensor(np.arange(3, dtype=np.int32)), name="layer.w")
    with pytest.raises(OverflowError, match=r"Parameter layer.w: set_data got a value out of int32's range "
                                            r"\[-2147483648, 2147483647\]"):
        p.set_data(bad)
    np.testing.assert_array_equal(p.asnumpy(), np.arange(3, dtype=np.int32))
