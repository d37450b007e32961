"""The metrics MindSpore 2.10 still exports from ``mindspore.nn`` (deprecated aliases of ``mindspore.train``'s):
the very objects of ``opbuild.train``, so ``nn.F1 is train.F1``, plus ``get_metrics``, which turns the
``metrics`` argument of a ``Model`` (a set of names or a dict of Metric instances) into a name-to-metric dict."""

from __future__ import annotations

from ..train._classification import (
    F1,
    ConfusionMatrix,
    Fbeta,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from ..train._regression import MAE, MSE
from ..train._roc import ROC, auc
from ..train._segmentation_metrics import ConfusionMatrixMetric, OcclusionSensitivity
from ..train._surface_metrics import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from ..train._text_metrics import BleuScore, CosineSimilarity, Dice, Perplexity, get_metric_fn, names
from ..train.metrics import Accuracy, Loss, Metric, rearrange_inputs


def get_metrics(metrics: dict[str, Metric] | set[str] | None) -> dict[str, Metric] | None:
    """``get_metrics(metrics)``: None stays None; a dict of name -> Metric is returned as given (after checking
    every key is a str and every value a Metric); a set of metric names becomes a dict of new metric objects
    (``get_metric_fn(name)`` each). Anything else raises TypeError."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, metric in metrics.items():
            if not isinstance(key, str) or not isinstance(metric, Metric):
                raise TypeError(f"get_metrics: a dict of metrics must map str names to Metric objects, got "
                                f"key {type(key).__name__} -> value {type(metric).__name__}")
        return metrics
    if isinstance(metrics, set):
        return {key: get_metric_fn(key) for key in metrics}
    raise TypeError(f"get_metrics: metrics must be None, a dict of name -> Metric or a set of metric names, "
                    f"got {type(metrics).__name__}")


__all__ = ["BleuScore", "ConfusionMatrix", "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "F1", "Fbeta",
           "HausdorffDistance", "MAE", "MSE", "MeanSurfaceDistance", "OcclusionSensitivity", "Perplexity",
           "Precision", "ROC", "Recall", "RootMeanSquareDistance", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "auc", "get_metric_fn", "rearrange_inputs",
           "get_metrics", "names", "Accuracy", "Loss", "Metric"]
