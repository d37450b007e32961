"""Box and top-k functions of ``mindspore.ops``: ``iou``, ``check_valid``, ``bounding_box_encode``,
``bounding_box_decode``, ``intopk`` and ``padding``, compositions of registered elementwise ops (so they trace,
cache and differentiate like any other). The primitive classes ``IOU``, ``CheckValid``, ``BoundingBoxEncode``,
``BoundingBoxDecode``, ``InTopK`` and ``Padding`` (ops/ms_prim_classes_more.py) call these.

Boxes are (x0, y0, x1, y1) and their sizes count both end pixels (``x1 - x0 + 1``), as MindSpore's box ops do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M


def _const(value, like: Tensor) -> Tensor:
    return Tensor(np.array(value, like.dtype.np_dtype))


def _col(t: Tensor, i: int) -> Tensor:
    return t[:, i]


def _boxes(fn: str, name: str, v) -> Tensor:
    t = as_tensor(v)
    if t.ndim != 2 or t.shape[1] < 4 or not t.dtype.is_float:
        raise ValueError(f"{fn}: {name} must be a float (N, 4) Tensor of (x0, y0, x1, y1) boxes, got {t.dtype} "
                         f"{tuple(t.shape)}")
    return t


def iou(anchor_boxes, gt_boxes, mode: str = "iou") -> Tensor:
    """``ops.iou(anchor_boxes, gt_boxes, mode='iou')``: the (M, N) intersection over union of the N anchor and
    M ground-truth boxes, or over the ground-truth area with ``mode='iof'``."""
    if mode not in ("iou", "iof"):
        raise ValueError(f"iou: mode must be 'iou' or 'iof', got {mode!r}")
    anc, gt = _boxes("iou", "anchor_boxes", anchor_boxes), _boxes("iou", "gt_boxes", gt_boxes)
    one, zero = _const(1.0, anc), _const(0.0, anc)
    ax0, ay0, ax1, ay1 = (A.reshape(_col(anc, i), (1, -1)) for i in range(4))
    gx0, gy0, gx1, gy1 = (A.reshape(_col(gt, i), (-1, 1)) for i in range(4))
    iw = M.maximum(M.add(M.sub(M.minimum(ax1, gx1), M.maximum(ax0, gx0)), one), zero)
    ih = M.maximum(M.add(M.sub(M.minimum(ay1, gy1), M.maximum(ay0, gy0)), one), zero)
    inter = M.mul(iw, ih)
    area_a = M.mul(M.add(M.sub(ax1, ax0), one), M.add(M.sub(ay1, ay0), one))
    area_g = M.mul(M.add(M.sub(gx1, gx0), one), M.add(M.sub(gy1, gy0), one))
    # 'iof' divides by the ground-truth area, broadcast to (M, N) through a zero multiple of the anchors'.
    denom = M.sub(M.add(area_a, area_g), inter) if mode == "iou" else M.add(area_g, M.mul(zero, area_a))
    return M.div(inter, denom)


def check_valid(bboxes, img_metas) -> Tensor:
    """``ops.check_valid(bboxes, img_metas)``: whether each box has x0, y0 >= 0, x1 <= width * ratio - 1 and
    y1 <= height * ratio - 1, ``img_metas`` being (height, width, ratio)."""
    b, m = _boxes("check_valid", "bboxes", bboxes), as_tensor(img_metas)
    if tuple(m.shape) != (3,):
        raise ValueError(f"check_valid: img_metas must be (height, width, ratio), got shape {tuple(m.shape)}")
    m = M._cast(m, b.dtype)
    one, zero = _const(1.0, b), _const(0.0, b)
    h = M.sub(M.mul(m[0], m[2]), one)
    w = M.sub(M.mul(m[1], m[2]), one)
    ok = M.logical_and(M.ge(_col(b, 0), zero), M.ge(_col(b, 1), zero))
    ok = M.logical_and(ok, M.le(_col(b, 2), w))
    return M.logical_and(ok, M.le(_col(b, 3), h))


def _centres(boxes: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(cx, cy, w, h) of (x0, y0, x1, y1) boxes."""
    one = _const(1.0, boxes)
    x0, y0, x1, y1 = (_col(boxes, i) for i in range(4))
    return (M.mul(M.add(x0, x1), 0.5), M.mul(M.add(y0, y1), 0.5), M.add(M.sub(x1, x0), one),
            M.add(M.sub(y1, y0), one))


def _four(fn: str, name: str, v: Sequence[float]) -> tuple[float, ...]:
    t = tuple(float(x) for x in v)
    if len(t) != 4:
        raise ValueError(f"{fn}: {name} must hold 4 floats, got {v!r}")
    return t


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)
                        ) -> Tensor:
    """``ops.bounding_box_encode(anchor_box, groundtruth_box, means=(0.0,) * 4, stds=(1.0,) * 4)``: the
    (dx, dy, dw, dh) deltas from each anchor box to its ground-truth box, normalized by ``means``/``stds``."""
    fn = "bounding_box_encode"
    anc, gt = _boxes(fn, "anchor_box", anchor_box), _boxes(fn, "groundtruth_box", groundtruth_box)
    px, py, pw, ph = _centres(anc)
    gx, gy, gw, gh = _centres(gt)
    deltas = A.stack((M.div(M.sub(gx, px), pw), M.div(M.sub(gy, py), ph), M.log(M.div(gw, pw)),
                      M.log(M.div(gh, ph))), 1)
    return M.div(M.sub(deltas, _const(_four(fn, "means", means), anc)), _const(_four(fn, "stds", stds), anc))


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip: float = 0.016) -> Tensor:
    """``ops.bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0,) * 4, stds=(1.0,) * 4,
    wh_ratio_clip=0.016)``: boxes from anchor boxes and (dx, dy, dw, dh) deltas, the size deltas clipped to
    ``|log(wh_ratio_clip)|`` and the coordinates to [0, width] and [0, height] (``max_shape`` = (height,
    width))."""
    fn = "bounding_box_decode"
    anc, d = _boxes(fn, "anchor_box", anchor_box), _boxes(fn, "deltas", deltas)
    if len(tuple(max_shape)) != 2:
        raise ValueError(f"{fn}: max_shape must be (height, width), got {max_shape!r}")
    d = M.add(M.mul(d, _const(_four(fn, "stds", stds), anc)), _const(_four(fn, "means", means), anc))
    limit = abs(float(np.log(wh_ratio_clip)))
    lo, hi = _const(-limit, anc), _const(limit, anc)
    dx, dy = _col(d, 0), _col(d, 1)
    dw = M.minimum(M.maximum(_col(d, 2), lo), hi)
    dh = M.minimum(M.maximum(_col(d, 3), lo), hi)
    px, py, pw, ph = _centres(anc)
    gw, gh = M.mul(pw, M.exp(dw)), M.mul(ph, M.exp(dh))
    gx, gy = M.add(px, M.mul(pw, dx)), M.add(py, M.mul(ph, dy))
    height, width = max_shape[0], max_shape[1]
    zero = _const(0.0, anc)

    def clip(v: Tensor, top: float) -> Tensor:
        return M.minimum(M.maximum(v, zero), _const(top, anc))

    half_w, half_h = M.mul(gw, 0.5), M.mul(gh, 0.5)
    return A.stack((clip(M.add(M.sub(gx, half_w), 0.5), width), clip(M.add(M.sub(gy, half_h), 0.5), height),
                    clip(M.sub(M.add(gx, half_w), 0.5), width), clip(M.sub(M.add(gy, half_h), 0.5), height)), 1)


def intopk(x1, x2, k: int) -> Tensor:
    """``ops.intopk(x1, x2, k)``: whether each row's target class ``x2[i]`` is among the ``k`` largest of
    ``x1[i]`` (ties with the k-th value count in)."""
    x1, x2 = as_tensor(x1), as_tensor(x2)
    if x1.ndim != 2 or x2.shape != (x1.shape[0],) or x2.dtype.name not in ("int32", "int64"):
        raise ValueError(f"intopk: x1 must be (N, C) and x2 an int (N,) Tensor, got {tuple(x1.shape)} and "
                         f"{x2.dtype} {tuple(x2.shape)}")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"intopk: k must be an int, got {k!r}")
    target = A.reshape(_take_rows(x1, x2), (-1, 1))
    above = M.sum(M._cast(M.gt(x1, target), "int32"), 1)
    return M.lt(above, k)


def _take_rows(x: Tensor, cls: Tensor) -> Tensor:
    return apply("GatherD", {"dim": 1}, [x, A.reshape(M._cast(cls, "int64"), (-1, 1))])


def padding(x, pad_dim_size: int = 8) -> Tensor:
    """``ops.padding(x, pad_dim_size=8)``: the size-1 last axis of ``x`` extended to ``pad_dim_size`` with
    zeros."""
    t = as_tensor(x)
    if t.ndim < 1 or t.shape[-1] != 1:
        raise ValueError(f"padding: the last axis of x must have size 1, got shape {tuple(t.shape)}")
    if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int) or pad_dim_size < 1:
        raise ValueError(f"padding: pad_dim_size must be a positive int, got {pad_dim_size!r}")
    if pad_dim_size == 1:
        return t
    zeros = Tensor(np.zeros((*t.shape[:-1], pad_dim_size - 1), t.dtype.np_dtype))
    return A.cat((t, zeros), -1)


__all__ = ["iou", "check_valid", "bounding_box_encode", "bounding_box_decode", "intopk", "padding"]
