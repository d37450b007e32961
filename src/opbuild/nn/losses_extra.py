"""The loss cells of ``mindspore.nn`` beyond nn/loss.py: MAELoss, RMSELoss, SmoothL1Loss, HuberLoss, KLDivLoss,
NLLLoss, BCELoss, SoftMarginLoss, MultiMarginLoss, MultiLabelSoftMarginLoss, MultilabelMarginLoss,
CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, HingeEmbeddingLoss,
DiceLoss, FocalLoss and CTCLoss, with MindSpore 2.10's constructor arguments and defaults.

Each cell checks its arguments when built and calls the functional form of ops/api/nn_losses.py (a composition
of primitives, differentiable through their gradient rules).
"""

from __future__ import annotations

from typing import Any

from ..core.tensor import Tensor, as_tensor
from ..ops.api import array as A
from ..ops.api import math as M
from ..ops.api import nn_losses as L
from ..ops.api.ctc import ctc_loss
from ..ops.api.nn import log_softmax, softmax
from ..ops.primitive import apply
from .cell import Cell
from .loss import LossBase


class MAELoss(LossBase):
    """``MAELoss(reduction='mean')(logits, label)``: ``|logits - label|`` (broadcast), reduced."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return self.get_loss(M.abs(M.sub(logits, label)))


class RMSELoss(LossBase):
    """``RMSELoss()(logits, label)``: the square root of the mean squared error."""

    def __init__(self) -> None:
        super().__init__("mean")

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        d = M.sub(logits, label)
        return M.sqrt(M.mean(M.mul(d, d)))


class SmoothL1Loss(LossBase):
    """``SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)``: see ``ops.smooth_l1_loss``."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a float > 0, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """``HuberLoss(reduction='mean', delta=1.0)(logits, labels)``: see ``ops.huber_loss``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
            raise ValueError(f"HuberLoss: delta must be a float > 0, got {delta!r}")
        self.delta = float(delta)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.huber_loss(logits, labels, self.reduction, self.delta)


class KLDivLoss(LossBase):
    """``KLDivLoss(reduction='mean')(logits, labels)``: ``labels (log(labels) - logits)`` for log-probability
    ``logits``; reduction 'mean', 'batchmean' (sum / batch size), 'sum' or 'none'."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__("none")
        self.reduction = L.check_reduction("KLDivLoss", reduction, ("mean", "sum", "none", "batchmean"))

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.kl_div(logits, labels, self.reduction)


def _weight(cls: str, weight: Any) -> Tensor | None:
    if weight is None:
        return None
    t = as_tensor(weight)
    if not t.dtype.is_float:
        raise TypeError(f"{cls}: weight must be a float Tensor, got {t.dtype}")
    return t


class NLLLoss(LossBase):
    """``NLLLoss(weight=None, ignore_index=-100, reduction='mean')(logits, labels)``: the negative
    log-likelihood of class indices under log-probabilities (see ``ops.nll_loss``)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
            raise TypeError(f"NLLLoss: ignore_index must be an int, got {ignore_index!r}")
        self.weight = _weight("NLLLoss", weight)
        self.ignore_index = ignore_index

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCELoss(LossBase):
    """``BCELoss(weight=None, reduction='mean')(logits, labels)``: binary cross entropy of probabilities
    (see ``ops.binary_cross_entropy``)."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = _weight("BCELoss", weight)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class SoftMarginLoss(LossBase):
    """``SoftMarginLoss(reduction='mean')(logits, labels)``: ``log(1 + exp(-y x))`` for labels ±1."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.soft_margin_loss(logits, labels, self.reduction)


class MultiMarginLoss(LossBase):
    """``MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)(x, target, weight=None)``: the
    multi-class hinge loss (see ``ops.multi_margin_loss``); a ``weight`` given to construct wins over the
    constructor's."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight: Tensor | None = None
                 ) -> None:
        super().__init__(reduction)
        if p not in (1, 2) or isinstance(p, bool):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise TypeError(f"MultiMarginLoss: margin must be a float, got {margin!r}")
        self.p, self.margin, self.weight = p, float(margin), _weight("MultiMarginLoss", weight)

    def construct(self, x: Tensor, target: Tensor, weight: Tensor | None = None) -> Tensor:
        w = weight if weight is not None else self.weight
        return L.multi_margin_loss(x, target, self.p, self.margin, w, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """``MultiLabelSoftMarginLoss(weight=None, reduction='mean')(x, target)``: see
    ``ops.multilabel_soft_margin_loss``."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = _weight("MultiLabelSoftMarginLoss", weight)

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return L.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultilabelMarginLoss(LossBase):
    """``MultilabelMarginLoss(reduction='mean')(x, target)``: see ``ops.multilabel_margin_loss``."""

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return L.multilabel_margin_loss(x, target, self.reduction)


def _margin(cls: str, margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"{cls}: margin must be a float, got {margin!r}")
    return float(margin)


class CosineEmbeddingLoss(LossBase):
    """``CosineEmbeddingLoss(margin=0.0, reduction='mean')(logits_x1, logits_x2, labels)``: see
    ``ops.cosine_embedding_loss``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = _margin("CosineEmbeddingLoss", margin)

    def construct(self, logits_x1: Tensor, logits_x2: Tensor, labels: Tensor) -> Tensor:
        return L.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    """``MarginRankingLoss(margin=0.0, reduction='mean')(input1, input2, target)``: ``max(0, -y (x1 - x2) +
    margin)``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = _margin("MarginRankingLoss", margin)

    def construct(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return L.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    """``TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)(x, positive, negative,
    margin=1.0)``: see ``ops.triplet_margin_loss``; as in MindSpore, a constructor margin other than 1.0 wins
    over construct's."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-06, reduction: str = "mean",
                 margin: float = 1.0) -> None:
        super().__init__(reduction)
        self.p, self.swap, self.eps = p, bool(swap), float(eps)
        self.margin = _margin("TripletMarginLoss", margin)

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0) -> Tensor:
        if self.margin != 1.0:
            margin = self.margin
        return L.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


class PoissonNLLLoss(LossBase):
    """``PoissonNLLLoss(log_input=True, full=False, eps=1e-08, reduction='mean')(input, target)``: the
    Poisson negative log-likelihood (``exp(x) - t x`` for log rates)."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-08, reduction: str = "mean"
                 ) -> None:
        super().__init__(reduction)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"PoissonNLLLoss: eps must be a float > 0, got {eps!r}")
        self.log_input, self.full, self.eps = bool(log_input), bool(full), float(eps)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002 - MindSpore's name
        return L.poisson_nll_loss(input, target, self.log_input, self.full, self.eps, self.reduction)


class GaussianNLLLoss(LossBase):
    """``GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean')(logits, labels, var)``: see
    ``ops.gaussian_nll_loss``."""

    def __init__(self, *, full: bool = False, eps: float = 1e-06, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"GaussianNLLLoss: eps must be a float > 0, got {eps!r}")
        self.full, self.eps = bool(full), float(eps)

    def construct(self, logits: Tensor, labels: Tensor, var: Tensor) -> Tensor:
        return L.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """``HingeEmbeddingLoss(margin=1.0, reduction='mean')(logits, labels)``: ``x`` where the label is 1,
    ``max(0, margin - x)`` where it is -1."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = _margin("HingeEmbeddingLoss", margin)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return L.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class DiceLoss(LossBase):
    """``DiceLoss(smooth=1e-05)(logits, label)``: ``1 - 2 sum(x y) / (sum(x^2) + sum(y^2) + smooth)`` over every
    element (MindSpore adds ``smooth`` to the denominator only)."""

    def __init__(self, smooth: float = 1e-05) -> None:
        super().__init__("mean")
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"DiceLoss: smooth must be a float > 0, got {smooth!r}")
        self.smooth = float(smooth)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape):
            raise ValueError(f"DiceLoss: logits {logits.shape} and label {label.shape} must have the same shape")
        inter = M.sum(M.mul(logits, label))
        union = M.add(M.sum(M.mul(logits, logits)), M.sum(M.mul(label, label)))
        return M.sub(1.0, M.div(M.mul(inter, 2.0), M.add(union, self.smooth)))


class FocalLoss(LossBase):
    """``FocalLoss(weight=None, gamma=2.0, reduction='mean')(logits, labels)``: ``-(1 - p)^gamma log p`` with
    ``log p`` the log-softmax of (N, C, ...) logits over axis 1. Labels of the logits' rank are either class
    indices (axis 1 of size 1: the loss is averaged over the other axes, one value per sample) or one-hot / soft
    targets (axis 1 of size C: averaged over the trailing axes, one value per sample and class, as MindSpore
    does); ``weight`` (C,) scales each class; then ``reduction``."""

    def __init__(self, weight: Tensor | None = None, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if isinstance(gamma, bool) or not isinstance(gamma, float):
            raise TypeError(f"FocalLoss: gamma must be a float, got {gamma!r}")
        # MindSpore takes any numeric weight Tensor; an integer one is used as float.
        self.weight = None if weight is None else M._cast(as_tensor(weight), "float32")
        self.gamma = gamma
        if self.weight is not None and self.weight.ndim != 1:
            raise ValueError(f"FocalLoss: weight must be 1-D (one per class), got shape {self.weight.shape}")

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        y = as_tensor(labels)
        if logits.ndim < 2 or y.ndim != logits.ndim or y.shape[1] not in (1, logits.shape[1]):
            raise ValueError(f"FocalLoss: logits (N, C, ...) and labels of the same rank with axis 1 of size 1 "
                             f"or C are needed, got {logits.shape} and {y.shape}")
        n, c = logits.shape[:2]
        x = A.reshape(logits, (n, c, -1))
        y = A.reshape(y, (n, y.shape[1], -1))
        logp = log_softmax(x, 1)
        w = None if self.weight is None else A.reshape(M._cast(self.weight, logits.dtype), (1, c, 1))
        if y.shape[1] == 1:
            idx = M._cast(y, "int32")
            logp = A.squeeze(apply("GatherD", {"dim": 1}, [logp, idx]), 1)
            if w is not None:
                w = A.squeeze(apply("GatherD", {"dim": 1}, [A.tile(w, (n, 1, x.shape[2])), idx]), 1)
        # MindSpore takes the focal factor from the unweighted probability, then weights the log.
        focal = M.pow(M.sub(1.0, M.exp(logp)), self.gamma)
        if w is not None:
            logp = M.mul(logp, w)
        loss = M.neg(M.mul(focal, logp))
        if y.shape[1] == 1:
            return self.get_loss(M.mean(loss, 1))
        return self.get_loss(M.mean(M.mul(loss, M._cast(y, logits.dtype)), -1))


class MultiClassDiceLoss(LossBase):
    """``MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax')(logits, label)``: the
    activation (a name of a MindSpore nn activation with its defaults, a Cell, or None) applied to (N, C, ...)
    logits, then the mean over the classes
    (axis 1, ``ignore_indiex`` skipped, each times ``weights[i]`` when given) of DiceLoss on that class' slice."""

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")

    def __init__(self, weights: Tensor | None = None, ignore_indiex: int | None = None,
                 activation: str | Cell | None = "softmax") -> None:
        super().__init__("mean")
        if weights is not None and as_tensor(weights).ndim != 2:
            raise ValueError(f"MultiClassDiceLoss: weights must be 2-D, got shape {as_tensor(weights).shape}")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"MultiClassDiceLoss: ignore_indiex must be None or an int, got {ignore_indiex!r}")
        if isinstance(activation, str) and activation not in self._ACTIVATIONS:
            raise ValueError(f"MultiClassDiceLoss: activation must be one of {self._ACTIVATIONS}, got {activation!r}")
        if activation is not None and not isinstance(activation, (str, Cell)):
            raise TypeError(f"MultiClassDiceLoss: activation must be a name, a Cell or None, got {activation!r}")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation
        self.dice = DiceLoss(1e-5)

    def _activate(self, x: Tensor) -> Tensor:
        a = self.activation
        if a is None:
            return x
        if isinstance(a, Cell):
            return a(x)
        # The named activations are MindSpore's nn cells with their defaults: (log-)softmax over the last axis.
        if a == "softmax":
            return softmax(x, -1)
        if a == "logsoftmax":
            return log_softmax(x, -1)
        return {"relu": M.relu, "relu6": M.relu6, "tanh": M.tanh, "sigmoid": M.sigmoid}[a](x)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape) or logits.ndim < 2:
            raise ValueError(f"MultiClassDiceLoss: logits and label must have one shape (N, C, ...), got "
                             f"{logits.shape} and {label.shape}")
        x = self._activate(logits)
        c = label.shape[1]
        total = None
        for i in range(c):
            if i == self.ignore_indiex:
                continue
            loss = self.dice(A.squeeze(apply("StridedSlice", _channel(i, x.ndim), [x]), 1),
                             A.squeeze(apply("StridedSlice", _channel(i, label.ndim), [label]), 1))
            if self.weights is not None:
                loss = M.mul(loss, as_tensor(self.weights)[i])
            total = loss if total is None else M.add(total, loss)
        return M.div(total, float(c))


def _channel(i: int, rank: int) -> dict:
    """StridedSlice attributes of channel ``i`` (axis 1, kept as a size-1 axis)."""
    begin, end = [0, i] + [0] * (rank - 2), [0, i + 1] + [0] * (rank - 2)
    mask = (1 << rank) - 1 - 2
    return {"begin": begin, "end": end, "strides": [1] * rank, "begin_mask": mask, "end_mask": mask,
            "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}


class TripletMarginWithDistanceLoss(LossBase):
    """``TripletMarginWithDistanceLoss(distance_function=None, swap=False, reduction='mean', margin=1.0)(x,
    positive, negative)``: ``max(d(x, pos) - d(x, neg) + margin, 0)`` with ``d`` the given function or the
    L2 norm of ``|a - b|`` along axis 1; ``swap`` uses ``min(d(x, neg), d(pos, neg))``."""

    def __init__(self, distance_function=None, swap: bool = False, reduction: str = "mean", margin: float = 1.0
                 ) -> None:
        super().__init__(reduction)
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"TripletMarginWithDistanceLoss: distance_function must be callable, got "
                            f"{distance_function!r}")
        if not isinstance(swap, bool):
            raise TypeError(f"TripletMarginWithDistanceLoss: swap must be a bool, got {swap!r}")
        self.distance_function, self.swap = distance_function, swap
        self.margin = _margin("TripletMarginWithDistanceLoss", margin)

    def _distance(self, a: Tensor, b: Tensor) -> Tensor:
        if self.distance_function is not None:
            return self.distance_function(a, b)
        d = M.abs(M.sub(a, b))
        return M.sqrt(M.sum(M.mul(d, d), 1))

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        d1, d2 = self._distance(x, positive), self._distance(x, negative)
        if self.swap:
            d2 = M.minimum(d2, self._distance(positive, negative))
        return self.get_loss(M.relu(M.add(M.sub(d1, d2), self.margin)))


class CTCLoss(LossBase):
    """``CTCLoss(blank=0, reduction='mean', zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths)``: the CTC loss of (T, N, C) log-probabilities (see ``ops.ctc_loss``), without the
    forward variables."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"CTCLoss: blank must be an int >= 0, got {blank!r}")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"CTCLoss: zero_infinity must be a bool, got {zero_infinity!r}")
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor
                  ) -> Tensor:
        lp = as_tensor(log_probs)
        if lp.ndim == 2:  # one unbatched sequence: (T, C) with (S,) targets, as MindSpore's layer accepts
            loss = ctc_loss(A.expand_dims(lp, 1), A.reshape(targets, (1, -1)), A.reshape(input_lengths, (1,)),
                            A.reshape(target_lengths, (1,)), self.blank, self.reduction, self.zero_infinity)[0]
            return A.reshape(loss, ()) if loss.ndim else loss
        return ctc_loss(lp, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)[0]


__all__ = ["CTCLoss", "MAELoss", "RMSELoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "NLLLoss", "BCELoss",
           "SoftMarginLoss",
           "MultiMarginLoss", "MultiLabelSoftMarginLoss", "MultilabelMarginLoss", "CosineEmbeddingLoss",
           "MarginRankingLoss", "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
           "DiceLoss", "FocalLoss", "MultiClassDiceLoss", "TripletMarginWithDistanceLoss"]
