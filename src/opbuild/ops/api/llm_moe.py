"""MindSpore's mixture-of-experts token routing functions that MindSpore 2.10 runs on Ascend only:
``moe_token_permute`` (group the tokens by expert) and ``moe_token_unpermute`` (put them back, weighted by the
routing probabilities), composed from registered primitives (Sort, Gather, ...) so that they trace in GRAPH_MODE
and differentiate with respect to the tokens and probabilities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import cat, gather, reshape, zeros_like
from .math import cast, minimum
from .math import sum as reduce_sum
from .math_more import argsort
from .tensor_math import narrow

__all__ = ["moe_token_permute", "moe_token_unpermute"]


def moe_token_permute(tokens: Any, indices: Any, num_out_tokens: int | None = None,
                      padded_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False)``: the (num_tokens,
    hidden) ``tokens`` copied once per chosen expert in ``indices`` ((num_tokens, topk) or (num_tokens,)) and
    grouped by expert id (stable: within one expert, by token then k). Returns ``(permuted_tokens,
    sorted_indices)``: the first ``num_out_tokens`` (default all) rows, and int32 for each flattened (token, k)
    the row it went to."""
    t, idx = as_tensor(tokens), as_tensor(indices)
    if t.ndim != 2 or idx.ndim not in (1, 2):
        raise ValueError(f"moe_token_permute: tokens must be 2-D and indices 1-D or 2-D, got {tuple(t.shape)} and "
                         f"{tuple(idx.shape)}")
    if idx.dtype.name not in ("int32", "int64"):
        raise TypeError(f"moe_token_permute: indices must be int32 or int64, got {idx.dtype.name}")
    if idx.shape[0] != t.shape[0]:
        raise ValueError(f"moe_token_permute: tokens ({t.shape[0]}) and indices ({idx.shape[0]}) must have one "
                         "number of tokens")
    if not isinstance(padded_mode, bool) or padded_mode:
        raise ValueError("moe_token_permute: padded_mode must be False (MindSpore supports only that)")
    topk = 1 if idx.ndim == 1 else idx.shape[1]
    n = t.shape[0] * topk
    if num_out_tokens is not None and (isinstance(num_out_tokens, bool) or not isinstance(num_out_tokens, int)
                                       or not num_out_tokens >= 0):
        raise TypeError(f"moe_token_permute: num_out_tokens must be a non-negative int or None, got {num_out_tokens!r}")
    keep = n if num_out_tokens is None else min(num_out_tokens, n)
    # A unique key expert * n + position sorts by expert and keeps the flattened order within one expert.
    key = apply("Add", {}, [apply("Mul", {}, [cast(reshape(idx, (n,)), "int64"), Tensor(np.int64(n))]),
                            Tensor(np.arange(n, dtype=np.int64))])
    order = cast(argsort(key), "int64")
    rows = apply("FloorDiv", {}, [order, Tensor(np.int64(topk))])
    permuted = narrow(gather(t, rows, 0), 0, 0, keep)
    return permuted, cast(argsort(order), "int32")


def moe_token_unpermute(permuted_tokens: Any, sorted_indices: Any, probs: Any = None, padded_mode: bool = False,
                        restore_shape: Any = None) -> Tensor:
    """``ops.moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False,
    restore_shape=None)``: token t's output is ``sum_k probs[t, k] * permuted_tokens[sorted_indices[t * topk +
    k]]`` (probs None: topk 1, weight 1); an index past the permuted rows (a dropped copy) adds 0."""
    p, si = as_tensor(permuted_tokens), as_tensor(sorted_indices)
    if not isinstance(padded_mode, bool) or padded_mode or restore_shape is not None:
        raise ValueError("moe_token_unpermute: padded_mode must be False and restore_shape None (MindSpore supports "
                         "only that)")
    if p.ndim != 2 or si.ndim != 1:
        raise ValueError(f"moe_token_unpermute: permuted_tokens must be 2-D and sorted_indices 1-D, got "
                         f"{tuple(p.shape)} and {tuple(si.shape)}")
    if si.dtype.name != "int32":
        raise TypeError(f"moe_token_unpermute: sorted_indices must be int32, got {si.dtype.name}")
    topk = 1
    if probs is not None:
        pr = as_tensor(probs)
        if pr.ndim != 2 or pr.shape[0] * pr.shape[1] != si.shape[0]:
            raise ValueError(f"moe_token_unpermute: probs must be (num_tokens, topk) with num_tokens * topk = "
                             f"{si.shape[0]}, got {tuple(pr.shape)}")
        topk = pr.shape[1]
    rows, hidden = p.shape
    padded = cat([p, zeros_like(narrow(p, 0, 0, 1)) if rows else Tensor(np.zeros((1, hidden), p.dtype.np_dtype))], 0)
    picked = gather(padded, minimum(cast(si, "int64"), Tensor(np.int64(rows))), 0)
    picked = reshape(picked, (si.shape[0] // topk, topk, hidden))
    if probs is not None:
        weights = reshape(cast(as_tensor(probs), p.dtype), (si.shape[0] // topk, topk, 1))
        picked = apply("Mul", {}, [picked, weights])
    return reduce_sum(picked, 1)
