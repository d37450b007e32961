"""MindSpore's two general fused attention entry points that MindSpore 2.10 runs on Ascend only:
``fused_infer_attention_score`` (prompt and decoding attention with the log-sum-exp of the scores) and
``speed_fusion_attention`` (training attention with a position bias ``pse`` applied before or after the scale),
built on the CPU attention of llm_attention.py (same layouts, masks, GQA and refusals)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor
from ..primitive import apply
from .llm_attention import INT_MAX, as_int, flash_attention_outputs, float_qkv, from_bnsd, prefill, refuse

__all__ = ["fused_infer_attention_score", "speed_fusion_attention"]

_FIA_UNSUPPORTED = ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2", "quant_offset2",
                    "antiquant_scale", "antiquant_offset", "key_antiquant_scale", "key_antiquant_offset",
                    "value_antiquant_scale", "value_antiquant_offset", "block_table", "query_padding_size",
                    "kv_padding_size", "key_shared_prefix", "value_shared_prefix", "actual_shared_prefix_len")


def fused_infer_attention_score(query: Any, key: Any, value: Any, *, pse_shift: Any = None, atten_mask: Any = None,
                                actual_seq_lengths: Any = None, actual_seq_lengths_kv: Any = None,
                                dequant_scale1: Any = None, quant_scale1: Any = None, dequant_scale2: Any = None,
                                quant_scale2: Any = None, quant_offset2: Any = None, antiquant_scale: Any = None,
                                antiquant_offset: Any = None, key_antiquant_scale: Any = None,
                                key_antiquant_offset: Any = None, value_antiquant_scale: Any = None,
                                value_antiquant_offset: Any = None, block_table: Any = None,
                                query_padding_size: Any = None, kv_padding_size: Any = None,
                                key_shared_prefix: Any = None, value_shared_prefix: Any = None,
                                actual_shared_prefix_len: Any = None, num_heads: int = 1, scale: float = 1.0,
                                pre_tokens: int = INT_MAX, next_tokens: int = INT_MAX, input_layout: str = "BSH",
                                num_key_value_heads: int = 0, sparse_mode: int = 0, inner_precise: int = 1,
                                block_size: int = 0, antiquant_mode: int = 0, key_antiquant_mode: int = 0,
                                value_antiquant_mode: int = 0, softmax_lse_flag: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.fused_infer_attention_score(query, key, value, *, ...)``: prompt attention (query length > 1, with
    sparse modes 0-4 and ``actual_seq_lengths``) or one decoding step (query length 1: sparse mode, tokens and
    ``actual_seq_lengths`` ignored) in BSH, BSND, BNSD or BNSD_BSND (BNSD in, BSND out). ``atten_mask`` True masks
    out. Returns ``(attention_out, softmax_lse)``: the log-sum-exp of the scores as (B, N, Q_S, 1) float32 when
    ``softmax_lse_flag``, else a (1,) zero."""
    name = "fused_infer_attention_score"
    given = (dequant_scale1, quant_scale1, dequant_scale2, quant_scale2, quant_offset2, antiquant_scale,
             antiquant_offset, key_antiquant_scale, key_antiquant_offset, value_antiquant_scale,
             value_antiquant_offset, block_table, query_padding_size, kv_padding_size, key_shared_prefix,
             value_shared_prefix, actual_shared_prefix_len)
    refuse(name, **dict(zip(_FIA_UNSUPPORTED, given)))
    if not isinstance(softmax_lse_flag, bool):
        raise TypeError(f"{name}: softmax_lse_flag must be a bool, got {type(softmax_lse_flag).__name__}")
    if input_layout not in ("BSH", "BSND", "BNSD", "BNSD_BSND"):
        raise ValueError(f"{name}: input_layout must be 'BSH', 'BSND', 'BNSD' or 'BNSD_BSND', got {input_layout!r}")
    q, k, v = float_qkv(name, query, key, value)
    layout = "BNSD" if input_layout == "BNSD_BSND" else input_layout
    mode, pre, nxt = (as_int(name, w, x) for w, x in (("sparse_mode", sparse_mode), ("pre_tokens", pre_tokens),
                                                       ("next_tokens", next_tokens)))
    q_s = q.shape[1] if layout in ("BSH", "BSND") else (q.shape[2] if q.ndim == 4 else 0)
    q_lens = actual_seq_lengths
    if q_s == 1:  # decoding: the sparse mode, the band and the query lengths do not apply
        mode, pre, nxt, q_lens = 0, INT_MAX, INT_MAX, None
    out, mx, total = prefill(name, q, k, v, atten_mask, q_lens, actual_seq_lengths_kv, pse_shift, num_heads,
                             num_key_value_heads, float(scale), pre, nxt, layout, mode, softmax_lse_flag)
    out = from_bnsd(out, "BSND" if input_layout == "BNSD_BSND" else layout)
    if not softmax_lse_flag:
        return out, Tensor(np.zeros((1,), np.float32))
    return out, apply("Add", {}, [mx, apply("Log", {}, [total])])


def speed_fusion_attention(query: Any, key: Any, value: Any, head_num: int, input_layout: str, *, pse: Any = None,
                           padding_mask: Any = None, atten_mask: Any = None, scale: float = 1.0,
                           keep_prob: float = 1.0, pre_tokens: int = INT_MAX, next_tokens: int = INT_MAX,
                           inner_precise: int = 0, prefix: Any = None, actual_seq_qlen: Any = None,
                           actual_seq_kvlen: Any = None, sparse_mode: int = 0, gen_mask_parallel: bool = True,
                           sync: bool = False, pse_type: int = 1, q_start_idx: Any = None,
                           kv_start_idx: Any = None) -> tuple:
    """``ops.speed_fusion_attention(query, key, value, head_num, input_layout, *, ...)``: ``flash_attention_score``
    with ``pse`` added after the scale (``pse_type`` 0) or before it (1: ``scale * (pse + q @ k^T)``). Returns
    ``(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels)``; without dropout the last
    three (dropout bookkeeping) are 0-D int64 zeros. The generated ALiBi biases (``pse_type`` 2, 3) are refused."""
    name = "speed_fusion_attention"
    q, k, v = float_qkv(name, query, key, value)
    ptype = as_int(name, "pse_type", pse_type)
    if ptype not in (0, 1):
        raise NotImplementedError(f"{name}: pse_type {ptype} (internally generated ALiBi) is not implemented on the "
                                  "CPU; pass the bias as pse with pse_type 0 or 1")
    if q_start_idx is not None or kv_start_idx is not None:
        raise ValueError(f"{name}: q_start_idx/kv_start_idx only apply to pse_type 2 or 3")
    shift = pse
    if pse is not None and ptype == 1:  # scale * (pse + qk^T) = scale * qk^T + scale * pse
        shift = apply("Mul", {}, [pse, Tensor(np.array(scale, np.dtype(q.dtype.np_dtype)))])
    mx, total, unused, out = flash_attention_outputs(
        q, k, v, head_num, shift, None, padding_mask, atten_mask, prefix, actual_seq_qlen, actual_seq_kvlen,
        keep_prob, scale, pre_tokens, next_tokens, input_layout, sparse_mode, name=name)
    zero = Tensor(np.zeros((), np.int64))
    return out, mx, total, unused, zero, zero, zero

