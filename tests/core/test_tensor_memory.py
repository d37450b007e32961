"""Which constructors share the caller's NumPy memory, as in MindSpore 2.10 (observed on it: writing to the
array after construction): ``Tensor(ndarray)``, ``tensor(ndarray)`` and ``Parameter(ndarray)`` copy;
``Tensor.from_numpy`` shares. A copy matters because a compiled optimizer step
updates a Parameter in place: it must never write into the array the user built the network from."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn


@pytest.mark.parametrize("make", [ms.Tensor, ms.tensor, lambda a: ms.Parameter(a),
                                  lambda a: ms.Parameter(ms.Tensor(a))],
                         ids=["Tensor", "tensor", "Parameter", "Parameter(Tensor)"])
def test_constructors_copy_the_callers_array(make):
    a = np.zeros(3, np.float32)
    t = make(a)
    a[0] = 5
    assert t.asnumpy().tolist() == [0, 0, 0]
    assert not np.may_share_memory(a, t.asnumpy())


def test_a_converted_array_is_not_copied_twice():
    a = np.arange(6, dtype=np.float64).reshape(2, 3).T  # not contiguous, and cast to float32: already a new array
    t = ms.Tensor(a, ms.float32)
    assert t.asnumpy().flags.c_contiguous and t.asnumpy().tolist() == a.astype(np.float32).tolist()


def test_from_numpy_shares_and_refuses_a_strided_array():
    a = np.zeros(3, np.float32)
    t = ms.Tensor.from_numpy(a)
    a[0] = 4
    assert t.asnumpy().tolist() == [4, 0, 0]
    with pytest.raises(ValueError, match="C-contiguous"):
        ms.Tensor.from_numpy(np.zeros((3, 4), np.float32).T)


def test_an_optimizer_step_leaves_the_users_arrays_alone():
    w0 = np.ones((2, 3), np.float32)
    before = w0.copy()
    w = ms.Parameter(ms.Tensor(w0), name="w")
    opt = nn.SGD([w], learning_rate=0.5)
    opt((ms.Tensor(np.ones((2, 3), np.float32)),))
    assert np.allclose(w.asnumpy(), 0.5)  # the step happened, in place on the Parameter
    assert np.array_equal(w0, before)  # and not on the array it was built from
