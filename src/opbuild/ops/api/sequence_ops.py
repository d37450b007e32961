"""Sequence operators behind MindSpore's ``CTCLoss``, ``EditDistance`` and ``NoRepeatNGram`` primitive classes
(ops/ms_prim_detection.py).

``ctc_loss_with_grad`` is TensorFlow's CTC loss (the blank is the last class, the inputs are unnormalised
logits, labels a sparse tensor) with its gradient as a second output, computed on the host by the
forward-backward recursions in float64 log space (inside a trace, by the composition of ctc_traced.py);
``edit_distance`` is the Levenshtein distance of sparse
sequences (host); ``no_repeat_ngram`` is a composition (it traces).
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from . import array as A
from . import math as M
from .aliases import all as all_
from .aliases import any as any_
from .ctc_traced import ctc_loss_traced
from .data_dependent import _concrete

_FLT_MIN = -3.4028234663852886e38  # -FLT_MAX, the log-probability NoRepeatNGram writes


def _logsumexp(*xs: np.ndarray) -> np.ndarray:
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(sum(np.exp(x - safe) for x in xs))


def _ctc_one(logp: np.ndarray, label: list[int], blank: int, merge: bool) -> tuple[float, np.ndarray]:
    """Negative log-likelihood of ``label`` under (T, C) log-probabilities and its gradient with respect to
    the logits (softmax minus the posterior of each class)."""
    steps, classes = logp.shape
    ext = [blank]
    for c in label:
        ext += [c, blank]
    width = len(ext)
    ext_a = np.array(ext)
    # Staying on a label position is allowed for blanks, and for labels only when repeats merge; skipping the
    # blank between two labels too, unless merging makes two equal labels one (TensorFlow's recursions).
    stay = (ext_a == blank) | merge
    skip = np.zeros(width, bool)
    skip[2:] = (ext_a[2:] != blank) & ((ext_a[2:] != ext_a[:-2]) | (not merge))
    neg = -np.inf
    alpha = np.full((steps, width), neg)
    beta = np.full((steps, width), neg)
    alpha[0, :min(2, width)] = logp[0, ext_a[:min(2, width)]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = np.concatenate([[neg], prev[:-1]])
        two = np.where(skip, np.concatenate([[neg, neg], prev[:-2]]), neg)
        alpha[t] = _logsumexp(np.where(stay, prev, neg), one, two) + logp[t, ext_a]
    beta[-1, max(width - 2, 0):] = logp[-1, ext_a[max(width - 2, 0):]]
    skip_from = np.zeros(width, bool)
    skip_from[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [neg]])
        two = np.where(skip_from, np.concatenate([nxt[2:], [neg, neg]]), neg)
        beta[t] = _logsumexp(np.where(stay, nxt, neg), one, two) + logp[t, ext_a]
    ll = _logsumexp(alpha[-1, -1], alpha[-1, -2]) if width > 1 else alpha[-1, -1]
    grad = np.exp(logp)
    if np.isfinite(ll):
        post = alpha + beta - logp[:, ext_a]                # log of sum over paths through (t, s)
        for s, c in enumerate(ext):
            grad[:, c] -= np.exp(post[:, s] - ll)
    return float(-ll), grad


def ctc_loss_with_grad(x, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated: bool = False,
                       ctc_merge_repeated: bool = True, ignore_longer_outputs_than_inputs: bool = False
                       ) -> tuple[Tensor, Tensor]:
    """TensorFlow's CTC loss of (T, B, C) logits ``x`` with the sparse labels (``labels_indices`` (n, 2) of
    (batch, position), ``labels_values`` (n,)), ``sequence_length`` (B,) steps per entry and the blank
    C - 1: the (B,) loss and the (T, B, C) gradient of each entry's loss with respect to its logits (zero past
    its length, and for an ignored entry)."""
    fn = "CTCLoss"
    t = as_tensor(x)
    idx, val, n = as_tensor(labels_indices), as_tensor(labels_values), as_tensor(sequence_length)
    if t.ndim != 3 or t.dtype.name not in ("float16", "float32", "float64"):
        raise ValueError(f"{fn}: x must be a float (T, B, C) Tensor, got {t.dtype} {tuple(t.shape)}")
    steps, batch, classes = t.shape
    if idx.ndim != 2 or idx.shape[1] != 2 or val.shape != (idx.shape[0],) or n.shape != (batch,):
        raise ValueError(f"{fn}: labels_indices must be (n, 2), labels_values (n,) and sequence_length ({batch},), "
                         f"got {tuple(idx.shape)}, {tuple(val.shape)} and {tuple(n.shape)}")
    if any(v._data is None for v in (t, idx, val, n)):  # inside a trace (GRAPH_MODE, grad): the composition
        if preprocess_collapse_repeated or not ctc_merge_repeated:
            raise RuntimeError(f"{fn}: in a GRAPH_MODE trace or under grad only the default options are supported "
                               f"(ctc_merge_repeated=True, preprocess_collapse_repeated=False); call it in "
                               f"PYNATIVE_MODE for the others")
        return ctc_loss_traced(t, idx, val, n)
    a = t.asnumpy().astype(np.float64)
    lengths, pos, vals = n.asnumpy(), idx.asnumpy(), val.asnumpy()
    if np.any((lengths < 0) | (lengths > steps)) or np.any((pos[:, 0] < 0) | (pos[:, 0] >= batch)):
        raise ValueError(f"{fn}: sequence_length must be in [0, {steps}] and label batch indices in [0, {batch})")
    if np.any((vals < 0) | (vals >= classes - 1)):
        # MindSpore 2.10 accepts the blank as a label (its documented example has one) and returns values no
        # alignment model gives (posteriors that do not sum to one): refused here rather than guessed at.
        raise ValueError(f"{fn}: label values must be classes in [0, {classes - 1}) (class {classes - 1} is the "
                         f"blank), got {vals.tolist()}")
    labels: list[list[int]] = [[] for _ in range(batch)]
    for (b, _), v in sorted(zip(map(tuple, pos.tolist()), vals.tolist(), strict=True)):
        labels[b].append(int(v))
    loss = np.zeros(batch)
    grad = np.zeros_like(a)
    for b in range(batch):
        lab = labels[b]
        if preprocess_collapse_repeated:
            lab = [c for i, c in enumerate(lab) if i == 0 or c != lab[i - 1]]
        m = int(lengths[b])
        if len(lab) > m and not ignore_longer_outputs_than_inputs:
            raise ValueError(f"{fn}: batch entry {b} has {len(lab)} labels but only {m} time steps; pass "
                             f"ignore_longer_outputs_than_inputs=True to skip such entries")
        if m == 0:
            loss[b] = np.inf if lab else 0.0
            continue
        logits = a[:m, b]
        logp = logits - _logsumexp(*logits.T)[:, None]
        loss[b], g = _ctc_one(logp, lab, classes - 1, ctc_merge_repeated)
        if len(lab) <= m:
            grad[:m, b] = g
    return Tensor(loss.astype(t.dtype.np_dtype), dtype=t.dtype), Tensor(grad.astype(t.dtype.np_dtype), dtype=t.dtype)


def _sequences(fn: str, name: str, indices: Tensor, values: Tensor, shape: Tensor) -> tuple[dict, tuple[int, ...]]:
    idx, shp = indices.asnumpy(), tuple(int(d) for d in shape.asnumpy().reshape(-1))
    if idx.ndim != 2 or idx.shape[1] != len(shp) or len(shp) < 1 or values.shape != (idx.shape[0],):
        raise ValueError(f"{fn}: {name} indices must be (n, {len(shp)}) for a rank-{len(shp)} shape and values "
                         f"(n,), got {idx.shape} and {tuple(values.shape)}")
    seqs: dict = {}
    for key, v in sorted(zip(map(tuple, idx.tolist()), values.asnumpy().tolist(), strict=True)):
        seqs.setdefault(key[:-1], []).append(v)
    return seqs, shp


def _levenshtein(a: list, b: list) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                  truth_shape, normalize: bool = True) -> Tensor:
    """The Levenshtein distance between the sparse sequences of ``hypothesis`` and ``truth`` (the last axis
    is the sequence; the others, the larger of the two shapes, index the output), divided by the truth's
    length with ``normalize`` (inf for an empty truth against a non-empty hypothesis). float32."""
    fn = "EditDistance"
    ts = [as_tensor(v) for v in (hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                                 truth_values, truth_shape)]
    _concrete(fn, *ts)
    hyp, hshape = _sequences(fn, "hypothesis", *ts[:3])
    truth, tshape = _sequences(fn, "truth", *ts[3:])
    if len(hshape) != len(tshape):
        raise ValueError(f"{fn}: hypothesis and truth must have one rank, got shapes {hshape} and {tshape}")
    out_shape = tuple(max(a, b) for a, b in zip(hshape[:-1], tshape[:-1], strict=True))
    out = np.zeros(out_shape, np.float32)
    for key in np.ndindex(*out_shape):
        h, t = hyp.get(key, []), truth.get(key, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else (np.inf if h else 0.0)
        out[key] = d
    return Tensor(out)


def no_repeat_ngram(state_seq, log_probs, ngram_size: int) -> Tensor:
    """``log_probs`` (B, beam, V) with -FLT_MAX at every token that would complete an n-gram already present
    in ``state_seq`` (B, beam, L): for each earlier window equal to the last ``ngram_size - 1`` tokens, the
    token that followed it."""
    fn = "NoRepeatNGram"
    seq, lp = as_tensor(state_seq), as_tensor(log_probs)
    if seq.ndim != 3 or seq.dtype.name not in ("int32", "int64") or lp.ndim != 3 or \
            tuple(lp.shape[:2]) != tuple(seq.shape[:2]) or not lp.dtype.is_float:
        raise ValueError(f"{fn}: state_seq must be an int (B, beam, L) Tensor and log_probs a float (B, beam, V) "
                         f"one, got {seq.dtype} {tuple(seq.shape)} and {lp.dtype} {tuple(lp.shape)}")
    if isinstance(ngram_size, bool) or not isinstance(ngram_size, int) or ngram_size < 1:
        raise ValueError(f"{fn}: ngram_size must be a positive int, got {ngram_size!r}")
    length, vocab = seq.shape[2], lp.shape[2]
    starts = length - ngram_size + 1
    if starts <= 0:
        return lp
    k = ngram_size - 1
    nxt = seq[:, :, k:]                                                           # (B, beam, J): token after window j
    if k == 0:
        match = M.equal(nxt, nxt)                                                 # every (empty) window matches
    else:
        window = np.arange(starts)[:, None] + np.arange(k)[None, :]               # (J, k)
        windows = A.gather(seq, Tensor(window.astype(np.int64)), 2)               # (B, beam, J, k)
        tail = A.expand_dims(seq[:, :, length - k:], 2)                           # (B, beam, 1, k)
        match = all_(M.equal(windows, tail), -1)                                 # (B, beam, J)
    hits = M.logical_and(A.expand_dims(match, -1),
                         M.equal(A.expand_dims(nxt, -1), Tensor(np.arange(vocab).astype(seq.dtype.np_dtype))))
    banned = any_(hits, 2)                                                       # (B, beam, V)
    # -FLT_MAX, saturated to float16's lowest for a float16 input, as MindSpore writes it.
    low = np.finfo(np.float16).min if lp.dtype.name == "float16" else _FLT_MIN
    return M.where(banned, Tensor(np.array(low, lp.dtype.np_dtype)), lp)
