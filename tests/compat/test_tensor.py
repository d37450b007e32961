"""Part 3 of #18: Tensor methods and __getitem__ against NumPy, in both modes, and the kernel cache."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
from opbuild import Tensor

from ..conftest import run_python
from ._util import close, run

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5
MASK = A[:, :, 0] > -3  # (2, 3)

INDEX_KEYS = [
    0, -1, (0, 1), (slice(None), 1), (0, slice(1, 3)), (Ellipsis, 1), (None, 0, slice(None, None, -2)),
    (1, Ellipsis, None), (slice(None, None, -1), 1, slice(1, 3)), (slice(-2, None), slice(None, None, 2), -1),
    (slice(5, 10),), ([1, 0],), (slice(None), [2, -1]), (Ellipsis, [0, 3, 3]), (0, np.array([[0, 1], [2, 0]])),
    (MASK,), (0, A[0] > 0), (Ellipsis, np.array([True, False, True, False])),
    # Several index arrays (an int beside one is one too, a mask its nonzero positions): broadcast together,
    # their dims in place when adjacent, first when separated (NumPy's rule, and MindSpore 2.10's, checked by
    # hand: x[0, :, [1, 2]] has shape (2, 3)).
    ([0, 1], [1, 2]), (slice(None), [0, 2], [1, -1]), ([1, 0], slice(None), [3, 2]), ([[0], [1]], [0, 2]),
    (0, slice(None), [1, 2]), (slice(None), [0, 1], 0), ([1], 2, slice(None, None, -1)), (1, [2, 0], [-1, 3]),
    (np.array([1, 0]), MASK[0]), (0, MASK[1], slice(1, 3)), (Ellipsis, [0, 2], [[3], [0]]),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[repr(k)[:40] for k in range(len(INDEX_KEYS))])
def test_getitem_matches_numpy(mode, key):
    out = run(mode, lambda t: t[key], A)
    assert out.shape == A[key].shape and np.array_equal(out, A[key])


def test_getitem_with_index_tensors(mode):
    idx = np.array([-1, 0, 2], np.int32)
    out = run(mode, lambda t, i: t[:, i], A, idx)
    assert np.array_equal(out, A[:, idx])
    # A concrete bool Tensor mask (created outside construct) is a constant of the graph.
    mask = Tensor(MASK)
    assert np.array_equal(run(mode, lambda t: t[mask], A), A[MASK])


def test_traced_bool_mask_is_refused_in_graph_mode(graph_mode):
    class Net(nn.Cell):
        def construct(self, t):
            return t[t > 0]

    with pytest.raises(IndexError, match="constant mask"):
        Net()(Tensor(A))


def test_getitem_with_several_index_tensors(mode):
    i, j = np.array([0, -1], np.int32), np.array([[3], [-4]], np.int64)
    out = run(mode, lambda t, a, b: t[:, a, b], A, i, j)
    assert out.shape == A[:, i, j].shape and np.array_equal(out, A[:, i, j])
    out = run(mode, lambda t, a: t[1, :, a], A, i)
    assert out.shape == A[1, :, i].shape and np.array_equal(out, A[1, :, i])


def test_getitem_errors(mode):
    with pytest.raises(IndexError, match="out of bounds"):
        Tensor(A)[[5]]
    with pytest.raises(IndexError, match="out of bounds"):
        Tensor(A)[[0], [3]]
    with pytest.raises(IndexError, match=r"the index tensor at position 2 of the subscript holds 4 at \[1\], out of "
                                         r"range for the dim of size 4"):
        run(mode, lambda t, a: t[0, 1, a], A, np.array([0, 4], np.int32))


METHODS = [
    ("sum", lambda t: t.sum(), lambda a: a.sum()),
    ("sum_axis", lambda t: t.sum(axis=(0, 2), keepdims=True), lambda a: a.sum((0, 2), keepdims=True)),
    ("mean", lambda t: t.mean(axis=1), lambda a: a.mean(1)),
    ("prod", lambda t: (t / 10).prod(axis=2, keep_dims=True), lambda a: (a / 10).prod(2, keepdims=True)),
    ("max", lambda t: t.max(), np.max), ("max_axis", lambda t: t.max(axis=1, keepdims=True),
                                         lambda a: a.max(1, keepdims=True)),
    ("min", lambda t: t.min(axis=(0, 1)), lambda a: a.min((0, 1))),
    ("argmax", lambda t: t.argmax(axis=1), lambda a: a.argmax(1)), ("argmin", lambda t: t.argmin(), np.argmin),
    ("reshape", lambda t: t.reshape(4, 6), lambda a: a.reshape(4, 6)),
    ("reshape_tuple", lambda t: t.reshape((-1, 2)), lambda a: a.reshape(-1, 2)),
    ("view", lambda t: t.view(6, -1), lambda a: a.reshape(6, -1)),
    ("transpose", lambda t: t.transpose(), lambda a: a.transpose()),
    ("transpose_axes", lambda t: t.transpose(1, 0, 2), lambda a: a.transpose(1, 0, 2)),
    ("T", lambda t: t.T, lambda a: a.T), ("permute", lambda t: t.permute((2, 0, 1)), lambda a: a.transpose(2, 0, 1)),
    ("flatten", lambda t: t.flatten(), lambda a: a.flatten()),
    ("flatten_start", lambda t: t.flatten(start_dim=1), lambda a: a.reshape(2, -1)),
    ("squeeze", lambda t: t[:, :1].squeeze(1), lambda a: a[:, 0]),
    ("expand_dims", lambda t: t.expand_dims(-1), lambda a: a[..., None]),
    ("unsqueeze", lambda t: t.unsqueeze(1), lambda a: a[:, None]),
    ("astype", lambda t: t.astype(ms.int32), lambda a: a.astype(np.int32)),
    ("abs", lambda t: t.abs(), np.abs), ("exp", lambda t: (t / 8).exp(), lambda a: np.exp(a / 8)),
    ("log", lambda t: t.abs().log(), lambda a: np.log(np.abs(a))),
    ("sqrt", lambda t: t.abs().sqrt(), lambda a: np.sqrt(np.abs(a))),
    ("pow", lambda t: t.pow(2), lambda a: a ** 2), ("clip", lambda t: t.clip(-2, 3), lambda a: np.clip(a, -2, 3)),
    ("all", lambda t: (t > -8).all(), lambda a: (a > -8).all()),
    ("any_axis", lambda t: (t > 10).any(axis=2), lambda a: (a > 10).any(2)),
    ("ops_scalar", lambda t: (2 - t) * 3 / 4 + 1, lambda a: (2 - a) * 3 / 4 + 1),
    ("ops_broadcast", lambda t: t - t.mean(axis=2, keep_dims=True), lambda a: a - a.mean(2, keepdims=True)),
    ("cmp", lambda t: (t >= 0) & (t < 5), lambda a: (a >= 0) & (a < 5)),
    ("rpow_neg", lambda t: -(2 ** (t / 8)), lambda a: -(2 ** (a / 8))),
    ("matmul_op", lambda t: t @ t.transpose(0, 2, 1), lambda a: a @ a.transpose(0, 2, 1)),
]


@pytest.mark.parametrize("name, fn, ref", METHODS, ids=[m[0] for m in METHODS])
def test_methods_match_numpy(mode, name, fn, ref):
    out = run(mode, fn, A)
    exp = np.asarray(ref(A))
    close(out, exp, rtol=1e-5)
    if exp.dtype.kind in "ib":
        assert np.asarray(out).dtype.kind == exp.dtype.kind


def test_max_with_return_indices(mode):
    v, i = run(mode, lambda t: t.max(axis=2, return_indices=True), A)
    assert np.array_equal(v, A.max(2)) and np.array_equal(i, A.argmax(2))


NET = """
import numpy as np, opbuild as ms, opbuild.nn as nn
ms.set_context(mode=ms.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x):
        y = x[:, 1:3].reshape(2, -1).T
        return (y.sum(axis=0) + x[0, ..., None].max()).clip(0, 100), x[:, [2, 0]].mean()
a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
out = Net()(ms.Tensor(a))
r = ms.build_report()
print(r.built, r.reused, float(out[1].asnumpy()))
"""


def test_tensor_methods_build_kernels_once_then_reuse(tmp_path):
    """A graph written with Tensor methods compiles every kernel into kernel_meta; a second process reuses
    all of them."""
    env = {"OPBUILD_CACHE_PATH": str(tmp_path)}
    built, reused, value = run_python(NET, env=env).stdout.split()
    assert int(built) > 0 and int(reused) == 0
    assert float(value) == pytest.approx(np.arange(24).reshape(2, 3, 4)[:, [2, 0]].mean())
    names = {p.name.split("_")[0] for p in (tmp_path / "rank_0" / "kernel_meta").glob("*.so")}
    assert {"stridedslice", "gather", "reducesum", "reducemean", "transpose"} <= names, names
    built2, reused2, _ = run_python(NET, env=env).stdout.split()
    assert (int(built2), int(reused2)) == (0, int(built))
