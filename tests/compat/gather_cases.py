"""Cases of MindSpore's gather, search and segment functions (gather_d, gather_nd / GatherNd, index_fill,
searchsorted, bucketize, unsorted_segment_max/min/prod) and bit shifts, written once against a MindSpore-shaped
namespace: scripts/record_optim_image.py runs them on real MindSpore 2.10 (tests/fixtures/optim_image.npz) and
tests/compat/test_gather_more.py on opbuild. This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RNG = np.random.default_rng(2513)
X = RNG.uniform(-3, 3, (4, 3, 2)).astype(np.float32)
XI = RNG.integers(-50, 50, (4, 3)).astype(np.int32)
SORTED = np.array([-2.0, -0.5, 0.0, 0.0, 1.5, 3.0], np.float32)
VALS = np.array([[-3.0, 0.0, 0.2], [1.5, 4.0, -0.5]], np.float32)
SEG = np.array([0, 2, 0, 4], np.int32)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "gather_d": (lambda ms, ops, x, i: ops.gather_d(x, 1, i), [X, RNG.integers(0, 3, (4, 2, 2)).astype(np.int64)]),
    "gather_nd": (lambda ms, ops, x, i: ops.gather_nd(x, i), [X, np.array([[1, 2], [3, 0], [0, 0]], np.int32)]),
    "gather_nd_rows": (lambda ms, ops, x, i: ops.gather_nd(x, i), [X, np.array([[[2]], [[1]]], np.int64)]),
    "GatherNd_full": (lambda ms, ops, x, i: ops.GatherNd()(x, i), [X, np.array([[1, 2, 1], [0, 0, 0]], np.int32)]),
    "index_fill": (lambda ms, ops, x, i: ops.index_fill(x, 1, i, -7.0), [X, np.array([0, 2], np.int32)]),
    "index_fill_tensor_value": (lambda ms, ops, x, i, v: ops.index_fill(x, 0, i, v),
                                [XI, np.array([3, -3], np.int32), np.array(9, np.int32)]),
    "searchsorted": (lambda ms, ops, s, v: ops.searchsorted(s, v), [SORTED, VALS]),
    "searchsorted_right": (lambda ms, ops, s, v: ops.searchsorted(s, v, right=True, out_int32=True),
                           [SORTED, VALS]),
    "searchsorted_nd": (lambda ms, ops, s, v: ops.searchsorted(s, v, side="right"),
                        [np.sort(RNG.uniform(-1, 1, (2, 5)).astype(np.float32), axis=1), VALS]),
    "bucketize": (lambda ms, ops, x: ops.bucketize(x, [-1.0, 0.0, 0.5, 2.0]), [X]),
    "bucketize_right": (lambda ms, ops, x: ops.bucketize(x, [-1.0, 0.0, 0.5, 2.0], right=True),
                        [np.array([[-1.0, 0.0, 0.25], [0.5, 2.0, 9.0]], np.float32)]),
    "unsorted_segment_max": (lambda ms, ops, x, s: ops.unsorted_segment_max(x, s, 5), [X, SEG]),
    "unsorted_segment_min": (lambda ms, ops, x, s: ops.unsorted_segment_min(x, s, 5), [X, SEG]),
    "unsorted_segment_prod": (lambda ms, ops, x, s: ops.unsorted_segment_prod(x, s, 5), [X, SEG]),
    "UnsortedSegmentMax_int": (lambda ms, ops, x, s: ops.UnsortedSegmentMax()(x, s, 5), [XI, SEG]),
    "UnsortedSegmentMin_2d_ids": (lambda ms, ops, x, s: ops.UnsortedSegmentMin()(x, s, 3),
                                  [X, np.array([[0, 1, 0], [2, 2, 1], [0, 0, 0], [1, 1, 1]], np.int32)]),
    "inplace_add": (lambda ms, ops, x, v: ops.inplace_add(x, v, (0, 2)), [X, RNG.uniform(-1, 1, (2, 3, 2)).astype(
        np.float32)]),
    "inplace_sub_repeated": (lambda ms, ops, x, v: ops.inplace_sub(x, v, (3, 3)), [XI, np.ones((2, 3), np.int32)]),
    "inplace_update": (lambda ms, ops, x, v, i: ops.inplace_update(x, v, i),
                       [X, RNG.uniform(-1, 1, (3, 3, 2)).astype(np.float32), np.array([1, 3, 1], np.int32)]),
    "InplaceAdd_int": (lambda ms, ops, x, v: ops.InplaceAdd(1)(x, v), [X, np.ones((1, 3, 2), np.float32)]),
    "InplaceUpdateV2": (lambda ms, ops, x, i, v: ops.InplaceUpdateV2()(x, i, v),
                        [XI, np.array([0, 2], np.int32), np.full((2, 3), 7, np.int32)]),
    "bitwise_left_shift": (lambda ms, ops, a, b: ops.bitwise_left_shift(a, b),
                           [XI, RNG.integers(0, 8, (4, 3)).astype(np.int32)]),
    "bitwise_right_shift": (lambda ms, ops, a, b: ops.bitwise_right_shift(a, b),
                            [XI, RNG.integers(0, 8, (4, 3)).astype(np.int32)]),
    "bitwise_left_shift_int64_broadcast": (lambda ms, ops, a, b: ops.bitwise_left_shift(a, b),
                                           [XI.astype(np.int64), np.array([1, 2, 3], np.int64)]),
    "bitwise_right_shift_uint8": (lambda ms, ops, a, b: ops.bitwise_right_shift(a, b),
                                  [np.array([255, 128, 7, 1], np.uint8), np.array([1, 7, 1, 0], np.uint8)]),
}


def outputs(result: Any) -> list[np.ndarray]:
    """A case's result (a Tensor or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.array(t.asnumpy()) for t in items]


def run(ms: Any, ops: Any, name: str) -> list[np.ndarray]:
    """Case ``name`` on ``ms``/``ops`` (PyNative)."""
    fn, inputs = CASES[name]
    return outputs(fn(ms, ops, *[ms.Tensor(a) for a in inputs]))


__all__ = ["CASES", "outputs", "run"]
