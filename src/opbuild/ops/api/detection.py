"""Detection and sequence operators: ``ops.ctc_greedy_decoder`` and the bodies of the primitive classes
``NMSWithMask``, ``ROIAlign``, ``CTCGreedyDecoder``, ``CTCLoss``, ``EditDistance`` and ``NoRepeatNGram``
(ops/ms_prim_detection.py).

``roi_align`` (with a fixed ``sample_num``) and ``no_repeat_ngram`` are compositions of registered ops, so they
trace and ROIAlign's gradient reaches the features; ``nms_with_mask`` traces as a host ``PyCall`` node (its
output shapes are static); the others have value-dependent outputs (the greedy
decoder, the edit distance of sparse sequences) or are the TensorFlow-style CTC loss whose gradient is one of
its outputs, computed on the host in float64: they read their inputs eagerly and refuse a GRAPH_MODE trace.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..python_calls import Callback, pycall
from . import array as A
from . import math as M
from .data_dependent import _concrete


def _nms_arrays(a: np.ndarray, iou_threshold: float) -> list[np.ndarray]:
    """NMSWithMask on a concrete (N, 5) array: the sorted boxes, their positions, the kept mask."""
    order = np.argsort(-a[:, 4].astype(np.float64), kind="stable")
    boxes = a[order]
    x0, y0, x1, y1 = (boxes[:, i].astype(np.float64) for i in range(4))
    area = (x1 - x0) * (y1 - y0)
    keep = np.ones(len(boxes), bool)
    for i in range(len(boxes)):
        if not keep[i]:
            continue
        iw = np.maximum(np.minimum(x1[i], x1[i + 1:]) - np.maximum(x0[i], x0[i + 1:]), 0.0)
        ih = np.maximum(np.minimum(y1[i], y1[i + 1:]) - np.maximum(y0[i], y0[i + 1:]), 0.0)
        inter = iw * ih
        iou = inter / np.maximum(area[i] + area[i + 1:] - inter, 1e-12)
        keep[i + 1:] &= ~(iou > iou_threshold)
    return [boxes, np.arange(len(boxes), dtype=np.int32), keep]


def nms_with_mask(bboxes, iou_threshold: float) -> tuple[Tensor, Tensor, Tensor]:
    """Greedy non-maximum suppression of (N, 5) boxes (x0, y0, x1, y1, score): the boxes sorted by score
    (descending, stable: MindSpore's own sort does not always keep equal scores in input order), their
    positions 0..N-1 in that order (int32, as MindSpore's CPU kernel gives), and the mask of the kept ones; a
    box is dropped when its IoU (areas without the +1) with a kept box of higher score exceeds
    ``iou_threshold``. The output shapes do not depend on the values, so inside a GRAPH_MODE trace it is a
    host node (``PyCall``) computing the same on the concrete boxes when the graph runs (Faster R-CNN's
    proposal generator calls it in ``construct``); no gradient flows through it, as in MindSpore."""
    fn = "NMSWithMask"
    b = as_tensor(bboxes)
    if b.ndim != 2 or b.shape[1] != 5 or b.dtype.name not in ("float16", "float32"):
        raise ValueError(f"{fn}: bboxes must be a float16/float32 (N, 5) Tensor, got {b.dtype} {tuple(b.shape)}")
    thr = float(iou_threshold)
    if b._data is None:
        n = int(b.shape[0])
        outs = [((n, 5), b.dtype.name), ((n,), "int32"), ((n,), "bool")]
        return tuple(pycall(Callback(fn, lambda arrays: _nms_arrays(arrays[0], thr)), [b], outs))
    boxes, idx, keep = _nms_arrays(b.asnumpy(), thr)
    return Tensor(boxes, dtype=b.dtype), Tensor(idx), Tensor(keep)


def _bilinear_rows(y: np.ndarray | Tensor, x, height: int, width: int):
    """The four (flat row index, weight) pairs of bilinear sampling at (y, x) (tensors), Detectron's rules:
    outside [-1, size] gives 0, coordinates are clamped to the image, the last row/column repeats."""
    def axis(v: Tensor, size: int):
        inside = M.logical_and(M.ge(v, -1.0), M.le(v, float(size)))
        v = M.maximum(v, 0.0)
        low = M.floor(v)
        at_end = M.ge(low, float(size - 1))
        low = M.where(at_end, float(size - 1), low)
        v = M.where(at_end, low, v)
        high = M.where(at_end, low, M.add(low, 1.0))
        frac = M.sub(v, low)
        return inside, M._cast(low, "int64"), M._cast(high, "int64"), frac

    in_y, y_lo, y_hi, ly = axis(y, height)
    in_x, x_lo, x_hi, lx = axis(x, width)
    valid = M._cast(M.logical_and(in_y, in_x), ly.dtype)
    hy, hx = M.sub(1.0, ly), M.sub(1.0, lx)
    corners = ((y_lo, x_lo, M.mul(hy, hx)), (y_lo, x_hi, M.mul(hy, lx)), (y_hi, x_lo, M.mul(ly, hx)),
               (y_hi, x_hi, M.mul(ly, lx)))
    return [(M.add(M.mul(r, width), c), M.mul(w, valid)) for r, c, w in corners]


def roi_align(features, rois, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int = 2,
              roi_end_mode: int = 1) -> Tensor:
    """ROIAlign of (N, C, H, W) ``features`` over (R, 5) ``rois`` (batch index, x0, y0, x1, y1): each of the
    (pooled_height, pooled_width) bins of a region is the mean of sample_num x sample_num bilinear samples
    (``sample_num`` 0: the bin size truncated per axis, which needs concrete ``rois``;
    a region smaller than a bin is NaN, as in MindSpore). ``roi_end_mode`` 1 adds 1 to
    the end coordinates (before scaling); 0 keeps them and makes every region at least 1 x 1."""
    fn = "ROIAlign"
    f, r = as_tensor(features), as_tensor(rois)
    if f.ndim != 4 or not f.dtype.is_float:
        raise ValueError(f"{fn}: features must be a float (N, C, H, W) Tensor, got {f.dtype} {tuple(f.shape)}")
    if r.ndim != 2 or r.shape[1] != 5 or r.dtype != f.dtype:
        raise ValueError(f"{fn}: rois must be an (R, 5) Tensor of the features' dtype, got {r.dtype} "
                         f"{tuple(r.shape)}")
    for name, v in (("pooled_height", pooled_height), ("pooled_width", pooled_width)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{fn}: {name} must be a positive int, got {v!r}")
    if roi_end_mode not in (0, 1) or isinstance(sample_num, bool) or not isinstance(sample_num, int) or \
            sample_num < 0:
        raise ValueError(f"{fn}: roi_end_mode must be 0 or 1 and sample_num a non-negative int, got "
                         f"{roi_end_mode!r} and {sample_num!r}")
    if sample_num == 0:
        _concrete(fn, r)
        parts = []
        for i in range(r.shape[0]):
            grid = _adaptive_grid(r.asnumpy()[i], pooled_height, pooled_width, spatial_scale, roi_end_mode)
            if min(grid) <= 0:
                parts.append(Tensor(np.full((1, f.shape[1], pooled_height, pooled_width), np.nan, f.dtype.np_dtype)))
            else:
                parts.append(_roi_align_rows(f, r[i:i + 1], pooled_height, pooled_width, spatial_scale, roi_end_mode,
                                             grid))
        return A.cat(parts, 0) if parts else _roi_align_rows(f, r, pooled_height, pooled_width, spatial_scale,
                                                              roi_end_mode, (1, 1))
    return _roi_align_rows(f, r, pooled_height, pooled_width, spatial_scale, roi_end_mode, (sample_num, sample_num))


def _adaptive_grid(roi: np.ndarray, ph: int, pw: int, scale: float, end_mode: int) -> tuple[int, int]:
    h = (roi[4] + end_mode) * scale - roi[2] * scale
    w = (roi[3] + end_mode) * scale - roi[1] * scale
    if end_mode == 0:
        h, w = max(h, 1.0), max(w, 1.0)
    # Truncated, as MindSpore's CPU kernel does: a region smaller than a bin gets no sample (and NaN, 0 / 0).
    return int(h / ph), int(w / pw)


def _roi_align_rows(f: Tensor, r: Tensor, ph: int, pw: int, scale: float, end_mode: int,
                    grid: tuple[int, int]) -> Tensor:
    n, c, height, width = f.shape
    nr = r.shape[0]
    gh, gw = grid
    col = [A.reshape(r[:, i], (nr, 1, 1)) for i in range(5)]
    start_x, start_y = M.mul(col[1], scale), M.mul(col[2], scale)
    roi_w = M.sub(M.mul(M.add(col[3], float(end_mode)), scale), start_x)
    roi_h = M.sub(M.mul(M.add(col[4], float(end_mode)), scale), start_y)
    if end_mode == 0:
        roi_w, roi_h = M.maximum(roi_w, 1.0), M.maximum(roi_h, 1.0)
    # Sample offsets in bin units: bin p, sample i of g sits at p + (i + 0.5) / g.
    oy = ((np.arange(ph)[:, None] + (np.arange(gh)[None, :] + 0.5) / gh).reshape(1, ph * gh, 1))
    ox = ((np.arange(pw)[:, None] + (np.arange(gw)[None, :] + 0.5) / gw).reshape(1, 1, pw * gw))
    dt = f.dtype.np_dtype
    y = M.add(start_y, M.mul(M.div(roi_h, float(ph)), Tensor(oy.astype(dt))))      # (R, PH GH, 1)
    x = M.add(start_x, M.mul(M.div(roi_w, float(pw)), Tensor(ox.astype(dt))))      # (R, 1, PW GW)
    y = A.broadcast_to(y, (nr, ph * gh, pw * gw))
    x = A.broadcast_to(x, (nr, ph * gh, pw * gw))
    base = M.mul(M._cast(col[0], "int64"), height * width)                         # (R, 1, 1)
    table = A.reshape(A.transpose(f, (0, 2, 3, 1)), (n * height * width, c))
    total = None
    for index, weight in _bilinear_rows(y, x, height, width):
        rows = apply("Gather", {"axis": 0}, [table, A.reshape(M.add(index, base), (-1,))])
        part = M.mul(rows, A.reshape(weight, (-1, 1)))
        total = part if total is None else M.add(total, part)
    out = A.reshape(total, (nr, ph, gh, pw, gw, c))
    out = M.div(M.sum(out, (2, 4)), float(gh * gw))                               # (R, PH, PW, C)
    return A.transpose(out, (0, 3, 1, 2))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated: bool = True) -> tuple[Tensor, Tensor, Tensor,
                                                                                      Tensor]:
    """``ops.ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True)``: per batch entry the argmax class
    of each of its first ``sequence_length`` steps of the (T, B, C) ``inputs``, repeats merged (optionally) and
    the blank (class C - 1) dropped: the decoded sequences as a sparse tensor (int64 (n, 2) indices, (n,)
    values, the dense shape [B, longest]) and the (B, 1) negative sum of each step's maximum."""
    fn = "ctc_greedy_decoder"
    x, n = as_tensor(inputs), as_tensor(sequence_length)
    if x.ndim != 3 or x.dtype.name not in ("float32", "float64"):
        raise ValueError(f"{fn}: inputs must be a float32/float64 (T, B, C) Tensor, got {x.dtype} {tuple(x.shape)}")
    if n.dtype.name != "int32" or tuple(n.shape) != (x.shape[1],):
        raise ValueError(f"{fn}: sequence_length must be an int32 Tensor of shape ({x.shape[1]},), got {n.dtype} "
                         f"{tuple(n.shape)}")
    _concrete(fn, x, n)
    a, lengths = x.asnumpy(), n.asnumpy()
    steps, batch, classes = a.shape
    if np.any((lengths < 0) | (lengths > steps)):
        raise ValueError(f"{fn}: sequence_length must be in [0, {steps}], got {lengths.tolist()}")
    blank = classes - 1
    indices, values, logp = [], [], np.zeros((batch, 1), a.dtype)
    longest = 0
    for b in range(batch):
        best = a[:lengths[b], b].argmax(axis=1)
        logp[b, 0] = -a[np.arange(lengths[b]), b, best].sum()
        seq, prev = [], None
        for c in best.tolist():
            if c != blank and not (merge_repeated and c == prev):
                seq.append(c)
            prev = c
        indices += [[b, i] for i in range(len(seq))]
        values += seq
        longest = max(longest, len(seq))
    return (Tensor(np.array(indices, np.int64).reshape(-1, 2)), Tensor(np.array(values, np.int64)),
            Tensor(np.array([batch, longest], np.int64)), Tensor(logp))


__all__ = ["ctc_greedy_decoder"]
