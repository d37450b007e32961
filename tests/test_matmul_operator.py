"""The ``@`` operator on tensors maps to BatchMatMul (implemented by the matmul family).

Until that family is merged these tests fail with "unknown operator 'BatchMatMul'"; they are meant to pass
once it lands, without changes here.
"""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-5}, "float64": {"rtol": 1e-12, "atol": 1e-12}}

CASES = [  # (a shape, b shape): 2-D, batched, broadcast batch dims
    ((3, 4), (4, 5)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
]


class MatMul(nn.Cell):
    def construct(self, a, b):
        return a @ b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("sa", "sb"), CASES)
def test_matmul_operator_matches_numpy_in_both_modes(sa, sb, dtype, graph_mode):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(dtype)
    b = rng.standard_normal(sb).astype(dtype)
    want = a @ b
    cell = MatMul()
    graph = cell(ms.Tensor(a), ms.Tensor(b))
    (compiled,) = cell.compile_info()
    assert [n.op for n in compiled.graph.nodes] == ["BatchMatMul"]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.Tensor(a) @ ms.Tensor(b)
    for got in (graph, eager):
        assert got.dtype.name == dtype and got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, **TOL[dtype])


def test_matmul_operator_with_ndarray_on_the_left(pynative_mode):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 2), np.float32)
    out = a @ ms.Tensor(b)
    assert isinstance(out, ms.Tensor)
    np.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-6)


def test_matmul_operator_shape_mismatch_raises_shape_error(pynative_mode):
    with pytest.raises(ms.ShapeError, match="BatchMatMul"):
        ms.Tensor(np.ones((2, 3), np.float32)) @ ms.Tensor(np.ones((4, 5), np.float32))
