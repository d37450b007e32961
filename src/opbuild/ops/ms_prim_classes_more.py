"""More thin MindSpore primitive classes (the second table; see ms_prim_classes.py for the pattern):
``Conv3D``, ``Cross``, ``InTopK``, ``InvertPermutation``, ``Padding``, ``Polar``, ``ScalarCast``,
``LowerBound``, ``UpperBound``, ``IOU``, ``CheckValid``, ``TrilIndices``, ``TriuIndices``, ``FillV2``,
``EqualCount``, ``Conv3DTranspose``, ``BoundingBoxEncode`` and ``BoundingBoxDecode``, each over the
functional API or a small composition of registered ops. Checked against MindSpore in
tests/compat/test_prim_classes.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive, apply


def _conv3d(a: dict, x: Any, weight: Any, bias: Any = None) -> Tensor:
    w = as_tensor(weight)
    if w.shape[0] != a["out_channel"]:
        raise ValueError(f"Conv3D: weight has {w.shape[0]} output channels, out_channel is {a['out_channel']}")
    pad = a["pad"]
    return F.conv3d(x, w, bias, a["stride"], a["pad_mode"].lower(), pad, a["dilation"], a["group"])


def _cross(a: dict, x1: Any, x2: Any) -> Tensor:
    x1, x2 = as_tensor(x1), as_tensor(x2)
    dim = a["dim"]
    if dim == -65530:  # MindSpore's "not given": the first axis of size 3
        dims = [i for i, d in enumerate(x1.shape) if d == 3]
        if not dims:
            raise ValueError(f"Cross: no axis of size 3 in shape {x1.shape}; pass dim")
        dim = dims[0]
    if x1.shape[dim] != 3:
        raise ValueError(f"Cross: axis {dim} must have size 3, got {x1.shape[dim]}")
    nxt, prv = Tensor(np.array([1, 2, 0], np.int32)), Tensor(np.array([2, 0, 1], np.int32))
    return (F.gather(x1, nxt, dim) * F.gather(x2, prv, dim)) - (F.gather(x1, prv, dim) * F.gather(x2, nxt, dim))


def _invert_permutation(a: dict, x: Sequence[int]) -> tuple:
    perm = [int(v) for v in x]
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"InvertPermutation: input must be a permutation of 0..{len(perm) - 1}, got {perm}")
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


def _polar(a: dict, r: Any, theta: Any) -> Tensor:
    return apply("Complex", {}, [r * F.cos(theta), r * F.sin(theta)])


def _bound(right: bool) -> Callable:
    def call(a: dict, sorted_x: Any, values: Any) -> Tensor:
        out = F.searchsorted(sorted_x, values, right=right)
        return F.cast(out, a["out_type"])
    return call


def _tri_indices(lower: bool) -> Callable:
    def call(a: dict) -> Tensor:
        rows, cols = np.tril_indices(a["row"], a["offset"], a["col"]) if lower else \
            np.triu_indices(a["row"], a["offset"], a["col"])
        return F.cast(Tensor(np.stack([rows, cols]).astype(np.int64)), a["dtype"])
    return call


def _fill_v2(a: dict, shape: Any, value: Any) -> Tensor:
    dims = [int(d) for d in np.asarray(shape.asnumpy() if isinstance(shape, Tensor) else shape).reshape(-1)]
    if any(d < 0 for d in dims):
        raise ValueError(f"FillV2: shape must be non-negative, got {dims}")
    return F.broadcast_to(F.reshape(as_tensor(value), ()), tuple(dims))


def _equal_count(a: dict, x: Any, y: Any) -> Tensor:
    x = as_tensor(x)
    return F.reshape(F.cast(F.sum(F.cast(F.equal(x, y), "int64")), x.dtype), (1,))


def _conv3d_transpose(a: dict, dout: Any, weight: Any, bias: Any = None) -> Tensor:
    if bias is not None:
        raise ValueError("Conv3DTranspose: bias is not supported (MindSpore requires None)")
    return F.conv3d_transpose(dout, weight, a["pad_mode"].lower(), a["pad"], a["stride"], a["dilation"], a["group"],
                              a["output_padding"])


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "Conv3D": ((("out_channel", REQUIRED), ("kernel_size", REQUIRED), ("mode", 1), ("pad_mode", "valid"), ("pad", 0),
                ("stride", 1), ("dilation", 1), ("group", 1), ("data_format", "NCDHW")), _conv3d,
               "3-D convolution of (N, C, D, H, W) ``x`` with ``weight`` (``ops.conv3d``)."),
    "Cross": ((("dim", -65530),), _cross, "The cross product along ``dim`` (default: the first axis of size 3)."),
    "InTopK": ((("k", REQUIRED),), lambda a, x1, x2: F.intopk(x1, x2, a["k"]),
               "Whether each row's target class is among its ``k`` largest predictions (ties count in)."),
    "InvertPermutation": ((), _invert_permutation, "The inverse of a permutation given as a tuple of ints."),
    "Padding": ((("pad_dim_size", 8),), lambda a, x: F.padding(x, a["pad_dim_size"]),
                "Extends the size-1 last axis of ``x`` to ``pad_dim_size`` with zeros."),
    "Polar": ((), _polar, "The complex number abs * (cos(angle) + i sin(angle))."),
    "ScalarCast": ((), lambda a, x, t: {"int": int, "flo": float, "boo": bool}[
        str(t).lower().lstrip("u")[:3]](x) if not isinstance(t, type) else t(x),
                   "A Python scalar converted to the scalar type ``t``."),
    "LowerBound": ((("out_type", "int32"),), _bound(False),
                   "Per row, the first position of ``sorted_x`` whose value is >= each value."),
    "UpperBound": ((("out_type", "int32"),), _bound(True),
                   "Per row, the first position of ``sorted_x`` whose value is > each value."),
    "IOU": ((("mode", "iou"),), lambda a, anchor, gt: F.iou(anchor, gt, a["mode"]),
            "(M, N) intersection over union (or over the ground-truth area, ``iof``) of boxes (x0, y0, x1, y1)."),
    "TrilIndices": ((("row", REQUIRED), ("col", REQUIRED), ("offset", 0), ("dtype", "int32")), _tri_indices(True),
                    "The (2, n) row and column indices of the lower triangle of a row x col matrix."),
    "TriuIndices": ((("row", REQUIRED), ("col", REQUIRED), ("offset", 0), ("dtype", "int32")), _tri_indices(False),
                    "The (2, n) row and column indices of the upper triangle of a row x col matrix."),
    "FillV2": ((), _fill_v2, "A tensor of ``shape`` filled with the 0-D ``value`` (its dtype)."),
    "EqualCount": ((), _equal_count, "The number of equal elements, a (1,) tensor of the inputs' dtype."),
    "Conv3DTranspose": ((("in_channel", REQUIRED), ("out_channel", REQUIRED), ("kernel_size", REQUIRED), ("mode", 1),
                         ("pad_mode", "valid"), ("pad", 0), ("stride", 1), ("dilation", 1), ("group", 1),
                         ("output_padding", 0), ("data_format", "NCDHW")), _conv3d_transpose,
                        "3-D transposed convolution (``ops.conv3d_transpose``)."),
    "BoundingBoxEncode": ((("means", (0.0, 0.0, 0.0, 0.0)), ("stds", (1.0, 1.0, 1.0, 1.0))),
                          lambda a, anchor, gt: F.bounding_box_encode(anchor, gt, a["means"], a["stds"]),
                          "The (dx, dy, dw, dh) deltas from anchor boxes to ground-truth boxes, normalized."),
    "BoundingBoxDecode": ((("max_shape", REQUIRED), ("means", (0.0, 0.0, 0.0, 0.0)), ("stds", (1.0, 1.0, 1.0, 1.0)),
                           ("wh_ratio_clip", 0.016)),
                          lambda a, anchor, d: F.bounding_box_decode(anchor, d, a["max_shape"], a["means"], a["stds"],
                                                                     a["wh_ratio_clip"]),
                          "Boxes from anchor boxes and deltas, clipped to ``max_shape`` (height, width)."),
    "CheckValid": ((), lambda a, bboxes, metas: F.check_valid(bboxes, metas),
                   "Whether each box (x0, y0, x1, y1) has x0, y0 >= 0, x1 <= width * ratio - 1 and y1 <= "
                   "height * ratio - 1, ``img_metas`` being (height, width, ratio)."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
