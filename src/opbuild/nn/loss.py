"""Loss functions with MindSpore 2.x's signatures, defaults and reductions: SoftmaxCrossEntropyWithLogits,
CrossEntropyLoss, MSELoss, L1Loss, BCEWithLogitsLoss.

Each is composed of registered primitives, so it runs as compiled kernels in graph mode and is differentiable
through ``ms.grad`` by the gradient rules of those primitives (SoftmaxCrossEntropyWithLogits' backward is its
own kernel, as in MindSpore: ops/losses.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import ShapeError
from ..core.tensor import Tensor, as_tensor
from ..ops.primitive import apply
from .cell import Cell

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(cls: str, reduction: Any) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{cls}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _all_axes(x: Tensor) -> tuple[int, ...]:
    return tuple(range(len(x.shape)))


def _reduce(x: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return x
    return apply("ReduceMean" if reduction == "mean" else "ReduceSum", {"axis": _all_axes(x), "keep_dims": False},
                 [x])


def _const(value: Any, dtype: str) -> Tensor:
    return Tensor(np.asarray(value, dtype=dtype))


def _float_weight(cls: str, name: str, w: Any) -> Tensor | None:
    if w is None:
        return None
    t = w if isinstance(w, Tensor) else Tensor(np.asarray(w, dtype=np.float32))
    if t._type.dtype not in ("float16", "float32", "float64"):
        raise TypeError(f"{cls}: {name} must be a float Tensor, got {t._type.dtype}")
    return t


def _one_hot(labels: Tensor, n_classes: int, dtype: str) -> Tensor:
    """(N,) class indices -> (N, C) one-hot of ``dtype`` (Equal against 0..C-1; an index out of range gives a
    zero row)."""
    classes = Tensor(np.arange(n_classes, dtype=labels._type.dtype))
    col = apply("Reshape", {"shape": (labels.shape[0], 1)}, [labels])
    return apply("Cast", {"dtype": dtype}, [apply("Equal", {}, [col, classes])])


class LossBase(Cell):
    """Base class of losses: ``reduction`` ('mean', 'sum' or 'none') and :meth:`get_loss`."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)

    def get_loss(self, x: Tensor, weights: Any = 1.0) -> Tensor:
        """``x`` times ``weights`` (broadcast), reduced by ``reduction`` (MindSpore's LossBase.get_loss)."""
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = apply("Mul", {}, [x, as_tensor(weights, x)])
        return _reduce(x, self.reduction)

    def get_axis(self, x: Tensor) -> tuple[int, ...]:
        """Every axis of ``x``, ``(0, 1, ..., x.ndim - 1)``: the axes ``get_loss`` reduces."""
        return tuple(range(len(x.shape)))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """``SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')(logits, labels)``: the softmax cross
    entropy of (N, C) logits per sample, then reduced. ``sparse=True`` takes (N,) int32/int64 class indices
    (turned into one-hot rows), otherwise labels have the logits' shape and dtype."""

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: sparse must be a bool, got {sparse!r}")
        self.sparse = sparse

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if len(logits.shape) != 2:
            raise ShapeError("SoftmaxCrossEntropyWithLogits", "logits must have shape (N, C)", [logits._type])
        if self.sparse:
            labels = _one_hot(labels, logits.shape[1], logits._type.dtype)
        loss, _ = apply("SoftmaxCrossEntropyWithLogits", {}, [logits, labels])
        return self.get_loss(loss)


class CrossEntropyLoss(LossBase):
    """``CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)(logits,
    labels)``: logits (N, C); labels either (N,) int32/int64 class indices or (N, C) class probabilities.

    With indices: ``loss_n = w[y_n] * ((1 - ls) * nll_n + ls * smooth_n / w[y_n])`` where ``nll_n =
    -log_softmax[n, y_n]`` and ``smooth_n = -sum_c w_c log_softmax[n, c] / C``; samples whose label is
    ``ignore_index`` contribute 0, and 'mean' divides by the sum of ``w[y_n]`` over the others (MindSpore's
    and torch's definition). With probabilities: ``loss_n = -sum_c w_c t_nc log_softmax[n, c]`` with ``t``
    smoothed to ``t (1 - ls) + ls / C``, and 'mean' divides by N."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        self.weight = _float_weight("CrossEntropyLoss", "weight", weight)
        if not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
            raise TypeError(f"CrossEntropyLoss: ignore_index must be an int, got {ignore_index!r}")
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)) \
                or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be a float in [0, 1], got {label_smoothing!r}")
        self.ignore_index = ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if len(logits.shape) != 2:
            raise ShapeError("CrossEntropyLoss", "logits must have shape (N, C)", [logits._type])
        n, c = logits.shape
        dt = logits._type.dtype
        logp = apply("LogSoftmax", {"axis": 1}, [logits])
        w = (apply("Cast", {"dtype": dt}, [self.weight]) if self.weight is not None
             else _const(np.ones(c), dt))
        if self.weight is not None and tuple(self.weight.shape) != (c,):
            raise ShapeError("CrossEntropyLoss", f"weight must have shape ({c},)", [self.weight._type])
        wlogp = apply("Mul", {}, [logp, w])
        ls = self.label_smoothing
        if labels._type.dtype in ("float16", "float32", "float64"):
            if tuple(labels.shape) != (n, c):
                raise ShapeError("CrossEntropyLoss", "probability labels must have the logits' shape",
                                 [logits._type, labels._type])
            target = apply("Cast", {"dtype": dt}, [labels])
            if ls:
                target = apply("Add", {}, [apply("Mul", {}, [target, _const(1 - ls, dt)]), _const(ls / c, dt)])
            per = apply("Neg", {}, [apply("ReduceSum", {"axis": (1,), "keep_dims": False},
                                          [apply("Mul", {}, [wlogp, target])])])
            return _reduce(per, self.reduction)
        if tuple(labels.shape) != (n,) or labels._type.dtype not in ("int32", "int64"):
            raise ShapeError("CrossEntropyLoss", f"class-index labels must be int32/int64 of shape ({n},)",
                             [logits._type, labels._type])
        valid = apply("Cast", {"dtype": dt}, [apply("NotEqual", {}, [labels, as_tensor(self.ignore_index, labels)])])
        onehot = apply("Mul", {}, [_one_hot(labels, c, dt), apply("Reshape", {"shape": (n, 1)}, [valid])])
        row_sum = {"axis": (1,), "keep_dims": False}
        nll = apply("Neg", {}, [apply("ReduceSum", row_sum, [apply("Mul", {}, [wlogp, onehot])])])
        per = nll
        if ls:
            smooth = apply("Mul", {}, [apply("ReduceSum", row_sum, [wlogp]), _const(-1.0 / c, dt)])
            per = apply("Add", {}, [apply("Mul", {}, [nll, _const(1 - ls, dt)]),
                                    apply("Mul", {}, [apply("Mul", {}, [smooth, valid]), _const(ls, dt)])])
        if self.reduction != "mean":
            return _reduce(per, self.reduction)
        # The mean is over the weights of the counted samples: sum(w[y_n]) over labels != ignore_index.
        total_w = apply("ReduceSum", {"axis": (0, 1), "keep_dims": False}, [apply("Mul", {}, [onehot, w])])
        return apply("RealDiv", {}, [apply("ReduceSum", {"axis": (0,), "keep_dims": False}, [per]), total_w])


class MSELoss(LossBase):
    """``MSELoss(reduction='mean')(logits, labels)``: ``(logits - labels)^2`` (broadcast), reduced."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return self.get_loss(apply("Square", {}, [apply("Sub", {}, [logits, labels])]))


class L1Loss(LossBase):
    """``L1Loss(reduction='mean')(logits, labels)``: ``|logits - labels|`` (broadcast), reduced."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return self.get_loss(apply("Abs", {}, [apply("Sub", {}, [logits, labels])]))


class BCEWithLogitsLoss(LossBase):
    """``BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)(logits, labels)``: binary cross
    entropy of ``sigmoid(logits)``, ``-w [p y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]`` with ``p`` the
    ``pos_weight`` (broadcast over the last axis) and ``w`` the ``weight``, computed in the stable form
    ``(1 - y) x + (1 + (p - 1) y) (log1p(exp(-|x|)) + max(-x, 0))``."""

    def __init__(self, reduction: str = "mean", weight: Tensor | None = None,
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(reduction)
        self.weight = _float_weight("BCEWithLogitsLoss", "weight", weight)
        self.pos_weight = _float_weight("BCEWithLogitsLoss", "pos_weight", pos_weight)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:
        dt = input._type.dtype
        if tuple(input.shape) != tuple(target.shape):
            raise ShapeError("BCEWithLogitsLoss", "input and target must have the same shape",
                             [input._type, target._type])
        y = apply("Cast", {"dtype": dt}, [target])
        one = _const(1.0, dt)
        neg_x = apply("Neg", {}, [input])
        # log(1 + exp(-|x|)) + max(-x, 0) = -log(sigmoid(x)), without overflow for large |x|.
        softplus = apply("Softplus", {}, [apply("Neg", {}, [apply("Abs", {}, [input])])])
        nls = apply("Add", {}, [softplus, apply("Maximum", {}, [neg_x, _const(0.0, dt)])])
        coef = one if self.pos_weight is None else apply("Add", {}, [one, apply("Mul", {}, [
            apply("Sub", {}, [apply("Cast", {"dtype": dt}, [self.pos_weight]), one]), y])])
        loss = apply("Add", {}, [apply("Mul", {}, [apply("Sub", {}, [one, y]), input]),
                                 apply("Mul", {}, [coef, nls])])
        if self.weight is not None:
            loss = apply("Mul", {}, [loss, apply("Cast", {"dtype": dt}, [self.weight])])
        return _reduce(loss, self.reduction)


__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "MSELoss", "L1Loss",
           "BCEWithLogitsLoss"]
