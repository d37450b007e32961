"""Shape arguments of the creation and reshape functions: a float or bool dimension is refused (MindSpore 2.10
raises TypeError for each of these), never truncated by ``int()`` into another shape."""

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops


@pytest.mark.parametrize("call", [
    lambda: ops.ones((2.5,), ms.float32),
    lambda: ops.zeros((2.0, 3)),
    lambda: ops.ones(2.0),
    lambda: ops.ones((True, 2)),
    lambda: ops.full((2.5,), 1),
    lambda: ops.ones(Tensor(np.array([2.0, 3.0], np.float32))),
    lambda: ops.reshape(Tensor(np.ones(6, np.float32)), (2.0, 3)),
], ids=["ones-float", "zeros-float", "ones-float-scalar", "ones-bool", "full-float", "ones-float-tensor",
        "reshape-float"])
def test_non_integer_shape_is_refused(call):
    with pytest.raises(TypeError, match="shape"):
        call()


def test_integer_shapes_of_every_kind_are_taken():
    assert ops.zeros(np.int64(3)).shape == (3,)
    assert ops.ones((np.int32(2), 3)).shape == (2, 3)
    assert ops.ones(Tensor(np.array([2, 3], np.int64))).shape == (2, 3)
    assert ops.ones([Tensor(np.array(2, np.int32)), 3]).shape == (2, 3)
    x = Tensor(np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(ops.reshape(x, (3, -1)).asnumpy(), np.arange(6, dtype=np.float32).reshape(3, 2))


def test_a_shape_beyond_any_memory_is_a_shape_error_before_a_kernel_is_built(tmp_path, monkeypatch):
    # MindSpore 2.10 refuses ops.ones((2**40, 2**40)) (its size overflows size_t); opbuild compiled and cached
    # a Fill kernel for it, then failed in NumPy's allocation with 'array is too big'.
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    with pytest.raises(ValueError, match=r"Fill: output shape \[1099511627776, 1099511627776\] holds"):
        ops.ones((1 << 40, 1 << 40), ms.float32)
    assert not list(tmp_path.rglob("*.so"))
