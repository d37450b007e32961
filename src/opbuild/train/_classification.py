"""Classification metrics with MindSpore 2.10's signatures and results: Precision, Recall, Fbeta, F1,
TopKCategoricalAccuracy (Top1/Top5) and ConfusionMatrix. Host-side bookkeeping over NumPy arrays, in float64
as MindSpore computes them; tests/train/test_metrics_ms.py compares with values recorded from MindSpore."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .metrics import Metric, rearrange_inputs

# MindSpore adds the smallest positive double to denominators, so an empty class scores 0, not NaN.
_EPS = sys.float_info.min


def is_one_hot(y: np.ndarray) -> bool:
    """Whether ``y`` holds one-hot rows: rank > 1, only 0s and 1s, exactly one 1 along axis 1."""
    return bool(y.ndim > 1 and np.equal(y ** 2, y).all()
                and np.equal(y.sum(axis=1), np.ones((y.shape[0],) + y.shape[2:])).all())


def _labels_and_classes(name: str, y_pred: np.ndarray, y: np.ndarray, known: int) -> tuple[np.ndarray, int]:
    """Class indices of ``y`` (one-hot rows are turned into indices) and the class count of ``y_pred``
    (N, C), checked against the count of earlier updates (``known``, 0 before the first)."""
    if y_pred.ndim != 2:
        raise ValueError(f"{name}.update: the predicted value must have shape (N, C), got {y_pred.shape}")
    if y_pred.ndim == y.ndim and is_one_hot(y):
        y = y.argmax(axis=1)
    classes = y_pred.shape[1]
    if known and classes != known:
        raise ValueError(f"{name}.update: {classes} classes in this predicted value, {known} in earlier ones")
    if y.size and int(y.max()) + 1 > classes:
        raise ValueError(f"{name}.update: the true value has class {int(y.max())}, the predicted value only "
                         f"{classes} classes")
    return y.reshape(-1).astype(np.int64), classes


def _one_hot_counts(y_pred: np.ndarray, y: np.ndarray, classes: int) -> tuple[np.ndarray, ...]:
    """Per class: predicted positives, actual positives, true positives (argmax prediction)."""
    truth = np.eye(classes)[y]
    pred = np.eye(classes)[y_pred.argmax(axis=1).reshape(-1)]
    return pred.sum(axis=0), truth.sum(axis=0), (truth * pred).sum(axis=0)


class _PrecisionRecall(Metric):
    """Shared body of Precision (true positives over predicted positives) and Recall (over actual ones)."""

    _name = ""
    _over_predicted = True

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"{self._name}: eval_type must be 'classification' or 'multilabel', got {eval_type!r}")
        self._type = eval_type
        super().__init__()

    def clear(self) -> None:
        """Reset the accumulated counts."""
        self._class_num = 0
        self._true_positives: Any = np.empty(0) if self._type == "multilabel" else 0
        self._positives: Any = np.empty(0) if self._type == "multilabel" else 0
        self._ratio_sum = 0.0  # multilabel: sum over classes and batches of the per-batch ratios
        self._ratio_count = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """``update(y_pred, y)``: scores (N, C) and class indices (N,) or one-hot (N, C); for 'multilabel' both
        0/1 of shape (N, C)."""
        if len(inputs) != 2:
            raise ValueError(f"{self._name}.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification":
            y, classes = _labels_and_classes(self._name, y_pred, y, self._class_num)
            predicted, actual, true_pos = _one_hot_counts(y_pred, y, classes)
        else:
            if y_pred.shape != y.shape or y_pred.ndim != 2:
                raise ValueError(f"{self._name}.update: multilabel y_pred {y_pred.shape} and y {y.shape} must both "
                                 "be (N, C)")
            classes = y_pred.shape[1]
            if self._class_num and classes != self._class_num:
                raise ValueError(f"{self._name}.update: {classes} classes here, {self._class_num} before")
            # per sample (the rows of the transposed data), as MindSpore counts multilabel results
            p, t = y_pred.swapaxes(1, 0).reshape(classes, -1), y.swapaxes(1, 0).reshape(classes, -1)
            predicted, actual, true_pos = p.sum(axis=0), t.sum(axis=0), (t * p).sum(axis=0)
        self._class_num = classes
        positives = predicted if self._over_predicted else actual
        if self._type == "multilabel":
            with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 is NaN in MindSpore's float32 too
                self._ratio_sum += float(np.sum(true_pos / (positives + _EPS)))
            self._ratio_count += len(positives)
            self._true_positives = np.concatenate((self._true_positives, true_pos))
            self._positives = np.concatenate((self._positives, positives))
        else:
            self._true_positives = self._true_positives + true_pos
            self._positives = self._positives + positives

    def eval(self, average: bool = False) -> Any:
        """Per class (per sample for 'multilabel') as an array, or its mean with ``average``."""
        if self._class_num == 0:
            raise RuntimeError(f"{self._name} can not be calculated, because the number of samples is 0; call "
                               "update before eval")
        if not isinstance(average, bool):
            raise TypeError(f"{self._name}.eval: average must be a bool, got {average!r}")
        result = self._true_positives / (self._positives + _EPS)
        if average:
            if self._type == "multilabel":
                result = np.asarray(self._ratio_sum / (self._ratio_count + _EPS))
            return result.mean()
        return result


class Precision(_PrecisionRecall):
    """``Precision(eval_type='classification')``: true positives / predicted positives per class;
    ``eval(average=False)``."""

    _name = "Precision"
    _over_predicted = True


class Recall(_PrecisionRecall):
    """``Recall(eval_type='classification')``: true positives / actual positives per class;
    ``eval(average=False)``."""

    _name = "Recall"
    _over_predicted = False


class Fbeta(Metric):
    """``Fbeta(beta)``: (1 + beta²)·TP / (beta²·actual + predicted) per class; ``eval(average=False)``."""

    def __init__(self, beta: float) -> None:
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
            raise ValueError(f"{type(self).__name__}: beta must be a number greater than 0, got {beta!r}")
        self.beta = beta
        super().__init__()

    def clear(self) -> None:
        """Reset the accumulated counts."""
        self._true_positives: Any = 0
        self._actual_positives: Any = 0
        self._positives: Any = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """``update(y_pred, y)``: scores (N, C) and class indices (N,) or one-hot (N, C)."""
        name = type(self).__name__
        if len(inputs) != 2:
            raise ValueError(f"{name}.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        y, self._class_num = _labels_and_classes(name, y_pred, y, self._class_num)
        predicted, actual, true_pos = _one_hot_counts(y_pred, y, self._class_num)
        self._true_positives = self._true_positives + true_pos
        self._positives = self._positives + predicted
        self._actual_positives = self._actual_positives + actual

    def eval(self, average: bool = False) -> Any:
        """Per class as an array, or its mean with ``average``."""
        if not isinstance(average, bool):
            raise TypeError(f"{type(self).__name__}.eval: average must be a bool, got {average!r}")
        if self._class_num == 0:
            raise RuntimeError(f"{type(self).__name__} can not be calculated, because the number of samples is 0; "
                               "call update before eval")
        b2 = self.beta ** 2
        score = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + _EPS)
        return score.mean() if average else score


class F1(Fbeta):
    """``F1()``: :class:`Fbeta` with beta 1."""

    def __init__(self) -> None:
        super().__init__(1.0)


class TopKCategoricalAccuracy(Metric):
    """``TopKCategoricalAccuracy(k)``: the fraction of samples whose label is among the k highest scores."""

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"TopKCategoricalAccuracy: k must be an int, got {type(k).__name__}")
        if k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be at least 1, got {k}")
        self.k = k
        super().__init__()

    def clear(self) -> None:
        """Reset the counts."""
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """``update(y_pred, y)``: scores (N, C) and class indices (N,) or one-hot (N, C)."""
        if len(inputs) != 2:
            raise ValueError(f"TopKCategoricalAccuracy.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        # MindSpore orders by -score with NumPy's default (quick)sort: ties keep that sort's order.
        top = np.argsort(-y_pred, axis=1)[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).sum())
        self._samples_num += y.reshape(-1).shape[0]

    def eval(self) -> float:
        """The top-k accuracy over every sample since ``clear``."""
        if self._samples_num == 0:
            raise RuntimeError("TopKCategoricalAccuracy can not be calculated, because the number of samples is 0")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """``Top1CategoricalAccuracy()``: top-k accuracy with k = 1."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """``Top5CategoricalAccuracy()``: top-k accuracy with k = 5."""

    def __init__(self) -> None:
        super().__init__(5)


class ConfusionMatrix(Metric):
    """``ConfusionMatrix(num_classes, normalize='no_norm', threshold=0.5)``: rows are true classes, columns
    predicted ones; ``normalize`` 'target' (rows sum to 1), 'prediction' (columns), 'all' or 'no_norm'.
    ``update(y_pred, y)``: scores (N, C, ...) (argmax) or, of y's shape, class indices, or float scores
    binarised at ``threshold``."""

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int):
            raise TypeError(f"ConfusionMatrix: num_classes must be an int, got {type(num_classes).__name__}")
        if normalize not in ("target", "prediction", "all", "no_norm"):
            raise ValueError(f"ConfusionMatrix: normalize must be 'target', 'prediction', 'all' or 'no_norm', got "
                             f"{normalize!r}")
        if not isinstance(threshold, float):
            raise TypeError(f"ConfusionMatrix: threshold must be a float, got {type(threshold).__name__}")
        self.num_classes, self.normalize, self.threshold = num_classes, normalize, threshold
        super().__init__()

    def clear(self) -> None:
        """Zero the matrix."""
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Add one batch's counts."""
        if len(inputs) != 2:
            raise ValueError(f"ConfusionMatrix.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError(f"ConfusionMatrix.update: y_pred must have y's rank or one more, got {y_pred.shape} "
                             f"and {y.shape}")
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        elif y_pred.dtype in (np.float16, np.float32, np.float64):
            y_pred = (y_pred >= self.threshold).astype(int)
        index = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(int)
        counts = np.bincount(index, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self) -> np.ndarray:
        """The (num_classes, num_classes) matrix (float64), normalised as asked; 0 where a sum is 0."""
        if not self._is_update:
            raise RuntimeError("ConfusionMatrix: call update before eval")
        m = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return m
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.normalize == "target":
                m = m / m.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(axis=0, keepdims=True)
            else:
                m = m / m.sum()
        m[np.isnan(m)] = 0
        return m


__all__ = ["Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "ConfusionMatrix"]
