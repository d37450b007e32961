"""The losses and small activations of ``mindspore.mint.nn.functional`` with torch's signatures:
``binary_cross_entropy``, ``binary_cross_entropy_with_logits``, ``nll_loss``, ``kl_div`` (``log_target``),
``soft_margin_loss``, ``cosine_embedding_loss``, ``smooth_l1_loss``, ``threshold`` and the trailing-underscore
forms (``relu_``, ``sigmoid_``, ``elu_``, ``hardtanh_``, ``threshold_``), and ``dropout2d``, each over the ``ops``
function. The trailing-underscore forms write their result into ``input`` (as torch's in-place functions) and
return it."""

from __future__ import annotations

from typing import Any

from ... import ops as _ops
from ...core.tensor import Tensor, as_tensor

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(name: str, reduction: Any, allowed: tuple[str, ...] = _REDUCTIONS) -> str:
    if reduction not in allowed:
        raise ValueError(f"mint.nn.functional.{name}: reduction must be one of {', '.join(map(repr, allowed))}, "
                         f"got {reduction!r}")
    return reduction


def binary_cross_entropy(input: Any, target: Any, weight: Any = None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``binary_cross_entropy(input, target, weight=None, reduction='mean')``: ``-w (y log(x) + (1 - y)
    log(1 - x))`` for probabilities ``input``."""
    return _ops.binary_cross_entropy(input, target, weight, _reduction("binary_cross_entropy", reduction))


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,  # noqa: A002
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """``binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None)``:
    :func:`binary_cross_entropy` of sigmoid(``input``), computed stably; ``pos_weight`` scales the positive
    term."""
    x = as_tensor(input)
    w = _ops.ones_like(x) if weight is None else weight
    pw = _ops.ones_like(x) if pos_weight is None else pos_weight
    return _ops.binary_cross_entropy_with_logits(x, target, w, pw,
                                                 _reduction("binary_cross_entropy_with_logits", reduction))


def nll_loss(input: Any, target: Any, weight: Any = None, ignore_index: int = -100,  # noqa: A002
             reduction: str = "mean") -> Tensor:
    """``nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean')``: the negative
    log-likelihood of the ``target`` classes in the log-probabilities ``input`` ((N, C) or (N, C, d1, ...))."""
    return _ops.nll_loss(input, target, weight, ignore_index, _reduction("nll_loss", reduction))


def kl_div(input: Any, target: Any, reduction: str = "mean", log_target: bool = False) -> Tensor:  # noqa: A002
    """``kl_div(input, target, reduction='mean', log_target=False)``: ``target (log(target) - input)`` for
    log-probabilities ``input`` (``log_target``: ``target`` is given as log-probabilities too); 'batchmean'
    divides the sum by the batch size."""
    reduction = _reduction("kl_div", reduction, (*_REDUCTIONS, "batchmean"))
    if not log_target:
        return _ops.kl_div(input, target, reduction)
    x, lt = as_tensor(input), as_tensor(target)
    loss = _ops.mul(_ops.exp(lt), _ops.sub(lt, x))
    if reduction == "batchmean":
        return _ops.div(_ops.sum(loss), float(x.shape[0]) if x.ndim else 1.0)
    return loss if reduction == "none" else _ops.sum(loss) if reduction == "sum" else _ops.mean(loss)


def soft_margin_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``soft_margin_loss(input, target, reduction='mean')``: log(1 + exp(-target * input))."""
    return _ops.soft_margin_loss(input, target, _reduction("soft_margin_loss", reduction))


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          reduction: str = "mean") -> Tensor:
    """``cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')``: 1 - cos for target 1,
    max(0, cos - margin) for target -1, the cosine taken along the last axis."""
    return _ops.cosine_embedding_loss(input1, input2, target, margin,
                                      _reduction("cosine_embedding_loss", reduction))


def smooth_l1_loss(input: Any, target: Any, reduction: str = "mean", beta: float = 1.0) -> Tensor:  # noqa: A002
    """``smooth_l1_loss(input, target, reduction='mean', beta=1.0)``: 0.5 d^2 / beta where |d| < beta, |d| -
    0.5 beta elsewhere."""
    return _ops.smooth_l1_loss(input, target, beta, _reduction("smooth_l1_loss", reduction))


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    """``threshold(input, threshold, value, inplace=False)``: input where it is greater than ``threshold``,
    ``value`` elsewhere."""
    out = _ops.threshold(input, threshold, value)
    return _into(input, out) if inplace else out


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """``dropout2d(input, p=0.5, training=True, inplace=False)``: whole channels zeroed with probability ``p``
    in training, the rest scaled by 1 / (1 - p); the input unchanged otherwise."""
    if not training:
        return as_tensor(input)
    return _ops.dropout2d(input, p, True)


def _into(input: Any, out: Tensor) -> Tensor:  # noqa: A002
    """``out`` written into the Tensor ``input`` (torch's in-place form), which is returned."""
    if not isinstance(input, Tensor):
        raise TypeError(f"mint.nn.functional: an in-place function needs a Tensor input, got "
                        f"{type(input).__name__}")
    input.assign_value(out)
    return input


def relu_(input: Any) -> Tensor:  # noqa: A002
    """``relu_(input)``: :func:`relu` written into ``input``."""
    return _into(input, _ops.relu(input))


def sigmoid_(input: Any) -> Tensor:  # noqa: A002
    """``sigmoid_(input)``: sigmoid written into ``input``."""
    return _into(input, _ops.sigmoid(input))


def elu_(input: Any, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """``elu_(input, alpha=1.0)``: elu written into ``input``."""
    return _into(input, _ops.elu(input, alpha))


def hardtanh_(input: Any, min_val: float = -1, max_val: float = 1) -> Tensor:  # noqa: A002
    """``hardtanh_(input, min_val=-1, max_val=1)``: hardtanh written into ``input``."""
    return _into(input, _ops.hardtanh(input, min_val, max_val))


def threshold_(input: Any, threshold: float, value: float) -> Tensor:  # noqa: A002
    """``threshold_(input, threshold, value)``: :func:`threshold` written into ``input``."""
    return _into(input, _ops.threshold(input, threshold, value))


__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "dropout2d",
           "elu_", "hardtanh_", "kl_div", "nll_loss", "relu_", "sigmoid_", "smooth_l1_loss", "soft_margin_loss",
           "threshold", "threshold_"]
