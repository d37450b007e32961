"""``ops.ctc_loss``: the connectionist temporal classification loss, as the forward (alpha) recursion over the
blank-extended targets written with existing primitives, unrolled over the static number of time steps (each
step a few elementwise kernels of one shape, built once and reused), so its gradient is autodiff's.

Impossible alignments are carried as a large negative number instead of -inf (so no step computes inf - inf);
they come out as an infinite loss, or 0 with ``zero_infinity``.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M

_NEG = -1e30  # "log 0": below any real log-likelihood, finite so that max-subtraction stays finite
_IMPOSSIBLE = -1e29


def _lse(*xs: Tensor) -> Tensor:
    """log(sum(exp(x))) of equally shaped tensors, elementwise, with the maximum subtracted first."""
    m = xs[0]
    for x in xs[1:]:
        m = M.maximum(m, x)
    total = M.exp(M.sub(xs[0], m))
    for x in xs[1:]:
        total = M.add(total, M.exp(M.sub(x, m)))
    return M.add(m, M.log(total))


def _shift(x: Tensor, k: int) -> Tensor:
    """x (N, W) moved k places along the last axis (right for k > 0, left for k < 0), ``_NEG`` coming in."""
    n, w = x.shape
    pad = Tensor(np.full((n, abs(k)), _NEG, x.dtype.np_dtype))
    if k > 0:
        return A.cat([pad, apply("Slice", {"begin": [0, 0], "size": [n, w - k]}, [x])], 1)
    return A.cat([apply("Slice", {"begin": [0, -k], "size": [n, w + k]}, [x]), pad], 1)


def _lengths(fn: str, name: str, v, n: int) -> Tensor:
    t = as_tensor(v)
    if t.dtype.name not in ("int32", "int64") or tuple(t.shape) != (n,):
        raise ValueError(f"{fn}: {name} must be an int32/int64 Tensor of shape ({n},), got {t.dtype} {t.shape}")
    return t


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
    zero_infinity=False)``: ``log_probs`` (T, N, C) log-softmax outputs, ``targets`` (N, S) class indices
    (``target_lengths`` of them counted per sample), ``input_lengths`` (N,) time steps per sample. Returns
    ``(loss, log_alpha)``: the negative log-likelihood per sample reduced ('mean' divides each by its target
    length first, then averages), and the (N, T, 2S + 1) forward variables (-inf where impossible)."""
    fn = "ctc_loss"
    lp = as_tensor(log_probs)
    if lp.ndim != 3 or not lp.dtype.is_float:
        raise ValueError(f"{fn}: log_probs must be a float (T, N, C) Tensor, got {lp.dtype} {lp.shape}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    steps, n, c = lp.shape
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < c:
        raise ValueError(f"{fn}: blank must be an int in [0, {c}), got {blank!r}")
    tg = as_tensor(targets)
    if tg.dtype.name not in ("int32", "int64") or tg.ndim != 2 or tg.shape[0] != n:
        raise ValueError(f"{fn}: targets must be an int32/int64 Tensor of shape ({n}, S), got {tg.dtype} {tg.shape}")
    in_len = _lengths(fn, "input_lengths", input_lengths, n)
    tg_len = _lengths(fn, "target_lengths", target_lengths, n)
    s = tg.shape[1]
    width = 2 * s + 1
    # The extended targets: blank, t1, blank, t2, ..., blank (a constant-shaped interleave of the targets).
    tg64 = M._cast(tg, "int64")
    blanks = Tensor(np.full((n, s), blank, np.int64))
    ext = A.reshape(A.stack([blanks, tg64], 2), (n, 2 * s))
    ext = A.cat([ext, Tensor(np.full((n, 1), blank, np.int64))], 1)                           # (N, 2S + 1)
    # A skip from s - 2 is allowed onto a non-blank label that differs from the one two places back.
    prev2 = A.cat([Tensor(np.full((n, 2), blank, np.int64)),
                   apply("Slice", {"begin": [0, 0], "size": [n, width - 2]}, [ext])], 1)
    skip = M.logical_and(M.ne(ext, blank), M.ne(ext, prev2))
    index = A.broadcast_to(A.expand_dims(ext, 0), (steps, n, width))
    emit = apply("GatherD", {"dim": 2}, [lp, index])                                 # (T, N, 2S + 1)
    per_step = [A.squeeze(e, 0) for e in A.split(emit, 1, 0)] if steps > 1 else [A.squeeze(emit, 0)]
    first = Tensor((np.arange(width) < 2).reshape(1, width))
    alpha = M.where(first, per_step[0], _NEG)
    alphas = [alpha]
    t_idx = A.reshape(in_len, (n, 1))
    for t in range(1, steps):
        stay, one = alpha, _shift(alpha, 1)
        two = M.where(skip, _shift(alpha, 2), _NEG)
        new = M.add(_lse(stay, one, two), per_step[t])
        alpha = M.where(M.gt(t_idx, t), new, alpha)  # past a sample's input length, its alphas stop
        alphas.append(alpha)
    last = A.reshape(M.mul(M._cast(tg_len, "int64"), 2), (n, 1))
    pos = Tensor(np.arange(width, dtype=np.int64).reshape(1, width))
    ends = M.logical_or(M.equal(pos, last), M.equal(pos, M.sub(last, 1)))
    ll = A.reshape(_lse_rows(M.where(ends, alpha, _NEG)), (n,))
    impossible = M.lt(ll, _IMPOSSIBLE)
    loss = M.neg(ll)
    loss = M.where(impossible, 0.0 if zero_infinity else float("inf"), loss)
    log_alpha = A.transpose(A.stack(alphas, 0), (1, 0, 2))                          # (N, T, 2S + 1)
    # Reported as MindSpore does: -inf past each sample's extended target and past its input length.
    in_target = A.reshape(M.le(pos, last), (n, 1, width))
    in_time = M.gt(A.reshape(in_len, (n, 1, 1)), Tensor(np.arange(steps, dtype=np.int64).reshape(1, steps, 1)))
    keep = M.logical_and(M.logical_and(in_target, in_time), M.ge(log_alpha, _IMPOSSIBLE))
    log_alpha = M.where(keep, log_alpha, float("-inf"))
    if reduction == "mean":
        loss = M.mean(M.div(loss, M._cast(M.maximum(tg_len, 1), loss.dtype)))
    elif reduction == "sum":
        loss = M.sum(loss)
    return loss, log_alpha


def _lse_rows(x: Tensor) -> Tensor:
    """log-sum-exp over the last axis (keeping it), the row maximum subtracted first."""
    m = M.amax(x, -1, keepdims=True)
    return M.add(m, M.log(M.sum(M.exp(M.sub(x, m)), -1, keepdim=True)))


__all__ = ["ctc_loss"]
