"""COOTensor/CSRTensor against NumPy (the fixtures hold MindSpore's values where its CPU build computes them;
its CSR products and conversions fail there, so they are checked here), in both modes for the dense results."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms

from ..helpers import FnCell

INDPTR, COLS, VALS = np.array([0, 2, 2, 3], np.int32), np.array([0, 3, 1], np.int32), np.array([1.0, -2.0, 4.0])
DENSE = np.array([[1.0, 0, 0, -2.0], [0, 0, 0, 0], [0, 4.0, 0, 0]], np.float32)


def _csr():
    return ms.CSRTensor(ms.tensor(INDPTR), ms.tensor(COLS), ms.tensor(VALS.astype(np.float32)), (3, 4))


def test_csr_to_dense_to_coo_and_products(pynative_mode):
    csr = _csr()
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), DENSE)
    coo = csr.to_coo()
    np.testing.assert_array_equal(coo.indices.asnumpy(), [[0, 0], [0, 3], [2, 1]])
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), DENSE)
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(csr.mm(ms.tensor(m)).asnumpy(), DENSE @ m)
    np.testing.assert_allclose(csr.mv(ms.tensor(m[:, :1])).asnumpy(), DENSE @ m[:, :1])
    np.testing.assert_allclose(csr.sum(1).asnumpy(), DENSE.sum(1, keepdims=True))
    back = coo.to_csr()
    assert back.indptr.tolist() == INDPTR.tolist() and back.indices.tolist() == COLS.tolist()
    with pytest.raises(ValueError, match="dense_vector must be 2-D"):
        csr.mv(ms.tensor(m[:, 0]))


def test_coo_duplicates_add_up_and_densify_in_a_graph(graph_mode):
    idx, vals = ms.tensor([[0, 1], [1, 0], [0, 1]], ms.int32), ms.tensor([1.0, 2.0, 3.0])
    out = FnCell(lambda v: ms.COOTensor(idx, v, (2, 2)).to_dense())(vals)
    np.testing.assert_array_equal(out.asnumpy(), [[0.0, 4.0], [2.0, 0.0]])


@pytest.mark.parametrize("build,match", [
    (lambda: ms.COOTensor(ms.tensor([[0, 1]], ms.float32), ms.tensor([1.0]), (2, 2)), "indices must be int32"),
    (lambda: ms.COOTensor(ms.tensor([[0, 1, 2]]), ms.tensor([1.0]), (2, 2)), r"indices must have shape \(N, 2\)"),
    (lambda: ms.CSRTensor(ms.tensor([0, 1]), ms.tensor([0]), ms.tensor([1.0]), (2, 2)), "indptr must have 3"),
    (lambda: ms.CSRTensor(ms.tensor([0, 1, 1]), ms.tensor([0]), ms.tensor([1.0]), (2, 2, 2)), "shape must be 2-D"),
])
def test_bad_sparse_tensors_are_refused(build, match):
    with pytest.raises((TypeError, ValueError), match=match):
        build()
