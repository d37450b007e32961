"""``ConfusionMatrixMetric`` (per-class binary confusion counts turned into a named rate: sensitivity,
precision, F1, MCC ...) and ``OcclusionSensitivity`` (how much a model's score for a label drops when each
region of its input is blanked), with MindSpore's API. Host-side NumPy bookkeeping, as the other metrics."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .metrics import Metric, rearrange_inputs

# Every spelling MindSpore accepts for a rate, mapped to its short name.
_ALIASES = {
    "sensitivity": "tpr", "recall": "tpr", "hit rate": "tpr", "true positive rate": "tpr", "tpr": "tpr",
    "specificity": "tnr", "selectivity": "tnr", "true negative rate": "tnr", "tnr": "tnr",
    "precision": "ppv", "positive predictive value": "ppv", "ppv": "ppv",
    "negative predictive value": "npv", "npv": "npv",
    "miss rate": "fnr", "false negative rate": "fnr", "fnr": "fnr",
    "fall out": "fpr", "false positive rate": "fpr", "fpr": "fpr",
    "false discovery rate": "fdr", "fdr": "fdr",
    "false omission rate": "for", "for": "for",
    "prevalence threshold": "pt", "pt": "pt",
    "threat score": "ts", "critical success index": "ts", "ts": "ts", "csi": "ts",
    "accuracy": "acc", "acc": "acc",
    "balanced accuracy": "ba", "ba": "ba",
    "f1 score": "f1", "f1": "f1",
    "matthews correlation coefficient": "mcc", "mcc": "mcc",
    "fowlkes mallows index": "fm", "fm": "fm",
    "informedness": "bm", "bookmaker informedness": "bm", "bm": "bm",
    "markedness": "mk", "deltap": "mk", "mk": "mk",
}
_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _rate_name(name: Any) -> str:
    key = str(name).replace("_", " ").lower() if isinstance(name, str) else None
    if key not in _ALIASES:
        raise NotImplementedError(f"ConfusionMatrixMetric: metric_name {name!r} is not supported; use one of "
                                  f"{', '.join(sorted(set(_ALIASES.values())))} (or their long names)")
    return _ALIASES[key]


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


def _rate(name: str, counts: np.ndarray) -> np.ndarray:
    """The rate ``name`` of confusion counts whose last axis is (tp, fp, tn, fn); NaN where undefined."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim == 1:
        counts = counts[None]
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    one = np.ones_like(tp)
    if name == "pt":
        tpr, tnr = _safe_div(tp, p), _safe_div(tn, n)
        return _safe_div(np.sqrt(np.abs(tpr * (1.0 - tnr))) + tnr - 1.0, tpr + tnr - 1.0)
    if name == "ba":
        return (_safe_div(tp, p) + _safe_div(tn, n)) / 2.0
    if name == "fm":
        return np.sqrt(_safe_div(tp, tp + fp) * _safe_div(tp, p)) / one
    if name == "bm":
        return _safe_div(tp, p) + _safe_div(tn, n) - one
    if name == "mk":
        return _safe_div(tp, tp + fp) + _safe_div(tn, tn + fn) - one
    if name == "mcc":
        return _safe_div(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    num, den = {"tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn), "fnr": (fn, p),
                "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn), "ts": (tp, tp + fn + fp),
                "acc": (tp + tn, p + n), "f1": (2 * tp, 2 * tp + fn + fp)}[name]
    return _safe_div(num, den)


def _counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool) -> np.ndarray:
    """(batch, class, 4) confusion counts (tp, fp, tn, fn) of binarised predictions and labels."""
    if y_pred.shape != y.shape or y_pred.ndim < 2:
        raise ValueError(f"ConfusionMatrixMetric.update: y_pred and y must share a shape of at least 2 dims "
                         f"(batch, class, ...), got {y_pred.shape} and {y.shape}")
    for what, a in (("y", y), ("y_pred", y_pred)):
        if not np.all((a == 0) | (a == 1)):
            raise ValueError(f"ConfusionMatrixMetric.update: {what} must be binarised (0 or 1 everywhere)")
    if not skip_channel:  # as MindSpore: skip_channel=False leaves the first (background) channel out
        y_pred, y = y_pred[:, 1:], y[:, 1:]
    b, c = y_pred.shape[:2]
    yp, yt = y_pred.reshape(b, c, -1).astype(np.float64), y.reshape(b, c, -1).astype(np.float64)
    tp = ((yp + yt) == 2).sum(axis=2)
    tn = ((yp + yt) == 0).sum(axis=2)
    pos = yt.sum(axis=2)
    neg = yt.shape[-1] - pos
    return np.stack([tp, neg - tn, tn, pos - tp], axis=-1).astype(np.float64)


def _reduce(chart: np.ndarray, decrease: str) -> tuple[np.ndarray, np.ndarray]:
    """Reduce a (batch, class[, ...]) chart ignoring NaNs; returns it and how many values were not NaN."""
    nans = np.isnan(chart)
    ok = (~nans).astype(np.float64)
    chart = np.where(nans, 0.0, chart)
    if decrease == "none":
        return chart, ok
    axes = {"sum": (0, 1), "mean": (0, 1), "sum_batch": (0,), "mean_batch": (0,), "sum_channel": (1,),
            "mean_channel": (1,)}[decrease]
    if decrease == "mean":  # a mean over classes of the per-class means over the batch
        per_class_n = ok.sum(axis=0)
        per_class = np.where(per_class_n > 0, chart.sum(axis=0) / np.where(per_class_n > 0, per_class_n, 1), 0.0)
        n = (per_class_n > 0).astype(np.float64).sum(axis=0)
        return np.where(n > 0, per_class.sum(axis=0) / np.where(n > 0, n, 1), 0.0), n
    n = ok.sum(axis=axes)
    total = chart.sum(axis=axes)
    if decrease.startswith("sum"):
        return total, n
    return np.where(n > 0, total / np.where(n > 0, n, 1), 0.0), n


class ConfusionMatrixMetric(Metric):
    """A rate of the binary confusion matrix (``metric_name``: ``'sensitivity'``, ``'precision'``,
    ``'f1 score'``, ``'mcc'`` ...) over one-hot predictions and labels of shape (batch, class, ...).

    With ``calculation_method=False`` the counts are summed over every batch and the rate is taken once at
    ``eval``; with True the rate is taken per sample and class and reduced by ``decrease``, and ``eval`` gives
    the mean over the batches' non-NaN values."""

    def __init__(self, skip_channel: bool = True, metric_name: str = "sensitivity",
                 calculation_method: bool = False, decrease: str = "mean") -> None:
        for what, flag in (("skip_channel", skip_channel), ("calculation_method", calculation_method)):
            if not isinstance(flag, bool):
                raise TypeError(f"ConfusionMatrixMetric: {what} must be a bool, got {type(flag).__name__}")
        if decrease not in _DECREASES:
            raise ValueError(f"ConfusionMatrixMetric: decrease must be one of {_DECREASES}, got {decrease!r}")
        if calculation_method and decrease not in ("mean", "sum"):
            # MindSpore 2.10 fails at update here: the per-batch score must reduce to one number to average.
            raise ValueError(f"ConfusionMatrixMetric: with calculation_method=True, decrease must be 'mean' or "
                             f"'sum' (one number per batch), got {decrease!r}")
        self.skip_channel = skip_channel
        self.metric_name = metric_name
        self._rate = _rate_name(metric_name)
        self.calculation_method = calculation_method
        self.decrease = decrease
        super().__init__()

    def clear(self) -> None:
        self._total = np.zeros(4)
        self._sum = 0.0
        self._n = 0.0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"ConfusionMatrixMetric.update takes (y_pred, y), got {len(inputs)} inputs")
        counts = _counts(self._convert_data(inputs[0]), self._convert_data(inputs[1]), self.skip_channel)
        if self.calculation_method:
            score, n = _reduce(_rate(self._rate, counts), self.decrease)
            n_total = float(np.sum(n))
            self._sum += float(np.sum(score)) * n_total
            self._n += n_total
        else:
            self._total += _reduce(counts, "sum")[0]

    def eval(self) -> Any:
        if self.calculation_method:
            if self._n == 0:
                raise RuntimeError("ConfusionMatrixMetric.eval: no values to average; call update first")
            return self._sum / self._n
        return _rate(self._rate, self._total)


class OcclusionSensitivity(Metric):
    """How the model's output for ``label`` drops when a window of ``2 * margin`` elements per dimension,
    centred on each position of the input's bounding box ``b_box``, is set to ``pad_val``: the map has the
    shape of the box (the whole sample by default). The input is one sample (batch size 1); the model is run
    on up to ``n_batch`` occluded copies at a time."""

    def __init__(self, pad_val: float = 0.0, margin: int | list | tuple = 2, n_batch: int = 128,
                 b_box: list | None = None) -> None:
        if not isinstance(pad_val, (int, float)) or isinstance(pad_val, bool):
            raise TypeError(f"OcclusionSensitivity: pad_val must be a number, got {pad_val!r}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch < 1:
            raise ValueError(f"OcclusionSensitivity: n_batch must be a positive int, got {n_batch!r}")
        self.pad_val = float(pad_val)
        self.margin = margin
        self.n_batch = n_batch
        self.b_box = b_box
        super().__init__()

    def clear(self) -> None:
        self._map: np.ndarray | None = None

    def _box(self, shape: tuple[int, ...]) -> list[tuple[int, int]]:
        if self.b_box is None:
            return [(0, s) for s in shape]
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"OcclusionSensitivity: b_box needs a (min, max) pair per input dimension "
                             f"{shape}, got {self.b_box}")
        box = []
        for d, s in enumerate(shape):
            lo, hi = self.b_box[2 * d], self.b_box[2 * d + 1]
            lo = 0 if lo < 0 else lo
            hi = s - 1 if hi < 0 else hi
            if not 0 <= lo <= hi < s:
                raise ValueError(f"OcclusionSensitivity: b_box bounds {self.b_box[2 * d:2 * d + 2]} do not "
                                 f"fit dimension {d} of size {s}")
            box.append((lo, hi + 1))
        return box

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 3:
            raise ValueError(f"OcclusionSensitivity.update takes (model, y_pred, label), got {len(inputs)} "
                             "inputs")
        model, x, label = inputs
        x = self._convert_data(x)
        if x.shape[0] != 1:
            raise RuntimeError(f"OcclusionSensitivity.update: expected a batch of one sample, got {x.shape[0]}")
        label = int(np.asarray(self._convert_data(label) if hasattr(label, "asnumpy") else label).reshape(-1)[0])
        shape = x.shape[1:]
        margins = [self.margin] * len(shape) if isinstance(self.margin, int) else list(self.margin)
        if len(margins) != len(shape):
            raise ValueError(f"OcclusionSensitivity: margin needs one value per input dimension {shape}, "
                             f"got {self.margin}")
        box = self._box(shape)
        positions = list(np.ndindex(*[hi - lo for lo, hi in box]))
        base = self._score(model, x, label)[0]
        drops = []
        for start in range(0, len(positions), self.n_batch):
            chunk = positions[start:start + self.n_batch]
            batch = np.repeat(x, len(chunk), axis=0)
            for k, pos in enumerate(chunk):
                window = tuple(slice(max(0, lo + p - m), lo + p + m)
                               for (lo, _), p, m in zip(box, pos, margins))
                batch[(k, *window)] = self.pad_val
            drops.append(base - self._score(model, batch, label))
        self._map = np.concatenate(drops).reshape([hi - lo for lo, hi in box])

    @staticmethod
    def _score(model: Any, batch: np.ndarray, label: int) -> np.ndarray:
        out = model(Tensor(batch))
        out = np.asarray(out.asnumpy() if hasattr(out, "asnumpy") else out)
        return out.reshape(out.shape[0], -1)[:, label]

    def eval(self) -> np.ndarray:
        if self._map is None:
            raise RuntimeError("OcclusionSensitivity.eval: call update first")
        return self._map


__all__ = ["ConfusionMatrixMetric", "OcclusionSensitivity"]
