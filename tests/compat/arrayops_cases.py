"""Cases of the array, sparse, box and sequence operators of the arrayops branch, written once against a
MindSpore-shaped namespace: scripts/record_arrayops.py runs them on real MindSpore 2.10 and stores inputs and
outputs in tests/fixtures/arrayops.npz; tests/compat/test_arrayops.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``, returning a Tensor, a tuple of them, or Python
numbers; arguments that must be constants (paddings, shapes, index lists) are built inside ``fn``. This module
imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(2510)


def _f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def _i(*values, dtype=np.int64) -> np.ndarray:
    return np.array(values, dtype)


X234 = _f32(2, 3, 4)
IMG = _f32(2, 3, 6, 6)
COLS = _f32(2, 3, 4, 9)
BOX_A = np.array([[1, 2, 6, 9], [0, 0, 4, 4], [3, 1, 8, 5]], np.float32)
BOX_G = np.array([[2, 2, 7, 8], [1, 1, 3, 5]], np.float32)
LOGITS = _f32(4, 6)
CTC_X = np.log(RNG.dirichlet(np.ones(5), (6, 2)).astype(np.float32))


def _t(ms, a, dt=None):
    return ms.Tensor(np.asarray(a), dt) if dt is not None else ms.Tensor(np.asarray(a))


CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "mirror_pad_reflect": (lambda ms, ops, x: ops.mirror_pad(x, _t(ms, [[0, 1], [2, 1], [3, 2]]), "REFLECT"), [X234]),
    "mirror_pad_symmetric": (lambda ms, ops, x: ops.mirror_pad(x, _t(ms, [[1, 2], [3, 0], [0, 4]]), "SYMMETRIC"),
                             [X234]),
    "MirrorPad": (lambda ms, ops, x: ops.MirrorPad("SYMMETRIC")(x, _t(ms, [[0, 0], [1, 1], [2, 2]])), [X234]),
    "space_to_batch_nd": (lambda ms, ops, x: ops.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 3]]),
                          [_f32(2, 3, 4, 6)]),
    "space_to_batch_nd_1d": (lambda ms, ops, x: ops.space_to_batch_nd(x, [2], [[1, 1]]), [_f32(2, 3, 4)]),
    "SpaceToBatchND": (lambda ms, ops, x: ops.SpaceToBatchND([2, 2], [[0, 0], [2, 0]])(x), [_f32(1, 2, 4, 2)]),
    "batch_to_space_nd": (lambda ms, ops, x: ops.batch_to_space_nd(x, [2, 3], [[1, 0], [2, 1]]),
                          [_f32(12, 2, 3, 2)]),
    "BatchToSpaceND": (lambda ms, ops, x: ops.BatchToSpaceND([2, 2], [[0, 1], [1, 0]])(x), [_f32(8, 1, 2, 2)]),
    "col2im": (lambda ms, ops, x: ops.col2im(x, _t(ms, [6, 6], ms.int32), [2, 2], [1, 1], [0, 0], [2, 2]),
               [COLS]),
    "Col2Im": (lambda ms, ops, x: ops.Col2Im(kernel_size=[2, 2], dilation=1, padding=1, stride=2)(
        x, _t(ms, [4, 4], ms.int32)), [COLS]),
    "Im2Col": (lambda ms, ops, x: ops.Im2Col(ksizes=3, strides=2, dilations=1, pads=1)(x), [IMG]),
    "Im2Col_dilated": (lambda ms, ops, x: ops.Im2Col(ksizes=(2, 3), strides=1, dilations=2)(x), [IMG]),
    "gather_batch_dims": (lambda ms, ops, x, i: ops.gather(x, i, 2, 1), [X234, _i([0, 3], [2, 1])]),
    "gather_batch_dims_axis1": (lambda ms, ops, x, i: ops.gather(x, i, 1, 1), [X234, _i([[0, 2]], [[1, 1]])]),
    "tensor_gather_batch_dims": (lambda ms, ops, x, i: x.gather(i, 1, 1), [_f32(3, 4), _i(0, 3, 1, dtype=np.int32)]),
    "select_numbers": (lambda ms, ops, c: ops.select(c, 1, 2), [np.array([True, False, True])]),
    "select_floats": (lambda ms, ops, c: ops.select(c, 1.5, -2.0), [np.array([[True, False], [False, True]])]),
    "unique_with_pad_int64": (lambda ms, ops, x: ops.unique_with_pad(x, -1), [_i(5, 2, 5, 7, 2, 9)]),
    "unique_with_pad_int32": (lambda ms, ops, x: ops.unique_with_pad(x, 0), [_i(3, 3, 1, dtype=np.int32)]),
    "Unique_int64": (lambda ms, ops, x: ops.Unique()(x), [_i(4, 1, 4, 0, 1)]),
    "Unique_2d": (lambda ms, ops, x: ops.Unique()(x), [_i([3, 1], [3, 2])]),
    "Unique_float": (lambda ms, ops, x: ops.Unique()(x), [np.array([2.5, -1.0, 2.5, 3.0], np.float32)]),
    "UniqueConsecutive_dim0": (lambda ms, ops, x: ops.UniqueConsecutive(True, True, 0)(x),
                               [_i([1, 2], [1, 2], [3, 4], [1, 2])]),
    "NonZero_2d": (lambda ms, ops, x: ops.NonZero()(x), [np.array([[0.0, 1.5], [2.0, 0.0]], np.float32)]),
    "ReverseSequence": (lambda ms, ops, x, n: ops.ReverseSequence(seq_dim=1, batch_dim=0)(x, n),
                        [X234, _i(2, 3, dtype=np.int32)]),
    "IndexPut": (lambda ms, ops, x, v: ops.IndexPut(0)(x, v, [_t(ms, _i(1, 0, dtype=np.int32))]),
                 [_f32(3, 4), _f32(4)]),
    "IndexPut_accumulate": (lambda ms, ops, x, v: ops.IndexPut(1)(
        x, v, [_t(ms, _i(0, 2, 0)), _t(ms, _i(1, 3, 1))]), [_f32(3, 4), _f32(3)]),
    "ParallelConcat": (lambda ms, ops, a, b: ops.ParallelConcat()((a, b)), [_f32(1, 3), _f32(1, 3)]),
    "DataFormatDimMap": (lambda ms, ops, x: ops.DataFormatDimMap("NCHW", "NHWC")(x), [_i(-4, -1, 0, 3, 2)]),
    "EmbeddingLookup": (lambda ms, ops, p, i: ops.EmbeddingLookup()(p, i, 2),
                        [_f32(4, 3), _i([2, 6], [1, 5], dtype=np.int32)]),
    "Median_axis": (lambda ms, ops, x: ops.Median(False, 1, True)(x), [_f32(3, 5)]),
    "Median_global_value": (lambda ms, ops, x: ops.Median(True)(x)[0], [_f32(3, 5)]),
    "Bincount": (lambda ms, ops, a, w: ops.Bincount()(a, _t(ms, 4, ms.int32), w),
                 [_i(0, 1, 3, 3, 5, 1, dtype=np.int32), _f32(6)]),
    "SparseToDense": (lambda ms, ops, i, v: ops.SparseToDense()(i, v, (3, 4)), [_i([0, 1], [2, 3]), _f32(2)]),
    "SparseTensorDenseAdd": (lambda ms, ops, i, v, d: ops.SparseTensorDenseAdd()(i, v, _t(ms, _i(2, 3)), d),
                             [_i([0, 1], [1, 2]), _f32(2), _f32(2, 3)]),
    "SparseTensorDenseMatmul_adjoint": (lambda ms, ops, i, v, d: ops.SparseTensorDenseMatmul(True, False)(
        i, v, (3, 2), d), [_i([0, 1], [2, 0], dtype=np.int32), _f32(2), _f32(3, 4)]),
    "sparse_segment_mean": (lambda ms, ops, x, i, s: ops.sparse_segment_mean(x, i, s),
                            [_f32(4, 3), _i(3, 0, 1, dtype=np.int32), _i(0, 0, 2, dtype=np.int32)]),
    "diff_ext": (lambda ms, ops, x: ops.diff_ext(x, 2, 0), [_f32(5, 3)]),
    "iou": (lambda ms, ops, a, g: ops.iou(a, g), [BOX_A, BOX_G]),
    "iof": (lambda ms, ops, a, g: ops.iou(a, g, "iof"), [BOX_A, BOX_G]),
    "check_valid": (lambda ms, ops, b, m: ops.check_valid(b, m), [BOX_A, np.array([6, 8, 1], np.float32)]),
    "bounding_box_encode": (lambda ms, ops, a, g: ops.bounding_box_encode(a, g, (0.1, 0.0, 0.2, 0.0),
                                                                          (1.0, 2.0, 0.5, 1.0)),
                            [BOX_A[:2], BOX_G]),
    "bounding_box_decode": (lambda ms, ops, a, d: ops.bounding_box_decode(a, d, (10, 12), (0.0, 0.1, 0.0, 0.0),
                                                                          (1.0, 1.0, 2.0, 1.0), 0.05),
                            [BOX_A, _f32(3, 4)]),
    "intopk": (lambda ms, ops, x, t: ops.intopk(x, t, 2), [LOGITS, _i(0, 5, 2, 3, dtype=np.int32)]),
    "padding": (lambda ms, ops, x: ops.padding(x, 5), [_f32(3, 1)]),
    "CTCLossV2": (lambda ms, ops, lp, t, il, tl: ops.CTCLossV2(blank=4)(lp, t, il, tl),
                  [CTC_X, _i([0, 1, 1], [2, 3, 0], dtype=np.int32), _i(6, 5, dtype=np.int32),
                   _i(3, 2, dtype=np.int32)]),
    "CTCLossV2_mean": (lambda ms, ops, lp, t, il, tl: ops.CTCLossV2(reduction="mean")(lp, t, il, tl),
                       [CTC_X, _i([0, 1, 1], [2, 3, 0], dtype=np.int32), _i(6, 5, dtype=np.int32),
                        _i(3, 2, dtype=np.int32)]),
    "inplace_index_add": (lambda ms, ops, v, i, u: ops.inplace_index_add(ms.Parameter(v, name="v"), i, u, 1),
                          [_f32(2, 3), _i(2, 0, dtype=np.int32), _f32(2, 2)]),
    "InplaceIndexAdd": (lambda ms, ops, v, i, u: ops.InplaceIndexAdd(0)(ms.Parameter(v, name="v"), i, u),
                        [_f32(3, 2), _i(1, 1, dtype=np.int32), _f32(2, 2)]),
}

# Cases whose inputs must be concrete (PyNative only): value-dependent output shapes or in-place updates.
PYNATIVE_ONLY = {"unique_with_pad_int64", "unique_with_pad_int32", "Unique_int64", "Unique_float",
                 "UniqueConsecutive_dim0", "NonZero_2d", "sparse_segment_mean", "inplace_index_add",
                 "InplaceIndexAdd"}


def outputs(result) -> list[np.ndarray]:
    """A case's result as a list of NumPy arrays (Tensors through ``asnumpy``, Python numbers as arrays)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [r.asnumpy() if hasattr(r, "asnumpy") else np.asarray(r) for r in items]
