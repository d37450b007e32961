"""``ROC`` (receiver operating characteristic) and ``auc`` with MindSpore 2.10's signatures and results."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metrics import Metric, rearrange_inputs


def _curve_inputs(y_pred: np.ndarray, y: np.ndarray, class_num: int | None,
                  pos_label: int | None) -> tuple[np.ndarray, np.ndarray, int, int | None]:
    """Binary inputs (y_pred of y's rank: class_num 1, pos_label default 1) or multi-class ones (y_pred with
    one more axis: class_num must be its size, one curve per class)."""
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"ROC: with y_pred of y's rank (binary), class_num must be 1, got {class_num}")
        return y_pred.reshape(-1), y.reshape(-1), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(f"ROC: with per-class scores, pos_label must be None, got {pos_label}")
        if class_num != y_pred.shape[1]:
            raise ValueError(f"ROC: class_num must be the number of classes of y_pred ({y_pred.shape[1]}), got "
                             f"{class_num}")
        # MindSpore 2.10 reshapes the (N, C) scores to (C, N) without transposing them and then reads column c
        # as class c's scores (pairing them with the first labels); replicated, so results are MindSpore's.
        return y_pred.reshape(class_num, -1), y.reshape(-1), class_num, None
    raise ValueError(f"ROC: y_pred must have y's rank or one more, got {y_pred.shape} and {y.shape}")


def _binary_curve(scores: np.ndarray, y: np.ndarray, pos_label: int) -> tuple[np.ndarray, ...]:
    """False and true positive counts at each distinct score, highest first, and those scores."""
    if scores.ndim > y.ndim:
        scores = scores[:, 0]
    order = np.argsort(-scores)
    scores, y = scores[order], y[order]  # y may be longer (see _curve_inputs): its first entries pair up
    last = np.pad(np.where(scores[1:] - scores[:-1])[0], (0, 1), constant_values=y.shape[0] - 1)
    positive = (y == pos_label).astype(np.int64)
    tps = np.cumsum(positive, axis=0)[last]
    return 1 + last - tps, tps, scores[last]


class ROC(Metric):
    """``ROC(class_num=None, pos_label=None)``. ``update(y_pred, y)`` keeps the last batch (as MindSpore);
    ``eval()`` gives ``(fpr, tpr, thresholds)``: arrays for a binary problem, lists of one array per class
    otherwise. Thresholds start at the highest score + 1."""

    def __init__(self, class_num: int | None = None, pos_label: int | None = None) -> None:
        for name, v in (("class_num", class_num), ("pos_label", pos_label)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"ROC: {name} must be an int or None, got {type(v).__name__}")
        self.class_num, self.pos_label = class_num, pos_label
        super().__init__()

    def clear(self) -> None:
        """Forget the data."""
        self.y_pred: Any = 0
        self.y: Any = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Take ``(y_pred, y)``, replacing what an earlier update gave."""
        if len(inputs) != 2:
            raise ValueError(f"ROC.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(y_pred, y, self.class_num,
                                                                            self.pos_label)
        self._is_update = True

    @staticmethod
    def _curves(y_pred: np.ndarray, y: np.ndarray, class_num: int, pos_label: int | None) -> tuple:
        if class_num == 1:
            fps, tps, thresholds = _binary_curve(y_pred, y, pos_label)
            tps = np.squeeze(np.hstack([np.zeros(1, dtype=tps.dtype), tps]))
            fps = np.squeeze(np.hstack([np.zeros(1, dtype=fps.dtype), fps]))
            thresholds = np.hstack([thresholds[0][None] + 1, thresholds])
            if fps[-1] <= 0:
                raise ValueError("ROC.eval: the true value has no negative samples, the false positive rate is "
                                 "undefined")
            if tps[-1] <= 0:
                raise ValueError("ROC.eval: the true value has no positive samples, the true positive rate is "
                                 "undefined")
            return fps / fps[-1], tps / tps[-1], thresholds
        fpr, tpr, thresholds = [], [], []
        for c in range(class_num):
            scores, labels, n, pos = _curve_inputs(y_pred[:, c], y, 1, c)
            f, t, th = ROC._curves(scores, labels, n, pos)
            fpr.append(f)
            tpr.append(t)
            thresholds.append(th)
        return fpr, tpr, thresholds

    def eval(self) -> tuple:
        """``(fpr, tpr, thresholds)`` of the last update."""
        if not self._is_update:
            raise RuntimeError("ROC: call update before eval")
        return self._curves(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def auc(x: np.ndarray, y: np.ndarray, reorder: bool = False) -> float:
    """Area under the curve through the points (x, y) by the trapezoidal rule (``mindspore.train.auc``).
    ``x`` must be monotonic (a decreasing one gives a positive area too) unless ``reorder`` sorts the points."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"auc: x and y must be NumPy arrays, got {type(x).__name__} and {type(y).__name__}")
    for name, a in (("x", x), ("y", y)):
        if not (a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1)):
            raise ValueError(f"auc: {name} must be 1-D (or (N, 1)), got shape {a.shape}")
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"auc: x and y have different lengths ({x.shape[0]} and {y.shape[0]})")
    if x.shape[0] < 2:
        raise ValueError(f"auc: at least 2 points are needed, got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"auc: x must be increasing or decreasing when reorder is False, got {x}")
            direction = -1
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    return direction * trapezoid(y, x)


__all__ = ["ROC", "auc"]
