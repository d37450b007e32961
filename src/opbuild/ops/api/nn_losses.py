"""Loss functions of ``mindspore.ops`` beyond ``cross_entropy`` and ``mse_loss`` (ops/api/nn.py): the
regression losses (``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``gaussian_nll_loss``), the likelihood losses
(``nll_loss``, ``kl_div``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``) and the margin losses
(``soft_margin_loss``, ``multi_margin_loss``, ``multilabel_soft_margin_loss``, ``multilabel_margin_loss``,
``cosine_embedding_loss``, ``margin_ranking_loss``, ``triplet_margin_loss``, ``hinge_embedding_loss``).

Each is a composition of registered primitives (so it runs as cached kernels in graph mode) and differentiable
through their gradient rules; ``nn``'s loss cells (nn/losses_extra.py) call these. ``ctc_loss`` lives in
ops/api/ctc.py.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M

_REDUCTIONS = ("mean", "sum", "none")


def reduce_loss(fn: str, loss: Tensor, reduction: str) -> Tensor:
    """``loss`` averaged over every element, summed, or kept ('mean', 'sum', 'none'); ``fn`` names the caller
    in the error for any other value."""
    if reduction == "mean":
        return M.mean(loss)
    if reduction == "sum":
        return M.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def check_reduction(fn: str, reduction: object, allowed: tuple[str, ...] = _REDUCTIONS) -> str:
    """``reduction`` when it is one of ``allowed``, else a ValueError naming ``fn`` and the choices."""
    if reduction not in allowed:
        raise ValueError(f"{fn}: reduction must be one of {', '.join(map(repr, allowed))}, got {reduction!r}")
    return reduction  # type: ignore[return-value]


def _float_input(fn: str, name: str, x) -> Tensor:
    t = as_tensor(x)
    if not t.dtype.is_float:
        raise TypeError(f"{fn}: {name} must be a float16/float32/float64 Tensor, got {t.dtype}")
    return t


def _like(fn: str, x: Tensor, y, name: str = "target") -> Tensor:
    """``y`` as a Tensor of x's dtype (MindSpore's losses take both operands in one float dtype)."""
    return M._cast(as_tensor(y, x), x.dtype)


def _number(fn: str, name: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a float, got {v!r}")
    return float(v)


def l1_loss(input, target, reduction: str = "mean") -> Tensor:
    """``ops.l1_loss(input, target, reduction='mean')``: ``|input - target|`` (broadcast), reduced."""
    x = _float_input("l1_loss", "input", input)
    return reduce_loss("l1_loss", M.abs(M.sub(x, _like("l1_loss", x, target))), reduction)


def _piecewise_quadratic(x: Tensor, target, width: float, scale_quadratic: bool) -> Tensor:
    """``0.5 d^2 / width`` (or ``0.5 d^2``) where ``d = |x - t| < width``, else ``d - 0.5 width`` (or
    ``width (d - 0.5 width)``): the smooth-L1 and Huber shapes."""
    d = M.abs(M.sub(x, target))
    sq = M.mul(M.mul(d, d), 0.5)
    if scale_quadratic:
        return M.where(M.lt(d, width), M.div(sq, width), M.sub(d, 0.5 * width))
    return M.where(M.lt(d, width), sq, M.mul(M.sub(d, 0.5 * width), width))


def smooth_l1_loss(input, target, beta: float = 1.0, reduction: str = "none") -> Tensor:
    """``ops.smooth_l1_loss(input, target, beta=1.0, reduction='none')``: ``0.5 d^2 / beta`` where
    ``d = |input - target| < beta``, else ``d - 0.5 beta``; reduced."""
    x = _float_input("smooth_l1_loss", "input", input)
    beta = _number("smooth_l1_loss", "beta", beta)
    if beta <= 0:
        raise ValueError(f"smooth_l1_loss: beta must be > 0, got {beta}")
    check_reduction("smooth_l1_loss", reduction)
    t = _like("smooth_l1_loss", x, target)
    if tuple(t.shape) != tuple(x.shape):
        raise ValueError(f"smooth_l1_loss: input {x.shape} and target {t.shape} must have the same shape")
    return reduce_loss("smooth_l1_loss", _piecewise_quadratic(x, t, beta, True), reduction)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """``ops.huber_loss(input, target, reduction='mean', delta=1.0)``: ``0.5 d^2`` where
    ``d = |input - target| < delta``, else ``delta (d - 0.5 delta)``; reduced."""
    x = _float_input("huber_loss", "input", input)
    delta = _number("huber_loss", "delta", delta)
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    check_reduction("huber_loss", reduction)
    return reduce_loss("huber_loss", _piecewise_quadratic(x, _like("huber_loss", x, target), delta, False),
                       reduction)


def kl_div(logits, labels, reduction: str = "mean") -> Tensor:
    """``ops.kl_div(logits, labels, reduction='mean')``: ``labels (log(labels) - logits)`` with ``logits``
    log-probabilities (0 where a label is 0); 'mean' averages over every element, 'batchmean' divides the
    sum by the batch size (the first axis)."""
    x = _float_input("kl_div", "logits", logits)
    check_reduction("kl_div", reduction, ("mean", "sum", "none", "batchmean"))
    y = _like("kl_div", x, labels)
    pos = M.gt(y, 0)
    # log(1) where the label is 0 keeps the unused branch (and its gradient) finite.
    ylogy = M.where(pos, M.mul(y, M.log(M.where(pos, y, 1.0))), 0.0)
    loss = M.sub(ylogy, M.mul(y, x))
    if reduction == "batchmean":
        return M.div(M.sum(loss), float(x.shape[0]) if x.ndim else 1.0)
    return reduce_loss("kl_div", loss, reduction)


def _class_weights(fn: str, weight, c: int, x: Tensor) -> Tensor | None:
    if weight is None:
        return None
    w = M._cast(as_tensor(weight), x.dtype)
    if tuple(w.shape) != (c,):
        raise ValueError(f"{fn}: weight must have shape ({c},) (one per class), got {w.shape}")
    return w


def nll_from_logp(fn: str, logp: Tensor, target, weight, ignore_index: int, reduction: str,
                  label_smoothing: float) -> Tensor:
    """The negative log-likelihood of class indices ``target`` under log-probabilities ``logp`` (N, C) or
    (N, C, d1, ...): ``-w[t] logp[t]``, 0 where ``t == ignore_index``; ``label_smoothing`` mixes in
    ``-sum_c w_c logp_c / C``; 'mean' divides by the summed weights of the counted targets."""
    check_reduction(fn, reduction)
    if logp.ndim < 2:
        raise ValueError(f"{fn}: input must be (N, C) or (N, C, d1, ...), got shape {logp.shape}")
    t = as_tensor(target)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{fn}: target must hold int32/int64 class indices, got {t.dtype}")
    c = logp.shape[1]
    if tuple(t.shape) != (logp.shape[0], *logp.shape[2:]):
        raise ValueError(f"{fn}: target shape {t.shape} must be the input's {logp.shape} without the class "
                         f"axis 1")
    w = _class_weights(fn, weight, c, logp)
    wb = None if w is None else A.reshape(w, [1, c] + [1] * (logp.ndim - 2))
    dt = logp.dtype.np_dtype
    hot = A.one_hot(t, c, Tensor(np.array(1, dt)), Tensor(np.array(0, dt)), 1)
    valid = M._cast(M.ne(t, int(ignore_index)), logp.dtype)
    per_w = valid if wb is None else M.mul(M.sum(M.mul(hot, wb), 1), valid)
    loss = M.mul(M.neg(M.sum(M.mul(hot, logp), 1)), per_w)
    eps = _number(fn, "label_smoothing", label_smoothing)
    if eps:
        smooth = M.neg(M.sum(logp if wb is None else M.mul(logp, wb), 1))
        loss = M.add(M.mul(loss, 1.0 - eps), M.mul(M.mul(smooth, valid), eps / c))
    if reduction == "mean":
        return M.div(M.sum(loss), M.sum(per_w))
    return reduce_loss(fn, loss, reduction)


def nll_loss(inputs, target, weight=None, ignore_index: int = -100, reduction: str = "mean",
             label_smoothing: float = 0.0) -> Tensor:
    """``ops.nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)``:
    ``inputs`` are log-probabilities (N, C) or (N, C, d1, ...), ``target`` class indices (N,) or
    (N, d1, ...); see :func:`nll_from_logp`."""
    x = _float_input("nll_loss", "inputs", inputs)
    return nll_from_logp("nll_loss", x, target, weight, ignore_index, reduction, label_smoothing)


def binary_cross_entropy(logits, labels, weight=None, reduction: str = "mean") -> Tensor:
    """``ops.binary_cross_entropy(logits, labels, weight=None, reduction='mean')``: ``-w (y log(x) +
    (1 - y) log(1 - x))`` for probabilities ``x``, each log bounded below by -100 (so x = 0 or 1 stays
    finite)."""
    x = _float_input("binary_cross_entropy", "logits", logits)
    check_reduction("binary_cross_entropy", reduction)
    y = _like("binary_cross_entropy", x, labels)
    if tuple(y.shape) != tuple(x.shape):
        raise ValueError(f"binary_cross_entropy: logits {x.shape} and labels {y.shape} must have the same shape")
    log_x = M.maximum(M.log(x), -100.0)
    log_1mx = M.maximum(M.log(M.sub(1.0, x)), -100.0)
    loss = M.neg(M.add(M.mul(y, log_x), M.mul(M.sub(1.0, y), log_1mx)))
    if weight is not None:
        w = _like("binary_cross_entropy", x, weight)
        if tuple(w.shape) != tuple(x.shape):  # MindSpore 2.10 reads a smaller weight out of bounds: refuse it
            raise ValueError(f"binary_cross_entropy: weight {w.shape} must have the logits' shape {x.shape}")
        loss = M.mul(loss, w)
    return reduce_loss("binary_cross_entropy", loss, reduction)


def _neg_log_sigmoid(x: Tensor) -> Tensor:
    """``-log(sigmoid(x)) = log1p(exp(-|x|)) + max(-x, 0)``, without overflow for large ``|x|``."""
    return M.add(M.softplus(M.neg(M.abs(x))), M.maximum(M.neg(x), 0.0))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction: str = "mean"
                                     ) -> Tensor:
    """``ops.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction='mean')``:
    ``-w (p y log(sigmoid(x)) + (1 - y) log(1 - sigmoid(x)))``, ``p`` the ``pos_weight`` (broadcast over the
    last axis), in the stable form ``(1 - y) x + (1 + (p - 1) y) (-log(sigmoid(x)))``."""
    fn = "binary_cross_entropy_with_logits"
    x = _float_input(fn, "input", input)
    check_reduction(fn, reduction)
    y = _like(fn, x, target)
    if tuple(y.shape) != tuple(x.shape):
        raise ValueError(f"{fn}: input {x.shape} and target {y.shape} must have the same shape")
    coef = 1.0 if pos_weight is None else M.add(M.mul(M.sub(_like(fn, x, pos_weight), 1.0), y), 1.0)
    loss = M.add(M.mul(M.sub(1.0, y), x), M.mul(coef, _neg_log_sigmoid(x)))
    if weight is not None:
        loss = M.mul(loss, _like(fn, x, weight))
    return reduce_loss(fn, loss, reduction)


def soft_margin_loss(input, target, reduction: str = "mean") -> Tensor:
    """``ops.soft_margin_loss(input, target, reduction='mean')``: ``log(1 + exp(-y x))`` for labels ±1."""
    x = _float_input("soft_margin_loss", "input", input)
    check_reduction("soft_margin_loss", reduction)
    y = _like("soft_margin_loss", x, target)
    return reduce_loss("soft_margin_loss", _neg_log_sigmoid(M.mul(x, y)), reduction)


def _int_target(fn: str, target, shape: tuple[int, ...]) -> Tensor:
    t = as_tensor(target)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{fn}: target must be an int32/int64 Tensor, got {t.dtype}")
    if tuple(t.shape) != shape:
        raise ValueError(f"{fn}: target must have shape {shape}, got {t.shape}")
    return t


def multi_margin_loss(input, target, p: int = 1, margin: float = 1, weight=None, reduction: str = "mean"
                      ) -> Tensor:
    """``ops.multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean')``: for (N, C)
    scores and (N,) class indices, ``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C`` per sample
    (``p`` 1 or 2)."""
    fn = "multi_margin_loss"
    x = _float_input(fn, "input", input)
    check_reduction(fn, reduction)
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"{fn}: p must be 1 or 2, got {p!r}")
    margin = _number(fn, "margin", margin)
    squeeze = x.ndim == 1
    if squeeze:
        x = A.reshape(x, (1, x.shape[0]))
    if x.ndim != 2:
        raise ValueError(f"{fn}: input must be (N, C) or (C,), got shape {x.shape}")
    n, c = x.shape
    t = A.reshape(_int_target(fn, target, (n,) if not squeeze else ()), (n, 1))
    x_y = M.sum(M.mul(x, A.one_hot(A.reshape(t, (n,)), c, Tensor(np.array(1, x.dtype.np_dtype)),
                                   Tensor(np.array(0, x.dtype.np_dtype)), 1)), 1, keepdim=True)
    other = M._cast(M.ne(t, Tensor(np.arange(c, dtype=t.dtype.np_dtype))), x.dtype)
    hinge = M.relu(M.add(M.sub(x, x_y), margin))
    if p == 2:
        hinge = M.mul(hinge, hinge)
    per = M.div(M.sum(M.mul(hinge, other), 1), float(c))
    w = _class_weights(fn, weight, c, x)
    if w is not None:
        per = M.mul(per, A.gather(w, A.reshape(t, (n,)), 0))
    if squeeze:
        per = A.reshape(per, ())
    return reduce_loss(fn, per, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction: str = "mean") -> Tensor:
    """``ops.multilabel_soft_margin_loss(input, target, weight=None, reduction='mean')``: for (N, C) scores
    and 0/1 targets, ``-sum_c w_c (y log(sigmoid(x)) + (1 - y) log(sigmoid(-x))) / C`` per sample."""
    fn = "multilabel_soft_margin_loss"
    x = _float_input(fn, "input", input)
    check_reduction(fn, reduction)
    y = _like(fn, x, target)
    per = M.add(M.mul(y, _neg_log_sigmoid(x)), M.mul(M.sub(1.0, y), _neg_log_sigmoid(M.neg(x))))
    if weight is not None:
        per = M.mul(per, _like(fn, x, weight))
    per = M.div(M.sum(per, -1), float(x.shape[-1]))
    return reduce_loss(fn, per, reduction)


def multilabel_margin_loss(input, target, reduction: str = "mean") -> Tensor:
    """``ops.multilabel_margin_loss(input, target, reduction='mean')``: ``target`` (input's shape, int) lists
    each sample's classes, ended by the first -1; per sample ``sum_{j in targets, i not in targets}
    max(0, 1 - (x[j] - x[i])) / C``."""
    fn = "multilabel_margin_loss"
    x = _float_input(fn, "input", input)
    check_reduction(fn, reduction)
    squeeze = x.ndim == 1
    if squeeze:
        x = A.reshape(x, (1, x.shape[0]))
    if x.ndim != 2:
        raise ValueError(f"{fn}: input must be (N, C) or (C,), got shape {x.shape}")
    n, c = x.shape
    t = _int_target(fn, target, (c,) if squeeze else (n, c))
    t = A.reshape(t, (n, c))
    dt = x.dtype.np_dtype
    # The listed targets are those before the first -1: a running product of "not -1".
    listed = apply("CumProd", {"axis": 1, "exclusive": False, "reverse": False},
                   [M._cast(M.ne(t, -1), x.dtype)])
    safe = M.where(M.ge(t, 0), t, 0)
    hot = A.one_hot(safe, c, Tensor(np.array(1, dt)), Tensor(np.array(0, dt)), -1)   # (n, j, c)
    is_target = M.minimum(M.sum(M.mul(hot, A.reshape(listed, (n, c, 1))), 1), 1.0)  # (n, c)
    x_j = A.reshape(apply("GatherD", {"dim": 1}, [x, safe]), (n, c, 1))
    hinge = M.relu(M.add(M.sub(A.reshape(x, (n, 1, c)), x_j), 1.0))
    mask = M.mul(A.reshape(listed, (n, c, 1)), A.reshape(M.sub(1.0, is_target), (n, 1, c)))
    per = M.div(M.sum(M.mul(hinge, mask), (1, 2)), float(c))
    if squeeze:
        per = A.reshape(per, ())
    return reduce_loss(fn, per, reduction)


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """``ops.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')``: with ``cos`` the
    cosine similarity along the last axis, ``1 - cos`` where target is 1 and ``max(0, cos - margin)`` where
    it is -1."""
    fn = "cosine_embedding_loss"
    a = _float_input(fn, "input1", input1)
    b = _like(fn, a, input2)
    check_reduction(fn, reduction)
    margin = _number(fn, "margin", margin)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"{fn}: margin must be in [-1, 1], got {margin}")
    eps = 1e-12
    dot = M.sum(M.mul(a, b), -1)
    norms = M.sqrt(M.mul(M.add(M.sum(M.mul(a, a), -1), eps), M.add(M.sum(M.mul(b, b), -1), eps)))
    cos = M.div(dot, norms)
    y = as_tensor(target)
    loss = M.add(M.where(M.equal(y, 1), M.sub(1.0, cos), 0.0),
                 M.where(M.equal(y, -1), M.relu(M.sub(cos, margin)), 0.0))
    return reduce_loss(fn, loss, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """``ops.margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean')``:
    ``max(0, -y (x1 - x2) + margin)``."""
    fn = "margin_ranking_loss"
    a = _float_input(fn, "input1", input1)
    check_reduction(fn, reduction)
    margin = _number(fn, "margin", margin)
    y = _like(fn, a, target)
    return reduce_loss(fn, M.relu(M.add(M.mul(M.neg(y), M.sub(a, _like(fn, a, input2))), margin)), reduction)


def _pairwise_distance(a: Tensor, b: Tensor, p: float, eps: float) -> Tensor:
    d = M.abs(M.add(M.sub(a, b), eps))
    if p == 2:
        return M.sqrt(M.sum(M.mul(d, d), -1))
    if p == 1:
        return M.sum(d, -1)
    return M.pow(M.sum(M.pow(d, float(p)), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: int = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: str = "mean") -> Tensor:
    """``ops.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
    reduction='mean')``: ``max(d(a, pos) - d(a, neg) + margin, 0)`` with ``d`` the p-norm of ``a - b + eps``
    along the last axis; ``swap`` uses ``min(d(a, neg), d(pos, neg))`` as the negative distance."""
    fn = "triplet_margin_loss"
    a = _float_input(fn, "anchor", anchor)
    pos, neg = _like(fn, a, positive), _like(fn, a, negative)
    check_reduction(fn, reduction)
    margin = _number(fn, "margin", margin)
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or p <= 0:
        raise ValueError(f"{fn}: p must be a positive number, got {p!r}")
    d_pos = _pairwise_distance(a, pos, p, eps)
    d_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = M.minimum(d_neg, _pairwise_distance(pos, neg, p, eps))
    return reduce_loss(fn, M.relu(M.add(M.sub(d_pos, d_neg), margin)), reduction)


def gaussian_nll_loss(x, target, var, full: bool = False, eps: float = 1e-06, reduction: str = "mean") -> Tensor:
    """``ops.gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction='mean')``:
    ``0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps))``, plus ``0.5 log(2 pi)`` when ``full``."""
    fn = "gaussian_nll_loss"
    xt = _float_input(fn, "x", x)
    check_reduction(fn, reduction)
    v = M.maximum(_like(fn, xt, var, "var"), float(eps))
    d = M.sub(xt, _like(fn, xt, target))
    loss = M.mul(M.add(M.log(v), M.div(M.mul(d, d), v)), 0.5)
    if full:
        loss = M.add(loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss(fn, loss, reduction)


def hinge_embedding_loss(inputs, targets, margin: float = 1.0, reduction: str = "mean") -> Tensor:
    """``ops.hinge_embedding_loss(inputs, targets, margin=1.0, reduction='mean')``: ``x`` where the target is
    1 and ``max(0, margin - x)`` where it is -1."""
    fn = "hinge_embedding_loss"
    x = _float_input(fn, "inputs", inputs)
    check_reduction(fn, reduction)
    margin = _number(fn, "margin", margin)
    y = _like(fn, x, targets)
    loss = M.add(M.where(M.not_equal(y, 1.0), M.relu(M.sub(margin, x)), 0.0),
                 M.where(M.not_equal(y, -1.0), x, 0.0))
    return reduce_loss(fn, loss, reduction)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, eps: float = 1e-08,
                     reduction: str = "mean") -> Tensor:
    """The Poisson negative log-likelihood of ``nn.PoissonNLLLoss``: ``exp(x) - t x`` for log rates
    (``log_input``), else ``x - t log(x + eps)``; ``full`` adds Stirling's ``t log t - t + 0.5 log(2 pi t)``
    where ``t > 1``."""
    fn = "PoissonNLLLoss"
    x = _float_input(fn, "input", input)
    check_reduction(fn, reduction)
    t = _like(fn, x, target)
    loss = M.sub(M.exp(x), M.mul(t, x)) if log_input else M.sub(x, M.mul(t, M.log(M.add(x, float(eps)))))
    if full:
        big = M.gt(t, 1.0)
        ts = M.where(big, t, 2.0)
        stirling = M.add(M.sub(M.mul(ts, M.log(ts)), ts), M.mul(M.log(M.mul(ts, 2 * math.pi)), 0.5))
        loss = M.add(loss, M.where(big, stirling, 0.0))
    return reduce_loss(fn, loss, reduction)


__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "soft_margin_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "multilabel_margin_loss", "cosine_embedding_loss", "margin_ranking_loss",
           "triplet_margin_loss", "gaussian_nll_loss", "hinge_embedding_loss"]
