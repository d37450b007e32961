"""MindSpore's mixture-of-experts token routing functions that MindSpore 2.10 runs on Ascend only:
``moe_token_permute`` (group the tokens by expert), ``moe_token_unpermute`` (put them back, weighted by the
routing probabilities) and ``moe_init_routing_v2`` (the grouping with expert capacities), composed from
registered primitives (Sort, Gather, UnsortedSegmentSum, ...) so that they trace in GRAPH_MODE and differentiate
with respect to the tokens and probabilities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import cat, gather, reshape, zeros_like
from .math import cast, minimum
from .math import sum as reduce_sum
from .math_more import argsort, cumsum
from .misc_names import unsorted_segment_sum
from .tensor_math import narrow

__all__ = ["moe_token_permute", "moe_token_unpermute", "moe_init_routing_v2"]


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
    order, rows = _expert_order(idx, topk)
    permuted = narrow(gather(t, rows, 0), 0, 0, keep)
    return permuted, cast(argsort(order), "int32")


def _expert_order(idx: Tensor, topk: int) -> tuple[Tensor, Tensor]:
    """The flattened (token, k) copies sorted by expert id, stably (int64), and each one's token row."""
    n = idx.shape[0] * topk
    # A unique key expert * n + position sorts by expert and keeps the flattened order within one expert.
    key = apply("Add", {}, [apply("Mul", {}, [cast(reshape(idx, (n,)), "int64"), Tensor(np.int64(n))]),
                            Tensor(np.arange(n, dtype=np.int64))])
    order = cast(argsort(key), "int64")
    return order, apply("FloorDiv", {}, [order, Tensor(np.int64(topk))])


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


def _routing_args(x: Tensor, idx: Tensor, ints: dict[str, Any]) -> None:
    if x.ndim != 2 or idx.ndim != 2 or x.shape[0] != idx.shape[0]:
        raise ValueError(f"moe_init_routing_v2: x must be (NUM_ROWS, H) and expert_idx (NUM_ROWS, K), got "
                         f"{tuple(x.shape)} and {tuple(idx.shape)}")
    if x.dtype.name not in ("float16", "bfloat16", "float32") or idx.dtype.name != "int32":
        raise TypeError(f"moe_init_routing_v2: x must be float16, bfloat16 or float32 and expert_idx int32, got "
                        f"{x.dtype.name} and {idx.dtype.name}")
    for what, v in ints.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"moe_init_routing_v2: {what} must be a non-negative int, got {v!r}")
    if ints["drop_pad_mode"] not in (0, 1) or ints["expert_tokens_count_or_cumsum_flag"] not in (0, 1, 2):
        raise ValueError("moe_init_routing_v2: drop_pad_mode must be 0 or 1 and expert_tokens_count_or_cumsum_flag "
                         "0, 1 or 2")
    if ints["drop_pad_mode"] == 1 and not (ints["expert_num"] > 0 and 0 < ints["expert_capacity"] <= x.shape[0]):
        raise ValueError(f"moe_init_routing_v2: drop/pad needs expert_num > 0 and expert_capacity in (0, "
                         f"{x.shape[0]}], got {ints['expert_num']} and {ints['expert_capacity']}")


def moe_init_routing_v2(x: Any, expert_idx: Any, active_num: int, expert_capacity: int, expert_num: int,
                        drop_pad_mode: int, expert_tokens_count_or_cumsum_flag: int,
                        expert_tokens_before_capacity_flag: bool) -> tuple:
    """``ops.moe_init_routing_v2(x, expert_idx, active_num, expert_capacity, expert_num, drop_pad_mode,
    expert_tokens_count_or_cumsum_flag, expert_tokens_before_capacity_flag)``: the rows of ``x`` copied once per
    expert in ``expert_idx`` (NUM_ROWS, K) and grouped by expert (stably). Dropless (``drop_pad_mode`` 0):
    ``expanded_x`` (NUM_ROWS * K, H), its first ``active_num`` rows when that is > 0; drop/pad (1): (expert_num,
    expert_capacity, H), each expert's first ``expert_capacity`` copies, the rest zeros. ``expanded_row_idx``
    (int32) gives each flattened (row, k) copy's row in ``expanded_x`` (-1: dropped). A third output, the
    per-expert counts (flag 2) or their cumulative sums (flag 1) without drop/pad, or the counts before the drop
    with ``expert_tokens_before_capacity_flag`` and drop/pad, is returned as MindSpore does."""
    t, idx = as_tensor(x), as_tensor(expert_idx)
    flag = expert_tokens_count_or_cumsum_flag
    _routing_args(t, idx, {"active_num": active_num, "expert_capacity": expert_capacity, "expert_num": expert_num,
                           "drop_pad_mode": drop_pad_mode, "expert_tokens_count_or_cumsum_flag": flag})
    if not isinstance(expert_tokens_before_capacity_flag, bool):
        raise TypeError("moe_init_routing_v2: expert_tokens_before_capacity_flag must be a bool")
    k = idx.shape[1]
    n = t.shape[0] * k
    order, rows = _expert_order(idx, k)
    flat = cast(reshape(idx, (n,)), "int64")
    counts = None
    if drop_pad_mode == 1 or flag:
        counts = unsorted_segment_sum(Tensor(np.ones(n, np.int32)), flat, expert_num)
    if drop_pad_mode == 0:
        keep = min(active_num, n) if active_num > 0 else n
        out = (narrow(gather(t, rows, 0), 0, 0, keep), cast(argsort(order), "int32"))
        return out if not flag else (*out, counts if flag == 2 else cumsum(counts, 0))
    cap = expert_capacity
    starts = apply("Sub", {}, [cumsum(cast(counts, "int64"), 0), cast(counts, "int64")])
    experts = gather(flat, order, 0)  # the expert of each sorted copy
    slot = apply("Sub", {}, [Tensor(np.arange(n, dtype=np.int64)), gather(starts, experts, 0)])
    kept = apply("Less", {}, [slot, Tensor(np.int64(cap))])
    dest = apply("Add", {}, [apply("Mul", {}, [experts, Tensor(np.int64(cap))]), slot])
    none = Tensor(np.int64(expert_num * cap))  # one spare segment collects the dropped copies
    segment = apply("Select", {}, [kept, dest, apply("Add", {}, [zeros_like(dest), none])])
    grouped = unsorted_segment_sum(gather(t, rows, 0), segment, expert_num * cap + 1)
    expanded = reshape(narrow(grouped, 0, 0, expert_num * cap), (expert_num, cap, t.shape[1]))
    row_of = apply("Select", {}, [kept, dest, apply("Sub", {}, [zeros_like(dest), Tensor(np.int64(1))])])
    row_idx = cast(gather(row_of, argsort(order), 0), "int32")
    return (expanded, row_idx, counts) if expert_tokens_before_capacity_flag else (expanded, row_idx)
