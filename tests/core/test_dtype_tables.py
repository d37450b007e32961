"""The per-dtype tables that spare hot paths NumPy's computed ``dtype.name`` (core/dtypes.py): they must give
what the name would, for every dtype, byte order and unsupported type."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from opbuild import Tensor
from opbuild.core import dtypes
from opbuild.core.dtypes import ALL, dtype_of, np_name


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_every_dtype_maps_to_itself_and_its_name(d) -> None:
    for _ in range(2):  # the first call fills the tables, the second reads them
        assert dtype_of(d.np_dtype) is d
        assert np_name(d.np_dtype) == d.np_dtype.name


def test_other_byte_orders_and_unsupported_types() -> None:
    swapped = np.dtype(">f4")
    assert np_name(swapped) == "float32" and dtype_of(swapped) is dtypes.float32
    for _ in range(2):
        with pytest.raises(TypeError, match="unsupported dtype"):
            dtype_of(np.dtype("U4"))
        with pytest.raises(TypeError):
            dtype_of(np.dtype([("a", "<i4")]))
    assert dtype_of(np.dtype(ml_dtypes.bfloat16)) is dtypes.bfloat16


def test_tables_stay_bounded() -> None:
    for n in range(1, 400):  # a stream of distinct structured dtypes
        np_name(np.dtype([("f", "<i4", (n,))]))
    assert len(dtypes._NP_NAMES) <= dtypes._REMEMBER and len(dtypes._BY_NP) <= dtypes._REMEMBER


def test_a_tensor_reports_its_arrays_dtype() -> None:
    for d in ("float16", "bfloat16", "float32", "int8", "uint64", "bool", "complex64"):
        t = Tensor(np.zeros((2, 3), d))
        assert t.dtype.name == d and t._type.dtype == d and t.shape == (2, 3)


@pytest.mark.parametrize("code", [">f4", ">i8", ">f8", ">u2"])
def test_a_big_endian_array_gives_its_values_not_its_bytes(code) -> None:
    # Kernels read the machine's byte order: Tensor() converts (it copies a NumPy array anyway); before, a
    # big-endian array was taken as float32 bits in the wrong order and computed silently wrong numbers.
    import opbuild as ms
    from opbuild import nn, ops

    a = np.arange(1, 4).astype(code)
    t = Tensor(a)
    assert t.asnumpy().dtype.isnative and t.dtype.name == np.dtype(code).newbyteorder("=").name
    np.testing.assert_array_equal(ops.add(t, t).asnumpy(), a.astype(a.dtype.newbyteorder("=")) * 2)

    class Double(nn.Cell):
        def construct(self, x):
            return x + x

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(Double()(a).asnumpy(), np.arange(1, 4) * 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_from_numpy_refuses_a_foreign_byte_order() -> None:
    with pytest.raises(ValueError, match="byte order.*newbyteorder"):
        Tensor.from_numpy(np.arange(3).astype(">f4"))
