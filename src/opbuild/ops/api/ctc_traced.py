"""TensorFlow's CTC loss (``CTCLoss``) as a composition, for GRAPH_MODE traces and ``grad``: the sparse labels
become dense rows inside the graph (ScatterNd, at most ``n`` labels per row), the forward (alpha) and backward
(beta) recursions are unrolled over the static number of time steps, and the gradient output is the softmax
minus the label posteriors (a batched matmul onto the classes). The loss output differentiates through the
recursion like any composition. ``ctc_merge_repeated=True`` and no label preprocessing only (the host version
in sequence_ops.py has every option); past a sample's length the gradient is 0, and an impossible alignment
gives an infinite loss and a zero gradient.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .ctc import _IMPOSSIBLE, _NEG, _lse, _lse_rows, _shift
from .math_more import scatter_nd
from .nn import log_softmax, softmax


def ctc_loss_traced(x, labels_indices, labels_values, sequence_length) -> tuple[Tensor, Tensor]:
    """The (B,) loss and (T, B, C) gradient of TensorFlow's CTC loss (blank: the last class) as a composition."""
    t_in = as_tensor(x)
    steps, batch, classes = t_in.shape
    dt = "float32" if t_in.dtype.name == "float16" else t_in.dtype.name
    logits = M._cast(t_in, dt)
    idx = M._cast(as_tensor(labels_indices), "int64")
    val = M._cast(as_tensor(labels_values), "int64")
    seq = M._cast(as_tensor(sequence_length), "int64")
    n = max(int(idx.shape[0]), 1)
    blank = classes - 1
    # Dense labels (B, S) and their counts: a label at (b, p) goes to row b, column p (p < n).
    dense = scatter_nd(idx, M.add(val, 1), (batch, n)) if idx.shape[0] else Tensor(np.zeros((batch, n), np.int64))
    targets = M.maximum(M.sub(dense, 1), 0)
    ones = Tensor(np.ones(idx.shape[0], np.int64))
    lengths = apply("UnsortedSegmentSum", {"num_segments": batch}, [ones, idx[:, 0]]) if idx.shape[0] else \
        Tensor(np.zeros(batch, np.int64))
    width = 2 * n + 1
    blanks = Tensor(np.full((batch, n), blank, np.int64))
    ext = A.cat([A.reshape(A.stack([blanks, targets], 2), (batch, 2 * n)),
                 Tensor(np.full((batch, 1), blank, np.int64))], 1)                       # (B, W)
    prev2 = _shift(M._cast(ext, dt), 2)
    skip = M.logical_and(M.ne(ext, blank), M.ne(M._cast(ext, dt), prev2))               # onto s from s - 2
    logp = log_softmax(logits, -1)
    emit = apply("GatherD", {"dim": 2}, [logp, A.broadcast_to(A.expand_dims(ext, 0), (steps, batch, width))])
    per_step = [A.squeeze(e, 0) for e in A.split(emit, 1, 0)] if steps > 1 else [A.squeeze(emit, 0)]
    end = A.reshape(seq, (batch, 1))
    pos = Tensor(np.arange(width, dtype=np.int64).reshape(1, width))
    last = A.reshape(M.mul(lengths, 2), (batch, 1))
    ends = M.logical_or(M.equal(pos, last), M.equal(pos, M.sub(last, 1)))
    # alpha_t(s): paths through (t, s), emissions up to t included; past a sample's length it stays.
    alpha = M.where(Tensor((np.arange(width) < 2).reshape(1, width)), per_step[0], _NEG)
    alphas = [alpha]
    for t in range(1, steps):
        new = M.add(_lse(alpha, _shift(alpha, 1), M.where(skip, _shift(alpha, 2), _NEG)), per_step[t])
        alpha = M.where(M.gt(end, t), new, alpha)
        alphas.append(alpha)
    ll = A.reshape(_lse_rows(M.where(ends, alpha, _NEG)), (batch, 1))
    # beta_t(s): paths from (t, s) to the end, emission at t included; it starts at each sample's last step.
    skip_from = _shift(M._cast(skip, dt), -2)                                            # from s to s + 2
    beta = Tensor(np.full((batch, width), _NEG, np.dtype(dt)))
    betas: list[Tensor] = [beta] * steps
    for t in range(steps - 1, -1, -1):
        start = M.where(ends, per_step[t], _NEG)
        rec = M.add(_lse(beta, _shift(beta, -1), M.where(M.gt(skip_from, 0.5), _shift(beta, -2), _NEG)),
                    per_step[t])
        beta = M.where(M.equal(end, t + 1), start, M.where(M.gt(end, t + 1), rec, _NEG))
        betas[t] = beta
    alpha_all = A.stack(alphas, 0)                                                       # (T, B, W)
    beta_all = A.stack(betas, 0)
    live = M.gt(A.reshape(seq, (1, batch, 1)), Tensor(np.arange(steps, dtype=np.int64).reshape(steps, 1, 1)))
    post = M.sub(M.sub(M.add(alpha_all, beta_all), emit), A.reshape(ll, (1, batch, 1)))
    post = M.exp(M.where(live, M.minimum(post, 0.0), _NEG))
    onehot = A.one_hot(ext, classes, Tensor(np.array(1, np.dtype(dt))), Tensor(np.array(0, np.dtype(dt))), -1)
    by_class = A.transpose(A.bmm(A.transpose(post, (1, 0, 2)), onehot), (1, 0, 2))
    possible = M.gt(A.reshape(ll, (1, batch, 1)), _IMPOSSIBLE)
    keep = M.logical_and(M.logical_and(A.reshape(live, (steps, batch, 1)), possible),
                         Tensor(np.ones((1, 1, classes), bool)))
    grad = M.where(keep, M.sub(softmax(logits, -1), by_class), 0.0)
    loss = A.reshape(M.where(M.lt(ll, _IMPOSSIBLE), float("inf"), M.neg(ll)), (batch,))
    return M._cast(loss, t_in.dtype), M._cast(grad, t_in.dtype)
