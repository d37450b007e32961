"""Metrics of ``mindspore.train`` for segmentation, similarity and language models: ``Dice``,
``CosineSimilarity``, ``Perplexity`` and ``BleuScore``, with MindSpore's formulas and accumulation; and
``get_metric_fn``/``names``, the metrics by name."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np

from . import _classification, _regression, _roc, _segmentation_metrics, _surface_metrics, metrics
from .metrics import Metric, rearrange_inputs


class Dice(Metric):
    """``Dice(smooth=1e-5)``: ``2 |pred * y| / (|pred|^2 + |y|^2 + smooth)`` per batch, averaged over the
    samples seen (each batch weighs its first dimension)."""

    def __init__(self, smooth: float = 1e-5) -> None:
        if smooth <= 0:
            raise ValueError(f"Dice: smooth must be positive, got {smooth!r}")
        self.smooth = float(smooth)
        super().__init__()

    def clear(self) -> None:
        self._sum, self._samples = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"Dice.update takes (y_pred, y), got {len(inputs)} inputs")
        pred, y = (self._convert_data(x).astype(np.float64) for x in inputs)
        if pred.shape != y.shape:
            raise ValueError(f"Dice.update: y_pred {pred.shape} and y {y.shape} must have the same shape")
        self._samples += y.shape[0]
        self._sum += 2 * float((pred * y).sum()) / (float((pred * pred).sum() + (y * y).sum()) + self.smooth)

    def eval(self) -> float:
        if self._samples == 0:
            raise RuntimeError("Dice.eval: no samples; call update first")
        return self._sum / float(self._samples)


class CosineSimilarity(Metric):
    """``CosineSimilarity(similarity='cosine', reduction='none', zero_diagonal=True)``: the pairwise
    similarity of the rows of the last ``update``'s matrix (``'dot'``: plain dot products), reduced by
    ``'none'`` (the matrix), ``'sum'`` or ``'mean'`` (per row, as MindSpore)."""

    def __init__(self, similarity: str = "cosine", reduction: str = "none", zero_diagonal: bool = True) -> None:
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"CosineSimilarity: similarity must be 'cosine' or 'dot', got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: reduction must be 'none', 'sum' or 'mean', got {reduction!r}")
        self.similarity, self.reduction, self.zero_diagonal = similarity, reduction, bool(zero_diagonal)
        super().__init__()

    def clear(self) -> None:
        self._matrix: np.ndarray | None = None

    @rearrange_inputs
    def update(self, inputs: Any) -> None:
        x = self._convert_data(inputs).astype(np.float64)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, axis=1, keepdims=True)
        self._matrix = x @ x.T

    def eval(self):
        if self._matrix is None:
            raise RuntimeError("CosineSimilarity.eval: call update first")
        m = self._matrix.copy()
        if self.zero_diagonal:
            np.fill_diagonal(m, 0)
        return {"none": m, "sum": m.sum(axis=-1), "mean": m.mean(axis=-1)}[self.reduction]


class Perplexity(Metric):
    """``Perplexity(ignore_label=None)``: ``exp(mean(-log p[label]))`` over every label seen (labels equal
    to ``ignore_label`` left out); ``update(preds, labels)`` with probabilities ``preds`` [N, C]."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label
        super().__init__()

    def clear(self) -> None:
        self._loss, self._num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"Perplexity.update takes (preds, labels), got {len(inputs)} inputs")
        preds = self._convert_data(inputs[0]).astype(np.float64)
        labels = self._convert_data(inputs[1]).astype(np.int64).reshape(-1)
        preds = preds.reshape(-1, preds.shape[-1])
        if preds.shape[0] != labels.shape[0]:
            raise ValueError(f"Perplexity.update: {preds.shape[0]} predictions for {labels.shape[0]} labels")
        keep = np.ones(labels.shape, bool) if self.ignore_label is None else labels != self.ignore_label
        picked = preds[np.arange(labels.size)[keep], labels[keep]]
        self._loss -= float(np.log(np.maximum(picked, 1e-30)).sum())
        self._num += int(keep.sum())

    def eval(self) -> float:
        if self._num == 0:
            raise RuntimeError("Perplexity.eval: no labels; call update first")
        return math.exp(self._loss / self._num)


def _ngrams(words: list[str], n: int) -> collections.Counter:
    return collections.Counter(tuple(words[i:i + k]) for k in range(1, n + 1) for i in range(len(words) - k + 1))


class BleuScore(Metric):
    """``BleuScore(n_gram=4, smooth=False)``: corpus BLEU of candidate token lists against lists of
    references (clipped n-gram precisions, geometric mean, brevity penalty; ``smooth``: add-one; 0.0 when some
    order has no match at all, smoothed or not, as MindSpore)."""

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        if not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be in [1, 4], got {n_gram!r}")
        self.n_gram, self.smooth = int(n_gram), bool(smooth)
        super().__init__()

    def clear(self) -> None:
        self._num = np.zeros(self.n_gram)
        self._den = np.zeros(self.n_gram)
        self._cand_len, self._ref_len = 0, 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"BleuScore.update takes (candidate_corpus, reference_corpus), got {len(inputs)}")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore.update: {len(candidates)} candidates for {len(references)} reference lists")
        for cand, refs in zip(candidates, references):
            self._cand_len += len(cand)
            self._ref_len += min((len(r) for r in refs), key=lambda n: (abs(n - len(cand)), n))
            counts = _ngrams(list(cand), self.n_gram)
            best: collections.Counter = collections.Counter()
            for r in refs:
                best |= _ngrams(list(r), self.n_gram)
            for gram, c in counts.items():
                self._num[len(gram) - 1] += min(c, best[gram])
            for k in range(self.n_gram):
                self._den[k] += max(len(cand) - k, 0)

    def eval(self) -> float:
        if self._cand_len == 0:
            raise RuntimeError("BleuScore.eval: no candidates; call update first")
        if np.min(self._num) == 0:  # before any smoothing, as MindSpore
            return 0.0
        prec = (self._num + 1) / (self._den + 1) if self.smooth else self._num / self._den
        score = math.exp(float(np.mean(np.log(prec))))
        bp = 1.0 if self._cand_len > self._ref_len else math.exp(1 - self._ref_len / self._cand_len)
        return bp * score


def _metric_table() -> dict[str, Any]:
    """MindSpore's metric names and their classes (``get_metric_fn``'s table)."""
    return {"acc": metrics.Accuracy, "accuracy": metrics.Accuracy, "loss": metrics.Loss,
            "precision": _classification.Precision, "recall": _classification.Recall, "F1": _classification.F1,
            "top_1_accuracy": _classification.Top1CategoricalAccuracy,
            "top_5_accuracy": _classification.Top5CategoricalAccuracy,
            "topk": _classification.TopKCategoricalAccuracy,
            "confusion_matrix": _classification.ConfusionMatrix, "mae": _regression.MAE, "mse": _regression.MSE,
            "dice": Dice, "cosine_similarity": CosineSimilarity, "perplexity": Perplexity,
            "bleu_score": BleuScore, "hausdorff_distance": _surface_metrics.HausdorffDistance,
            "mean_surface_distance": _surface_metrics.MeanSurfaceDistance,
            "root_mean_square_distance": _surface_metrics.RootMeanSquareDistance,
            "auc": _roc.auc, "roc": _roc.ROC,
            "confusion_matrix_metric": _segmentation_metrics.ConfusionMatrixMetric,
            "occlusion_sensitivity": _segmentation_metrics.OcclusionSensitivity}


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    """A new metric by MindSpore's name (``'accuracy'``, ``'precision'``, ``'dice'``, ...); the arguments go
    to its constructor."""
    table = _metric_table()
    if name not in table:
        raise KeyError(f"get_metric_fn: unknown metric {name!r}; known: {', '.join(sorted(table))}")
    return table[name](*args, **kwargs)


def names() -> list[str]:
    """The metric names :func:`get_metric_fn` knows, sorted (``mindspore.train.names``)."""
    return sorted(_metric_table())


__all__ = ["Dice", "CosineSimilarity", "Perplexity", "BleuScore", "get_metric_fn", "names"]
