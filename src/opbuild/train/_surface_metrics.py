"""Segmentation surface metrics of ``mindspore.train``: ``HausdorffDistance``, ``MeanSurfaceDistance`` and
``RootMeanSquareDistance``. ``update(y_pred, y, label_idx)`` takes the masks ``== label_idx`` (or boolean
masks), their edges (the mask minus its binary erosion by the cross-shaped neighbourhood, outside the array
counting as background), and the distances from each edge point of one to the nearest edge point of the other
(Euclidean, or ``chessboard``/``taxicab``). Values follow MindSpore 2.10's, including
``RootMeanSquareDistance`` giving the mean of the squared distances (rooted only when symmetric)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metrics import Metric, rearrange_inputs

_METRICS = ("euclidean", "chessboard", "taxicab")


def _erode(mask: np.ndarray) -> np.ndarray:
    out = mask.copy()
    for axis in range(mask.ndim):
        for shift in (1, -1):
            neighbour = np.zeros_like(mask)
            src = [slice(None)] * mask.ndim
            dst = [slice(None)] * mask.ndim
            src[axis] = slice(0, -1) if shift == 1 else slice(1, None)
            dst[axis] = slice(1, None) if shift == 1 else slice(0, -1)
            neighbour[tuple(dst)] = mask[tuple(src)]
            out &= neighbour
    return out


def _edges(mask: np.ndarray) -> np.ndarray:
    return _erode(mask) ^ mask


def _surface_distance(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """Distance from each True point of ``from_edges`` to the nearest True point of ``to_edges``."""
    a = np.argwhere(from_edges).astype(np.float64)
    if a.size == 0:
        return np.array([])
    b = np.argwhere(to_edges).astype(np.float64)
    if b.size == 0:
        return np.full(len(a), np.inf)
    diff = np.abs(a[:, None, :] - b[None, :, :])
    if metric == "euclidean":
        d = np.sqrt((diff ** 2).sum(-1))
    elif metric == "chessboard":
        d = diff.max(-1)
    else:
        d = diff.sum(-1)
    return d.min(axis=1)


class _SurfaceMetric(Metric):
    def __init__(self, distance_metric: str = "euclidean") -> None:
        if distance_metric not in _METRICS:
            raise ValueError(f"{type(self).__name__}: distance_metric must be one of {_METRICS}, got "
                             f"{distance_metric!r}")
        self.distance_metric = distance_metric
        super().__init__()

    def clear(self) -> None:
        self._pred_edges: np.ndarray | None = None
        self._y_edges: np.ndarray | None = None

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 3:
            raise ValueError(f"{type(self).__name__}.update takes (y_pred, y, label_idx), got {len(inputs)} inputs")
        pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if not isinstance(label, (int, float)) or isinstance(label, bool):
            raise TypeError(f"{type(self).__name__}.update: label_idx must be an int or float, got "
                            f"{type(label).__name__}")
        if label not in pred and label not in y:
            raise ValueError(f"{type(self).__name__}.update: label_idx {label} is in neither y_pred nor y")
        if pred.shape != y.shape:
            raise ValueError(f"{type(self).__name__}.update: y_pred {pred.shape} and y {y.shape} differ in shape")
        pred = pred if pred.dtype == bool else pred == label
        y = y if y.dtype == bool else y == label
        self._pred_edges, self._y_edges = _edges(pred), _edges(y)

    def _distances(self, reverse: bool = False) -> np.ndarray:
        if self._pred_edges is None:
            raise RuntimeError(f"{type(self).__name__}.eval: call update first")
        a, b = (self._y_edges, self._pred_edges) if reverse else (self._pred_edges, self._y_edges)
        return _surface_distance(a, b, self.distance_metric)


class HausdorffDistance(_SurfaceMetric):
    """``HausdorffDistance(distance_metric='euclidean', percentile=None, directed=False, crop=True)``: the
    largest (or ``percentile``) edge distance, both ways unless ``directed``."""

    def __init__(self, distance_metric: str = "euclidean", percentile: float | None = None, directed: bool = False,
                 crop: bool = True) -> None:
        if percentile is not None and not 0 <= percentile <= 100:
            raise ValueError(f"HausdorffDistance: percentile must be in [0, 100], got {percentile!r}")
        self.percentile, self.directed = percentile, bool(directed)
        super().__init__(distance_metric)

    def _one(self, d: np.ndarray) -> float:
        if d.shape == (0,):
            return float("inf")
        return float(d.max() if self.percentile is None else np.percentile(d, self.percentile))

    def eval(self) -> float:
        hd = self._one(self._distances())
        return hd if self.directed else max(hd, self._one(self._distances(reverse=True)))


class MeanSurfaceDistance(_SurfaceMetric):
    """``MeanSurfaceDistance(symmetric=False, distance_metric='euclidean')``: the mean edge distance from
    y_pred to y (``symmetric``: the mean of both directions' means)."""

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean") -> None:
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def eval(self) -> float:
        d = self._distances()
        mean = float("inf") if d.shape == (0,) else float(d.mean())
        if not self.symmetric:
            return mean
        r = self._distances(reverse=True)
        return float(np.mean((mean, float("inf") if r.shape == (0,) else float(r.mean()))))


class RootMeanSquareDistance(_SurfaceMetric):
    """``RootMeanSquareDistance(symmetric=False, distance_metric='euclidean')``: MindSpore's value, the mean
    of the squared edge distances from y_pred to y (``symmetric``: the square root of the mean of both
    directions' means)."""

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean") -> None:
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def eval(self) -> float:
        d = self._distances()
        ms = float("inf") if d.shape == (0,) else float((d ** 2).mean())
        if not self.symmetric:
            return ms
        r = self._distances(reverse=True)
        if r.shape == (0,):
            return float("inf")
        # MindSpore's: the square root appears only in the symmetric form.
        return float(np.sqrt(np.mean((ms, float((r ** 2).mean())))))
