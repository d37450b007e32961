"""Gradients of the differentiable array compositions of the arrayops branch (mirror_pad, space_to_batch_nd,
batch_to_space_nd, col2im/Im2Col, gather with batch_dims, IndexPut, the box functions, ROIAlign, CTCLossV2) against
central finite differences in float64 (tests/ops/test_grads.py ``check``)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.errors import KernelInputError

from .test_grads import check, rand

pytestmark = pytest.mark.slow


def test_mirror_pad(graph_mode):
    check(lambda x: ops.mirror_pad(x, ms.Tensor(np.array([[1, 0], [2, 1]])), "REFLECT"), rand(3, 4))
    check(lambda x: ops.MirrorPad("SYMMETRIC")(x, ms.Tensor(np.array([[0, 2], [1, 1]]))), rand(2, 3, seed=1))


def test_space_batch_round_trip(graph_mode):
    check(lambda x: ops.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]), rand(1, 2, 2, 2))
    check(lambda x: ops.batch_to_space_nd(x, [2, 1], [[1, 0], [0, 0]]), rand(2, 1, 2, 3, seed=2))


def test_col2im_and_im2col(graph_mode):
    check(lambda x: ops.col2im(x, ms.Tensor(np.array([3, 3], np.int32)), [2, 2], [1, 1], [0, 0], [1, 1]),
          rand(1, 1, 4, 4))
    check(lambda x: ops.Im2Col(ksizes=2, strides=1, pads=1)(x), rand(1, 1, 3, 3, seed=3))


def test_gather_batch_dims(graph_mode):
    idx = ms.Tensor(np.array([[2, 0, 2], [1, 1, -1]], np.int32))  # -1: the last row (repeated rows add)
    check(lambda x: ops.gather(x, idx, 1, 1), rand(2, 3, 2))
    with pytest.raises(KernelInputError, match=r"input_indices\[1, 2\] = 3 is out of range .* \[-3, 3\)"):
        ops.gather(ms.Tensor(rand(2, 3, 2)), ms.Tensor(np.array([[2, 0, 2], [1, 1, 3]], np.int32)), 1, 1)


def test_index_put_values_and_input(graph_mode):
    rows, cols = ms.Tensor(np.array([0, 2], np.int64)), ms.Tensor(np.array([1, 0], np.int64))
    check(lambda x, v: ops.IndexPut(1)(x, v, [rows, cols]), rand(3, 2), rand(2, seed=4))
    check(lambda x, v: ops.IndexPut(0)(x, v, [rows]), rand(3, 2, seed=5), rand(2, seed=6))


def test_box_functions(graph_mode):
    anchors = np.array([[1.0, 2.0, 6.0, 9.0], [0.0, 0.0, 4.0, 4.0]])
    check(lambda a, g: ops.iou(a, g), anchors, anchors[::-1] + 0.5)
    check(lambda a, g: ops.bounding_box_encode(a, g), anchors, anchors + 0.25)


def test_roi_align(graph_mode):
    rois = ms.Tensor(np.array([[0, 0.4, 0.7, 2.6, 2.2], [0, 1.1, 0.2, 3.3, 3.9]]))
    check(lambda f: ops.ROIAlign(2, 2, 0.8, 2)(f, rois), rand(1, 2, 4, 5))


def test_ctc_loss_v2(graph_mode):
    targets = ms.Tensor(np.array([[1, 2]], np.int32))
    lengths = ms.Tensor(np.array([4], np.int32)), ms.Tensor(np.array([2], np.int32))
    check(lambda lp: ops.CTCLossV2()(lp, targets, *lengths)[0], rand(4, 1, 3, low=-2.0, high=0.0), rtol=1e-4)
