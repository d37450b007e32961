"""PyNative's spec memo (ops/eager_specs.py) and the cheap paths beside it: a call signature's spec is made once,
other signatures (shapes, dtypes, attribute values and their types) get their own, attributes that are not
plain data are never keys, bad input raises on every call, and array addresses and the memory tier's scope
follow what they stand for (runtime/addresses.py, builder/memory.py ``scope``)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild.builder.memory import scope
from opbuild.core.errors import ShapeError
from opbuild.ops import eager_specs
from opbuild.ops.eager_specs import _plain
from opbuild.ops.registry import OpDef
from opbuild.runtime.addresses import data_address


@pytest.fixture(autouse=True)
def _pynative():
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=mode)


def _counting(monkeypatch) -> list[str]:
    made: list[str] = []
    real = OpDef.spec

    def counted(self, attrs, in_types):
        made.append(self.name)
        return real(self, attrs, in_types)

    monkeypatch.setattr(OpDef, "spec", counted)
    monkeypatch.setattr(eager_specs, "_SPECS", {})
    return made


def test_one_spec_per_signature_and_results_follow_the_shapes(monkeypatch):
    made = _counting(monkeypatch)
    rng = np.random.default_rng(0)
    a, b = rng.random((2, 3), dtype=np.float32), rng.random((2, 3), dtype=np.float32)
    for _ in range(3):
        np.testing.assert_array_equal((ms.Tensor(a) + ms.Tensor(b)).asnumpy(), a + b)
    assert made.count("Add") == 1
    c = rng.random((3, 2), dtype=np.float32)  # another shape: another spec, the right result
    np.testing.assert_array_equal((ms.Tensor(c) + ms.Tensor(c)).asnumpy(), c + c)
    d = np.arange(6, dtype=np.int32).reshape(2, 3)  # another dtype
    np.testing.assert_array_equal((ms.Tensor(d) + ms.Tensor(d)).asnumpy(), d + d)
    assert made.count("Add") == 3


def test_attribute_values_and_types_are_part_of_the_signature(monkeypatch):
    made = _counting(monkeypatch)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(ms.ops.ReduceSum(keep_dims=False)(ms.Tensor(x), 1).asnumpy(), x.sum(1))
    np.testing.assert_array_equal(ms.ops.ReduceSum(keep_dims=True)(ms.Tensor(x), 1).asnumpy(),
                                  x.sum(1, keepdims=True))
    np.testing.assert_array_equal(ms.ops.ReduceSum(keep_dims=False)(ms.Tensor(x), 0).asnumpy(), x.sum(0))
    assert made.count("ReduceSum") == 3
    assert _plain({"axis": (1, 2), "keep_dims": True, "names": ["x"], "none": None, "f": 1.5})
    # marshal writes buffers as their bytes: NumPy arrays and scalars are never keys, nor non-str dict keys.
    for value in (np.array([1, 2]), np.float32(1), np.int64(1), b"ab", {1: 2}, (1, np.int32(2)), object()):
        assert not _plain({"v": value})


def test_bad_input_raises_on_every_call(monkeypatch):
    made = _counting(monkeypatch)
    a, b = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 5), np.float32))
    for _ in range(2):
        with pytest.raises(ShapeError, match="cannot be broadcast"):
            ms.ops.add(a, b)
    assert made.count("Add") == 2  # a failed signature is not kept


def test_data_address_is_the_arrays_and_falls_back_where_no_buffer_is_writable():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert data_address(a) == a.ctypes.data
    assert data_address(a[1:]) == a[1:].ctypes.data
    frozen = a.copy()
    frozen.flags.writeable = False
    assert data_address(frozen) == frozen.ctypes.data
    empty = np.empty((0, 3), np.float32)
    assert data_address(empty) == empty.ctypes.data
    assert data_address(np.zeros((), np.float64)) != 0


def test_scope_follows_the_toolchain_settings(monkeypatch):
    monkeypatch.delenv("OPBUILD_CFLAGS", raising=False)
    plain = scope("cpu", None)
    assert scope("cpu", None) == plain
    monkeypatch.setenv("OPBUILD_CFLAGS", "-O2")
    flagged = scope("cpu", None)
    assert flagged != plain and "-O2" in flagged
    assert scope("cuda", None) != flagged  # the target is part of it
    monkeypatch.delenv("OPBUILD_CFLAGS")
    assert scope("cpu", None) == plain
