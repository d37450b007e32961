"""ops.einsum (the composition of ops/compose/einsum.py, shared with ONNX Einsum) against numpy.einsum in both modes,
its errors, and its gradient."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.ops.compose.einsum import EinsumError
from tests.helpers import run_op
from tests.ops.test_grads import check as grad_check
from tests.ops.test_grads import rand

pytestmark = pytest.mark.slow  # a few hundred kernels built in both modes

CASES = [
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
    ("bii->bi", [(2, 3, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ijk,ikj->i", [(2, 3, 4), (2, 4, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),
]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize(("eq", "shapes"), CASES)
def test_einsum_matches_numpy(mode, eq, shapes) -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got = run_op(lambda *ts: ops.einsum(eq, *ts), *arrays, mode=mode)
    want = np.einsum(eq, *arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_einsum_errors() -> None:
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(EinsumError, match="names 2 operands, got 1"):
        ops.einsum("ij,jk->ik", x)
    with pytest.raises(EinsumError, match="3 letters for an operand of rank 2"):
        ops.einsum("ijk->i", x)
    with pytest.raises(EinsumError, match="letter 'j' has sizes 3 and 2"):
        ops.einsum("ij,jk->ik", x, x)


def test_einsum_gradient(graph_mode) -> None:
    grad_check(lambda a, b: ops.einsum("bij,bjk->bik", a, b), rand(2, 2, 3, seed=1), rand(2, 3, 2, seed=2))
    grad_check(lambda a: ops.einsum("ii->i", a), rand(3, 3, seed=3))
