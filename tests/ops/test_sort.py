"""TopK and Sort: the kernel against an independent NumPy formula (stable, NaN largest) in both modes, every
dtype family, MindSpore's documented examples, errors, and TopK's gradient."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.errors import ShapeError
from tests.helpers import run_op
from tests.ops.test_grads import check as grad_check
from tests.ops.test_grads import rand


def stable_order(row: np.ndarray, descending: bool) -> list[int]:
    """Indices of a 1-D row sorted by (NaN-as-largest value, index), written as a Python sort."""
    def key(i):
        v = float(row[i])
        big = (1, 0.0) if v != v else (0, v)
        return ((-big[0], -big[1]) if descending else big), i
    return sorted(range(len(row)), key=key)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int32", "int64", "uint8"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_a_stable_sort(mode, dtype, largest) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 6, (3, 9, 2)).astype(dtype)  # many ties
    if dtype.startswith("float"):
        x[0, 3, 1] = np.nan
        x[1, 2, 0] = np.inf
    vals, idx = (run_op(lambda t, i=i: ops.topk(t, 4, dim=1, largest=largest)[i], x, mode=mode) for i in (0, 1))
    assert idx.dtype == np.int32
    for a in range(3):
        for c in range(2):
            want = stable_order(x[a, :, c], largest)[:4]
            assert idx[a, :, c].tolist() == want
            np.testing.assert_array_equal(vals[a, :, c], x[a, want, c])


def test_mindspore_examples() -> None:
    x = ms.Tensor(np.array([1, 2, 3, 4, 5], np.float16))
    values, indices = ops.TopK(sorted=True)(x, 3)
    assert values.dtype == ms.float16 and indices.dtype == ms.int32
    np.testing.assert_array_equal(values.asnumpy(), [5, 4, 3])
    np.testing.assert_array_equal(indices.asnumpy(), [4, 3, 2])
    s, i = ops.Sort()(ms.Tensor(np.array([[8, 2, 1], [5, 9, 3], [4, 6, 7]], np.float16)))
    np.testing.assert_array_equal(s.asnumpy(), [[1, 2, 8], [3, 5, 9], [4, 6, 7]])
    np.testing.assert_array_equal(i.asnumpy(), [[2, 1, 0], [2, 0, 1], [0, 1, 2]])
    np.testing.assert_array_equal(ops.argsort(ms.Tensor(np.array([3, 7, 1, 3, -5])), descending=True).asnumpy(),
                                  [1, 0, 3, 2, 4])


def test_errors_name_the_problem() -> None:
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ShapeError, match=r"k must be in \[0, 3\]"):
        ops.topk(x, 4)
    with pytest.raises(TypeError, match="sorted must be bool"):
        ops.TopK(sorted=1)
    with pytest.raises(ShapeError, match="bool is not supported"):
        ops.topk(ms.Tensor(np.ones((3,), bool)), 1)


def test_topk_gradient(graph_mode) -> None:
    x = rand(3, 5, seed=7)
    grad_check(lambda a: ops.topk(a, 2, dim=1)[0], x)
    grad_check(lambda a: ops.sort(a, axis=0, descending=True)[0], x)
